"""Lists (shopping, to-do and the user's own) as plain values, for every surface."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LIST_ALIASES", "SHOPPING", "TODO", "ListItem", "ListSummary", "canonical_list_name"]

SHOPPING = "shopping"
TODO = "todo"

LIST_ALIASES = {
    "shopping": SHOPPING,
    "shopping list": SHOPPING,
    "groceries": SHOPPING,
    "grocery": SHOPPING,
    "einkaufsliste": SHOPPING,
    "einkauf": SHOPPING,
    "einkaufs": SHOPPING,
    "todo": TODO,
    "to-do": TODO,
    "to do": TODO,
    "todo list": TODO,
    "to-do list": TODO,
    "to do list": TODO,
    "aufgaben": TODO,
    "aufgabenliste": TODO,
    "to-do-liste": TODO,
}


def canonical_list_name(name: str) -> str:
    """The stored name of a list as people say it ("to-do list" -> ``todo``)."""
    cleaned = " ".join(name.lower().split()).strip(" .")
    if cleaned.endswith(" list") and cleaned not in LIST_ALIASES:
        cleaned = cleaned[: -len(" list")]
    return LIST_ALIASES.get(cleaned, cleaned)


@dataclass(frozen=True, kw_only=True)
class ListItem:
    """One entry of a list.

    Attributes:
        id: stable id within the database.
        list: the list's stored name (``shopping``, ``todo`` or the user's own).
        text: the entry as the user said it.
        done: checked off.
        added_at, done_at: UNIX seconds (``done_at`` None while not done).
    """

    id: int
    list: str
    text: str
    done: bool = False
    added_at: float = 0.0
    done_at: float | None = None


@dataclass(frozen=True, kw_only=True)
class ListSummary:
    """A list and how many entries are still open."""

    name: str
    open_items: int
    done_items: int
