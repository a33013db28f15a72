"""The shopping list, the to-do list and the user's own lists: add, remove, check off, read.

Several items in one sentence ("add milk, eggs and bread to my shopping list") become one entry
each. The store is a port: ARIA's database, or Home Assistant's to-do entity when the user
chose it (``assist.shopping_list``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from aria_desktop.core.skills.ports import Phrasebook
from aria_desktop.core.skills.router import SkillTurn
from aria_desktop.core.skills.wording import join_spoken
from aria_desktop.domain.intents import IntentMatch, SkillReply
from aria_desktop.domain.lists import SHOPPING, TODO, ListItem, ListSummary, canonical_list_name

__all__ = ["ListSkill", "ListStore", "split_items"]

_AND = {"en": "and", "de": "und"}


class ListStore(Protocol):
    """Where lists live (``adapters/skills/list_store.py``)."""

    async def add(self, list_name: str, items: Sequence[str]) -> list[ListItem]:
        """Append ``items`` (the list is created when new)."""
        ...

    async def remove(self, list_name: str, item: str) -> ListItem | None:
        """Delete the entry that reads ``item`` (case-insensitive); None when absent."""
        ...

    async def complete(self, list_name: str, item: str) -> ListItem | None:
        """Check off the open entry that reads ``item``; None when absent."""
        ...

    async def items(self, list_name: str, *, include_done: bool = False) -> list[ListItem]:
        """A list's entries, oldest first (open ones only unless ``include_done``)."""
        ...

    async def lists(self) -> list[ListSummary]:
        """Every list with its counts (shopping and to-do always among them)."""
        ...


def split_items(text: str, language: str) -> list[str]:
    """``milk, eggs and bread`` -> three entries; one item stays one."""
    word = _AND.get(language, "and")
    parts = re.split(rf"\s*,\s*|\s+{word}\s+|\s*&\s*", text.strip(), flags=re.IGNORECASE)
    return [part.strip(" .") for part in parts if part.strip(" .")]


class ListSkill:
    """Changes and reads lists."""

    name = "lists"
    intents = frozenset(
        {
            "HassShoppingListAddItem",
            "HassShoppingListCompleteItem",
            "HassListAddItem",
            "HassListCompleteItem",
            "HassListRemoveItem",
            "AriaListRead",
        }
    )

    def __init__(self, store: ListStore, phrases: Phrasebook) -> None:
        """Keep lists in ``store``."""
        self._store = store
        self._phrases = phrases

    def accepts(self, match: IntentMatch) -> bool:
        """A match with an item (reading a list needs none)."""
        return match.intent == "AriaListRead" or bool(match.text_slot("item"))

    async def handle(self, match: IntentMatch, turn: SkillTurn) -> SkillReply:
        """Carry out the list command and say what changed."""
        lang, say = match.language, self._phrases.say
        list_name = self._list(match)
        spoken = self._spoken_name(list_name, lang)
        item = match.text_slot("item")
        if match.intent in ("HassShoppingListAddItem", "HassListAddItem"):
            added = await self._store.add(list_name, split_items(item, lang))
            items = join_spoken([entry.text for entry in added], self._phrases, lang)
            text = say("lists.added", lang, items=items, list=spoken)
        elif match.intent == "AriaListRead":
            entries = await self._store.items(list_name)
            if not entries:
                text = say("lists.empty", lang, list=spoken)
            else:
                items = join_spoken([entry.text for entry in entries], self._phrases, lang)
                text = say("lists.read", lang, items=items, list=spoken)
        elif match.intent == "HassListRemoveItem":
            found = await self._store.remove(list_name, item)
            key = "lists.removed" if found else "lists.not_on_list"
            text = say(key, lang, item=found.text if found else item, list=spoken)
        else:
            found = await self._store.complete(list_name, item)
            key = "lists.checked" if found else "lists.not_on_list"
            text = say(key, lang, item=found.text if found else item, list=spoken)
        return SkillReply(text=_capitalised(text), skill=self.name)

    @staticmethod
    def _list(match: IntentMatch) -> str:
        if match.intent.startswith("HassShoppingList"):
            return SHOPPING
        return canonical_list_name(match.text_slot("name", SHOPPING))

    def _spoken_name(self, list_name: str, language: str) -> str:
        if list_name == SHOPPING:
            return self._phrases.say("lists.shopping", language)
        if list_name == TODO:
            return self._phrases.say("lists.todo", language)
        return self._phrases.say("lists.named", language, name=list_name)


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]
