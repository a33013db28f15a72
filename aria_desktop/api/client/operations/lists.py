"""Operations of the lists: summaries, one list, add, remove, check off, reopen, clear, delete."""

from __future__ import annotations

from urllib.parse import quote

import httpx

from aria_desktop.api.client.operations.base import Operation, at, many, member, one
from aria_desktop.api.client.wire import list_from_json
from aria_desktop.domain.lists import ListItem, ListSummary

__all__ = [
    "ADD_ITEMS",
    "CLEAR_DONE",
    "COMPLETE_ITEM",
    "DELETE_LIST",
    "LIST_ITEMS",
    "LIST_LISTS",
    "REMOVE_ITEM",
    "REOPEN_ITEM",
]


def _list(name: str) -> str:
    """The path of a list (its name may hold spaces and other characters)."""
    return f"/lists/{quote(name, safe='')}"


def _item(arg: tuple[str, str]) -> str:
    return f"{_list(arg[0])}/items/{quote(arg[1], safe='')}"


def _entries(response: httpx.Response, _arg: object) -> list[ListItem]:
    return list_from_json(ListItem, response.json()["items"])


LIST_LISTS = Operation[None, list[ListSummary]](
    method="GET", path=at("/lists"), decode=many(ListSummary)
)
LIST_ITEMS = Operation[tuple[str, bool], list[ListItem]](
    method="GET",
    path=lambda arg: _list(arg[0]),
    decode=_entries,
    encode=lambda arg: {"params": {"include_done": "true" if arg[1] else "false"}},
)
ADD_ITEMS = Operation[tuple[str, tuple[str, ...]], list[ListItem]](
    method="POST",
    path=lambda arg: f"{_list(arg[0])}/items",
    decode=many(ListItem),
    encode=lambda arg: {"json": {"items": list(arg[1])}},
)
REMOVE_ITEM = Operation[tuple[str, str], ListItem](
    method="DELETE", path=_item, decode=one(ListItem)
)
COMPLETE_ITEM = Operation[tuple[str, str], ListItem](
    method="POST", path=lambda arg: f"{_item(arg)}/done", decode=one(ListItem)
)
REOPEN_ITEM = Operation[tuple[str, str], ListItem](
    method="DELETE", path=lambda arg: f"{_item(arg)}/done", decode=one(ListItem)
)
CLEAR_DONE = Operation[str, int](
    method="POST", path=lambda name: f"{_list(name)}/clear-done", decode=member("cleared", int)
)
DELETE_LIST = Operation[str, int](method="DELETE", path=_list, decode=member("removed_items", int))
