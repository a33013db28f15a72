"""The lists over HTTP: ``core.ports.ListAccess`` through the API's operations.

What ``aria lists``, ARIA's MCP server in ``aria mcp serve`` and an attached desktop app use
while another process owns the data (``ApiClient.lists``). The API names entries by id; an
entry named by its text is looked up first, the way the owner's ``ListService`` matches it
(case-insensitive; an open entry before a checked-off one).
"""

from __future__ import annotations

from collections.abc import Sequence

from aria_desktop.api.client.operations import lists as ops
from aria_desktop.api.client.operations.base import Caller
from aria_desktop.domain.errors import NotFoundError
from aria_desktop.domain.lists import ListItem, ListSummary, canonical_list_name

__all__ = ["ListsClient"]


class ListsClient:
    """``ListAccess`` over the owner's API."""

    def __init__(self, client: Caller) -> None:
        """Carry every call out through ``client`` (an ``ApiClient`` or its transport)."""
        self._client = client

    async def lists(self) -> list[ListSummary]:
        """Every list with its counts."""
        return await self._client.call(ops.LIST_LISTS, None)

    async def items(self, list_name: str, *, include_done: bool = False) -> list[ListItem]:
        """A list's entries."""
        return await self._client.call(ops.LIST_ITEMS, (list_name, include_done))

    async def add(self, list_name: str, items: Sequence[str]) -> list[ListItem]:
        """Append ``items``."""
        return await self._client.call(ops.ADD_ITEMS, (list_name, tuple(items)))

    async def remove(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem:
        """Delete one entry."""
        item_id = item if by_id else await self._id(list_name, item, done=None)
        return await self._client.call(ops.REMOVE_ITEM, (list_name, item_id))

    async def complete(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem:
        """Check off one open entry."""
        item_id = item if by_id else await self._id(list_name, item, done=False)
        return await self._client.call(ops.COMPLETE_ITEM, (list_name, item_id))

    async def reopen(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem:
        """Make a checked-off entry open again."""
        item_id = item if by_id else await self._id(list_name, item, done=True)
        return await self._client.call(ops.REOPEN_ITEM, (list_name, item_id))

    async def clear_done(self, list_name: str) -> int:
        """Delete the checked-off entries; how many."""
        return await self._client.call(ops.CLEAR_DONE, list_name)

    async def delete_list(self, list_name: str) -> int:
        """Delete one of the user's own lists; how many entries it had."""
        return await self._client.call(ops.DELETE_LIST, list_name)

    async def _id(self, list_name: str, text: str, *, done: bool | None) -> str:
        wanted = " ".join(text.split()).lower()
        for entry in await self.items(list_name, include_done=True):
            if entry.text.lower() == wanted and (done is None or entry.done == done):
                return entry.id
        what = {None: "", False: "open ", True: "checked-off "}[done]
        raise NotFoundError(
            f"There is no {what}{text!r} on the {canonical_list_name(list_name)} list.",
            hint="`aria lists show NAME --all` lists its entries.",
        )
