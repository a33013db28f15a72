"""The shopping list, the to-do list and the user's own lists: add, remove, check off, read.

Several items in one sentence ("add milk, eggs and bread to my shopping list") become one entry
each. The store is a port: ARIA's database, or Home Assistant's to-do entity when the user
chose it (``assist.shopping_list``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from aria_desktop.core.skills.ports import ListAccess, Phrasebook
from aria_desktop.core.skills.router import SkillTurn
from aria_desktop.core.skills.wording import join_spoken
from aria_desktop.domain.errors import HomeAssistantError, ListInvalidError, NotFoundError
from aria_desktop.domain.intents import IntentMatch, SkillReply
from aria_desktop.domain.lists import (
    SHOPPING,
    TODO,
    ListItem,
    ListSummary,
    canonical_list_name,
    list_name_problem,
)

_NOT_AN_ITEM = frozenset(
    {"what", "which", "something", "anything", "was", "welche", "welches", "etwas", "irgendwas"}
)
"""First words of an "item" that is a question or a request for advice ("Was kommt auf die
Einkaufsliste?", "add something healthy to my shopping list"): those go to the model."""

__all__ = ["ListSkill", "ListStore", "split_items"]

_AND = {"en": "and", "de": "und"}
_CAPITALISED_NOUNS = frozenset({"de"})


class ListStore(Protocol):
    """Where lists live: ARIA's database, or Home Assistant's to-do entity for shopping.

    ARIA's database is ``adapters/skills/list_store.py``; the shopping list routed to Home
    Assistant is ``core/skills/ha_lists.py``. ``item`` is an entry's text (case-insensitive),
    or its id with ``by_id``; a method that finds no such entry answers None.
    ``ListService`` is what the surfaces use.
    """

    async def add(self, list_name: str, items: Sequence[str]) -> list[ListItem]:
        """Append ``items`` (the list is created when new)."""
        ...

    async def remove(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem | None:
        """Delete one entry (an open one before a checked-off one of the same text)."""
        ...

    async def complete(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem | None:
        """Check off an open entry."""
        ...

    async def reopen(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem | None:
        """Make a checked-off entry open again."""
        ...

    async def items(self, list_name: str, *, include_done: bool = False) -> list[ListItem]:
        """A list's entries, open ones first, oldest first (open only unless ``include_done``)."""
        ...

    async def lists(self) -> list[ListSummary]:
        """Every list with its counts (shopping and to-do always among them)."""
        ...

    async def clear_done(self, list_name: str) -> int:
        """Delete the checked-off entries; how many."""
        ...

    async def has_list(self, list_name: str) -> bool:
        """Whether a list of that name exists (asked of ARIA's database only: it is quick)."""
        ...

    async def delete_list(self, list_name: str) -> int | None:
        """Delete a list and its entries (how many); None when there is no such list."""
        ...


def split_items(text: str, language: str) -> list[str]:
    """``milk, eggs and bread`` -> three entries; one item stays one."""
    word = _AND.get(language, "and")
    parts = re.split(rf"\s*,\s*|\s+{word}\s+|\s*&\s*", text.strip(), flags=re.IGNORECASE)
    return [part.strip(" .") for part in parts if part.strip(" .")]


class ListSkill:
    """Changes and reads lists by voice and chat.

    Through the same ``ListAccess`` as every surface, so a change said aloud is told on the
    bus like one made in the CLI.
    """

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

    def __init__(self, lists: ListAccess, phrases: Phrasebook) -> None:
        """Keep lists through ``lists``."""
        self._lists = lists
        self._phrases = phrases

    def accepts(self, match: IntentMatch) -> bool:
        """A match with an item (reading a list needs none) and a name that can be a list's."""
        if list_name_problem(self._list(match)):
            return False
        if match.intent == "AriaListRead":
            return True
        item = match.text_slot("item").strip(" ,.")
        return bool(item) and item.split()[0].lower() not in _NOT_AN_ITEM

    async def handle(self, match: IntentMatch, turn: SkillTurn) -> SkillReply:
        """Carry out the list command and say what changed (or, plainly, why nothing did)."""
        lang = match.language
        list_name = self._list(match)
        spoken = self._spoken_name(list_name, lang)
        try:
            text = await self._carry_out(match, list_name, spoken)
        except HomeAssistantError:
            text = self._phrases.say("lists.unreachable", lang, list=spoken)
        except ListInvalidError:
            text = self._phrases.say("lists.not_changed", lang, list=spoken)
        return SkillReply(text=_capitalised(text), skill=self.name)

    async def _carry_out(self, match: IntentMatch, list_name: str, spoken: str) -> str:
        lang, say = match.language, self._phrases.say
        item = match.text_slot("item").strip(" ,.")
        if match.intent in ("HassShoppingListAddItem", "HassListAddItem"):
            added = await self._lists.add(list_name, split_items(item, lang))
            items = join_spoken([entry.text for entry in added], self._phrases, lang)
            key = "lists.added" if len(added) == 1 else "lists.added_many"
            if any(entry.pending for entry in added):
                key = "lists.added_pending"
            return say(key, lang, items=items, list=spoken)
        if match.intent == "AriaListRead":
            entries = await self._read(list_name)
            if not entries:
                return say("lists.empty", lang, list=spoken)
            items = join_spoken([entry.text for entry in entries], self._phrases, lang)
            return say("lists.read", lang, items=items, list=spoken)
        change = (
            self._lists.remove if match.intent == "HassListRemoveItem" else self._lists.complete
        )
        key = "lists.removed" if match.intent == "HassListRemoveItem" else "lists.checked"
        try:
            found = await change(list_name, item)
        except NotFoundError:
            return say("lists.not_on_list", lang, item=item, list=spoken)
        return say(key, lang, item=found.text, list=spoken)

    async def _read(self, list_name: str) -> list[ListItem]:
        try:
            return await self._lists.items(list_name)
        except NotFoundError:
            return []

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
        # German writes nouns capitalised ("deine Liste Baumarkt").
        shown = list_name.capitalize() if language in _CAPITALISED_NOUNS else list_name
        return self._phrases.say("lists.named", language, name=shown)


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]
