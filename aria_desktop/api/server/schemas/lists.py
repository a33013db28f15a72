"""Bodies of the lists: summaries, entries, items to add (``domain.lists``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from aria_desktop.api.server.schemas.common import FromDomain, StrictTypes
from aria_desktop.domain.lists import MAX_ITEM_CHARS, MAX_ITEMS_PER_ADD

__all__ = ["ClearedOut", "ItemsIn", "ListDeletedOut", "ListItemOut", "ListOut", "ListSummaryOut"]


class ListSummaryOut(FromDomain):
    """A list and its counts; ``kept_in`` is ``aria`` or the Home Assistant to-do entity.

    ``problem`` says why the counts may be short (Home Assistant out of reach).
    """

    name: str
    open_items: int
    done_items: int
    kept_in: str
    problem: str = ""


class ListItemOut(FromDomain):
    """One entry; ``id`` names it in the item routes (Home Assistant's uid for its entries).

    ``pending``: kept in ARIA until Home Assistant, where the list lives, can be reached.
    Times are UNIX seconds (0 / null for Home Assistant's entries, which have none).
    """

    id: str
    list: str
    text: str
    done: bool
    added_at: float
    done_at: float | None = None
    pending: bool = False


class ListOut(StrictTypes):
    """A list's entries, open ones first, oldest first."""

    name: str
    items: list[ListItemOut]


class ItemsIn(StrictTypes):
    """Entries to append, one per item (a new list is created by its first item)."""

    items: list[Annotated[str, Field(min_length=1, max_length=MAX_ITEM_CHARS, pattern=r"\S")]] = (
        Field(min_length=1, max_length=MAX_ITEMS_PER_ADD)
    )


class ClearedOut(StrictTypes):
    """How many checked-off entries were deleted."""

    cleared: int


class ListDeletedOut(StrictTypes):
    """The deleted list and how many entries it had."""

    name: str
    removed_items: int
