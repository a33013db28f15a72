"""The shopping list in Home Assistant's to-do entity (``assist.shopping_list = "todo.…"``).

``HomeAssistantTodoList`` speaks HA's documented to-do services over the Home Assistant port:
``todo.add_item``, ``todo.update_item`` (status ``completed`` / ``needs_action``),
``todo.remove_item``, ``todo.remove_completed_items`` and ``todo.get_items`` (a service that
answers only with ``return_response``). Entries are named by HA's ``uid``.

``RoutedListStore`` keeps the shopping list there and every other list in ARIA's database.
When Home Assistant cannot be reached, nothing the user said is lost: new items are kept in
ARIA's database (``pending``) and moved to Home Assistant the next time it answers; reading or
changing the list says plainly that Home Assistant is out of reach.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from aria_desktop.core.homeassistant.ports import HomeAssistantPort
from aria_desktop.core.skills.lists import ListStore
from aria_desktop.domain.errors import HomeAssistantError
from aria_desktop.domain.lists import SHOPPING, ListItem, ListSummary

__all__ = ["HomeAssistantTodoList", "RoutedListStore"]

_DONE = "completed"
_OPEN = "needs_action"


class HomeAssistantTodoList:
    """One list kept in a Home Assistant to-do entity (``todo.shopping_list``).

    Args:
        port: the Home Assistant instance.
        entity_id: the to-do entity.
        list_name: the ARIA list it stands for (its items carry this name).
    """

    def __init__(self, port: HomeAssistantPort, entity_id: str, *, list_name: str = SHOPPING):
        self.port = port
        self.entity_id = entity_id
        self.list_name = list_name

    async def items(self, *, include_done: bool = False) -> list[ListItem]:
        """The entity's entries, open ones first, in Home Assistant's order."""
        statuses = [_OPEN, _DONE] if include_done else [_OPEN]
        answer = await self.port.call_service_response(
            "todo", "get_items", {"entity_id": self.entity_id, "status": statuses}
        )
        entries = [self._item(raw) for raw in _entity_items(answer, self.entity_id)]
        return sorted(entries, key=lambda entry: entry.done)

    async def add_one(self, text: str) -> None:
        """Add one entry."""
        await self.port.call_service(
            "todo", "add_item", {"entity_id": self.entity_id, "item": text}
        )

    async def identify(self, texts: Sequence[str]) -> list[ListItem]:
        """The entries just added as ``texts``, with the uids Home Assistant gave them."""
        held = await self.items()
        added: list[ListItem] = []
        for text in texts:
            same = [e for e in held if e.text.lower() == text.lower() and e not in added]
            added.append(same[-1] if same else self.sent(text))
        return added

    def sent(self, text: str) -> ListItem:
        """An entry Home Assistant took whose uid it has not shown."""
        return ListItem(id="", list=self.list_name, text=text)

    async def remove(self, item: str, *, by_id: bool = False) -> ListItem | None:
        """Delete the entry reading ``item`` (or with uid ``item``)."""
        found = await self._find(item, by_id=by_id, done=None)
        if found is not None:
            await self.port.call_service(
                "todo", "remove_item", {"entity_id": self.entity_id, "item": [found.id]}
            )
        return found

    async def set_done(self, item: str, *, by_id: bool, done: bool) -> ListItem | None:
        """Check off an open entry (``done``) or open a checked-off one again."""
        found = await self._find(item, by_id=by_id, done=not done)
        if found is None:
            return None
        await self.port.call_service(
            "todo",
            "update_item",
            {"entity_id": self.entity_id, "item": found.id, "status": _DONE if done else _OPEN},
        )
        return dataclasses.replace(found, done=done)

    async def clear_done(self) -> int:
        """Delete the checked-off entries; how many there were."""
        done = [entry for entry in await self.items(include_done=True) if entry.done]
        if done:
            await self.port.call_service(
                "todo", "remove_completed_items", {"entity_id": self.entity_id}
            )
        return len(done)

    async def _find(self, item: str, *, by_id: bool, done: bool | None) -> ListItem | None:
        wanted = item.strip().lower()
        for entry in await self.items(include_done=True):
            if done is not None and entry.done != done:
                continue
            if (entry.id == item) if by_id else (entry.text.lower() == wanted):
                return entry
        return None

    def _item(self, raw: Mapping[str, Any]) -> ListItem:
        return ListItem(
            id=str(raw.get("uid", "")),
            list=self.list_name,
            text=str(raw.get("summary", "")),
            done=raw.get("status") == _DONE,
        )


def _entity_items(answer: Any, entity_id: str) -> list[Mapping[str, Any]]:
    """``{"todo.x": {"items": [...]}}`` -> the items (a malformed answer is an error)."""
    entity = answer.get(entity_id) if isinstance(answer, Mapping) else None
    items = entity.get("items") if isinstance(entity, Mapping) else None
    if not isinstance(items, list):
        raise HomeAssistantError(
            f"Home Assistant sent no items for {entity_id}.",
            hint=f"Check that {entity_id} is a to-do list in Home Assistant "
            "(Settings > Devices & services > Entities).",
        )
    return [raw for raw in items if isinstance(raw, Mapping)]


class RoutedListStore:
    """The shopping list in Home Assistant, every other list in ARIA's database.

    Args:
        local: ARIA's database (also where shopping items wait while HA is unreachable).
        remote: the to-do entity the shopping list lives in.
    """

    def __init__(self, local: ListStore, remote: HomeAssistantTodoList) -> None:
        self._local = local
        self._remote = remote
        self._flushing = asyncio.Lock()

    async def add(self, list_name: str, items: Sequence[str]) -> list[ListItem]:
        """Add to Home Assistant's list; what it did not take is kept here (``pending``)."""
        if list_name != self._remote.list_name:
            return await self._local.add(list_name, items)
        sent = 0
        try:
            await self._flush()
            for text in items:
                await self._remote.add_one(text)
                sent += 1
            return await self._remote.identify(items)
        except HomeAssistantError:
            taken = [self._remote.sent(text) for text in items[:sent]]
            if sent == len(items):
                return taken  # all taken; only reading them back failed
            kept = await self._local.add(list_name, items[sent:])
            return taken + [dataclasses.replace(entry, pending=True) for entry in kept]

    async def items(self, list_name: str, *, include_done: bool = False) -> list[ListItem]:
        """The entries (Home Assistant's for the shopping list)."""
        if list_name != self._remote.list_name:
            return await self._local.items(list_name, include_done=include_done)
        await self._flush()
        return await self._remote.items(include_done=include_done)

    async def remove(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem | None:
        """Delete an entry (one still waiting here is deleted here when HA is out of reach)."""
        if list_name != self._remote.list_name:
            return await self._local.remove(list_name, item, by_id=by_id)
        try:
            await self._flush()
        except HomeAssistantError:
            found = await self._local.remove(list_name, item, by_id=by_id)
            if found is None:
                raise
            return found
        return await self._remote.remove(item, by_id=by_id)

    async def complete(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem | None:
        """Check off an entry."""
        if list_name != self._remote.list_name:
            return await self._local.complete(list_name, item, by_id=by_id)
        await self._flush()
        return await self._remote.set_done(item, by_id=by_id, done=True)

    async def reopen(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem | None:
        """Open a checked-off entry again."""
        if list_name != self._remote.list_name:
            return await self._local.reopen(list_name, item, by_id=by_id)
        await self._flush()
        return await self._remote.set_done(item, by_id=by_id, done=False)

    async def lists(self) -> list[ListSummary]:
        """Every list; the shopping list counted in Home Assistant (plus what waits here)."""
        summaries = await self._local.lists()
        name = self._remote.list_name
        waiting = next((s.open_items for s in summaries if s.name == name), 0)
        try:
            await self._flush()
            entries = await self._remote.items(include_done=True)
            done = sum(entry.done for entry in entries)
            shopping = ListSummary(
                name=name,
                open_items=len(entries) - done,
                done_items=done,
                kept_in=self._remote.entity_id,
            )
        except HomeAssistantError as exc:
            shopping = ListSummary(
                name=name,
                open_items=waiting,
                done_items=0,
                kept_in=self._remote.entity_id,
                problem=exc.message,
            )
        return [shopping if s.name == name else s for s in summaries]

    async def clear_done(self, list_name: str) -> int:
        """Delete checked-off entries (Home Assistant's for the shopping list)."""
        if list_name != self._remote.list_name:
            return await self._local.clear_done(list_name)
        return await self._remote.clear_done()

    async def has_list(self, list_name: str) -> bool:
        """Whether ``list_name`` exists (the user's lists are all in ARIA's database)."""
        return list_name == self._remote.list_name or await self._local.has_list(list_name)

    async def delete_list(self, list_name: str) -> int | None:
        """Delete one of the user's own lists (they all live in ARIA's database)."""
        return await self._local.delete_list(list_name)

    async def _flush(self) -> None:
        """Move the items kept here while Home Assistant was out of reach into its list."""
        async with self._flushing:
            name = self._remote.list_name
            for entry in await self._local.items(name):
                await self._remote.add_one(entry.text)
                await self._local.remove(name, entry.id, by_id=True)
