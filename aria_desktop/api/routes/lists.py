"""Lists: the shopping list, the to-do list and the user's own; entries added, removed, checked.

Routes drive the owner's ``ListAccess`` (``core.ports``), reached as the assistant's ``lists``
attribute. A list's name is as people say it ("to-do list" is ``todo``); an entry is named by
the ``id`` the list routes give it. The shopping list may live in Home Assistant
(``assist.shopping_list``): when it cannot be reached a route answers 502, and items added
meanwhile are kept in ARIA (``pending``) until it answers.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Query

from aria_desktop.api.routes._router import assistant_skill, capability_router
from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import PathId
from aria_desktop.api.server.schemas.lists import (
    ClearedOut,
    ItemsIn,
    ListDeletedOut,
    ListItemOut,
    ListOut,
    ListSummaryOut,
)
from aria_desktop.core.ports import ListAccess
from aria_desktop.domain.lists import MAX_LIST_NAME_CHARS, canonical_list_name

_LISTS: docs.Responses = {
    502: docs.error("The list lives in Home Assistant, which could not be reached or refused"),
    503: docs.error("Lists are not set up, or storage is unavailable"),
}
router = capability_router("lists", _LISTS)
"""Every list route can answer the common errors, 502 (Home Assistant) and 503."""

_READ = docs.responses(docs.NOT_FOUND, docs.INVALID)
_CHANGE = docs.responses(docs.BODY, docs.NOT_FOUND, docs.INVALID)
"""What a route that changes a list can answer besides those."""

ListName = Annotated[
    str,
    Path(
        min_length=1,
        max_length=MAX_LIST_NAME_CHARS,
        description='The list: "shopping", "todo", or the user\'s own list\'s name',
    ),
]


ListsDep = Annotated[ListAccess, Depends(assistant_skill("lists", "Lists"))]


@router.get("/lists", summary="Every list with its counts; shopping and to-do first")
async def list_lists(lists: ListsDep) -> list[ListSummaryOut]:
    return [ListSummaryOut.of(summary) for summary in await lists.lists()]


@router.get("/lists/{name}", summary="One list's entries, open ones first", responses=_READ)
async def get_list(
    name: ListName,
    lists: ListsDep,
    include_done: Annotated[bool, Query(description="Also the checked-off entries")] = False,
) -> ListOut:
    entries = await lists.items(name, include_done=include_done)
    return ListOut(name=canonical_list_name(name), items=[ListItemOut.of(e) for e in entries])


@router.delete(
    "/lists/{name}",
    summary="Delete one of the user's own lists and its entries (never shopping or to-do)",
    responses=_CHANGE,
)
async def delete_list(name: ListName, lists: ListsDep) -> ListDeletedOut:
    removed = await lists.delete_list(name)
    return ListDeletedOut(name=canonical_list_name(name), removed_items=removed)


@router.post(
    "/lists/{name}/items",
    status_code=201,
    summary="Add entries (a new list is created by its first entry)",
    responses=docs.responses(docs.BODY, docs.INVALID),
)
async def add_items(name: ListName, body: ItemsIn, lists: ListsDep) -> list[ListItemOut]:
    return [ListItemOut.of(item) for item in await lists.add(name, body.items)]


@router.delete("/lists/{name}/items/{item_id}", summary="Delete one entry", responses=_CHANGE)
async def remove_item(name: ListName, item_id: PathId, lists: ListsDep) -> ListItemOut:
    return ListItemOut.of(await lists.remove(name, item_id, by_id=True))


@router.post(
    "/lists/{name}/items/{item_id}/done", summary="Check off an open entry", responses=_CHANGE
)
async def complete_item(name: ListName, item_id: PathId, lists: ListsDep) -> ListItemOut:
    return ListItemOut.of(await lists.complete(name, item_id, by_id=True))


@router.delete(
    "/lists/{name}/items/{item_id}/done",
    summary="Make a checked-off entry open again",
    responses=_CHANGE,
)
async def reopen_item(name: ListName, item_id: PathId, lists: ListsDep) -> ListItemOut:
    return ListItemOut.of(await lists.reopen(name, item_id, by_id=True))


@router.post(
    "/lists/{name}/clear-done",
    summary="Delete the checked-off entries of a list",
    responses=_CHANGE,
)
async def clear_done(name: ListName, lists: ListsDep) -> ClearedOut:
    return ClearedOut(cleared=await lists.clear_done(name))
