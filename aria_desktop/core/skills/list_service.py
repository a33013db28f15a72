"""``ListService``: the lists as every surface uses them (the ``ListAccess`` port).

Voice and chat (``ListSkill``), the model's ``lists`` tool, ``aria lists``, the API's
``/lists`` and ARIA's MCP server all change lists through this one object, so every change is
checked the same way (names and entries, the two lists that are never deleted) and told once
afterwards: ``changed`` publishes ``skill-data-changed`` (kind ``lists``) and lets the
recogniser know a new list's name, so "add screws to my hardware list" works right after
``aria lists add hardware screws``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from aria_desktop.core.skills.lists import ListStore
from aria_desktop.domain.errors import ListInvalidError, NotFoundError
from aria_desktop.domain.lists import (
    KEPT_LISTS,
    MAX_ITEM_CHARS,
    MAX_ITEMS_PER_ADD,
    ListItem,
    ListSummary,
    canonical_list_name,
    list_name_problem,
)

__all__ = ["ListService"]

_SHOW_HINT = "`aria lists show NAME --all` lists its entries."


class ListService:
    """``ListAccess`` over a ``ListStore``, telling ``changed`` after every change.

    Args:
        store: where the lists live.
        changed: awaited after each change (the composition root publishes the event and
            refreshes the recogniser's list names); None tells no one.
    """

    def __init__(
        self, store: ListStore, *, changed: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        self._store = store
        self._changed = changed

    async def lists(self) -> list[ListSummary]:
        """Every list with its counts; shopping and to-do first."""
        return await self._store.lists()

    async def items(self, list_name: str, *, include_done: bool = False) -> list[ListItem]:
        """A list's entries (NotFoundError for a list that does not exist)."""
        name = _name(list_name)
        if name not in KEPT_LISTS:
            await self._existing(name)
        return await self._store.items(name, include_done=include_done)

    async def add(self, list_name: str, items: Sequence[str]) -> list[ListItem]:
        """Append ``items``, each trimmed; a new list is created by its first item."""
        name = _name(list_name)
        entries = [" ".join(str(item).split()) for item in items]
        entries = [entry for entry in entries if entry]
        if not entries:
            raise ListInvalidError("Nothing to add: every item was empty.")
        if len(entries) > MAX_ITEMS_PER_ADD:
            raise ListInvalidError(f"At most {MAX_ITEMS_PER_ADD} items can be added at once.")
        long = [entry for entry in entries if len(entry) > MAX_ITEM_CHARS]
        if long:
            raise ListInvalidError(
                f"An item is at most {MAX_ITEM_CHARS} characters ({long[0][:40]!r}… is longer)."
            )
        added = await self._store.add(name, entries)
        await self._tell()
        return added

    async def remove(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem:
        """Delete one entry."""
        name = _name(list_name)
        found = await self._store.remove(name, _item(item), by_id=by_id)
        return await self._found(found, name, item, by_id)

    async def complete(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem:
        """Check off one open entry."""
        name = _name(list_name)
        found = await self._store.complete(name, _item(item), by_id=by_id)
        return await self._found(found, name, item, by_id, what="open ")

    async def reopen(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem:
        """Make a checked-off entry open again."""
        name = _name(list_name)
        found = await self._store.reopen(name, _item(item), by_id=by_id)
        return await self._found(found, name, item, by_id, what="checked-off ")

    async def clear_done(self, list_name: str) -> int:
        """Delete the checked-off entries of a list; how many."""
        name = _name(list_name)
        if name not in KEPT_LISTS:
            await self._existing(name)
        cleared = await self._store.clear_done(name)
        if cleared:
            await self._tell()
        return cleared

    async def delete_list(self, list_name: str) -> int:
        """Delete one of the user's own lists with its entries; how many entries it had."""
        name = _name(list_name)
        if name in KEPT_LISTS:
            raise ListInvalidError(
                f"The {name} list is always there; it can be emptied, not deleted.",
                hint="Remove its entries one by one, or clear the checked-off ones.",
            )
        removed = await self._store.delete_list(name)
        if removed is None:
            raise _no_list(name)
        await self._tell()
        return removed

    async def _existing(self, name: str) -> None:
        if not await self._store.has_list(name):
            raise _no_list(name)

    async def _found(
        self, found: ListItem | None, name: str, item: str, by_id: bool, *, what: str = ""
    ) -> ListItem:
        if found is None:
            said = f"entry {item}" if by_id else repr(" ".join(item.split()))
            raise NotFoundError(f"There is no {what}{said} on the {name} list.", hint=_SHOW_HINT)
        await self._tell()
        return found

    async def _tell(self) -> None:
        if self._changed is not None:
            await self._changed()


def _name(list_name: str) -> str:
    problem = list_name_problem(list_name)
    if problem:
        raise ListInvalidError(problem, hint="`aria lists` shows the lists there are.")
    return canonical_list_name(list_name)


def _item(item: str) -> str:
    text = " ".join(str(item).split())
    if not text:
        raise ListInvalidError("Which entry? The item was empty.")
    if len(text) > MAX_ITEM_CHARS:
        raise ListInvalidError(f"An item is at most {MAX_ITEM_CHARS} characters.")
    return text


def _no_list(name: str) -> NotFoundError:
    return NotFoundError(f"There is no list {name!r}.", hint="`aria lists` shows every list.")
