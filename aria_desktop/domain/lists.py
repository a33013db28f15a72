"""Lists (shopping, to-do and the user's own) as plain values, for every surface."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ARIA_STORE",
    "KEPT_LISTS",
    "LIST_ALIASES",
    "MAX_ITEMS_PER_ADD",
    "MAX_ITEM_CHARS",
    "MAX_LIST_NAME_CHARS",
    "SHOPPING",
    "TODO",
    "ListItem",
    "ListSummary",
    "canonical_list_name",
    "list_name_problem",
]

SHOPPING = "shopping"
TODO = "todo"
KEPT_LISTS = frozenset({SHOPPING, TODO})
"""The two lists every ARIA has: emptied, never deleted."""

ARIA_STORE = "aria"
"""Where a list lives when it is in ARIA's own database (else a Home Assistant to-do entity)."""

MAX_ITEM_CHARS = 200
MAX_ITEMS_PER_ADD = 50
MAX_LIST_NAME_CHARS = 60

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


def list_name_problem(name: str) -> str:
    """Why ``name`` cannot name a list ("" when it can): every surface checks it the same way."""
    cleaned = canonical_list_name(name)
    if not cleaned:
        return "A list needs a name."
    if len(cleaned) > MAX_LIST_NAME_CHARS:
        return f"A list's name is at most {MAX_LIST_NAME_CHARS} characters."
    if any(not (ch.isalnum() or ch in " -_'&") for ch in cleaned):
        return f"{name!r} is not a list name (letters, digits, spaces and - _ ' & only)."
    return ""


@dataclass(frozen=True, kw_only=True)
class ListItem:
    """One entry of a list.

    Attributes:
        id: stable id within the list's store (a number in ARIA's database, Home Assistant's
            uid for an item of its to-do entity).
        list: the list's stored name (``shopping``, ``todo`` or the user's own).
        text: the entry as the user said it.
        done: checked off.
        added_at, done_at: UNIX seconds (``done_at`` None while not done; both 0/None for an
            item Home Assistant keeps, which has no such times).
        pending: kept in ARIA's database because Home Assistant, where the list lives, could
            not be reached; moved there the next time it is.
    """

    id: str
    list: str
    text: str
    done: bool = False
    added_at: float = 0.0
    done_at: float | None = None
    pending: bool = False


@dataclass(frozen=True, kw_only=True)
class ListSummary:
    """A list and how many entries are still open.

    Attributes:
        name: the stored name.
        open_items, done_items: how many entries are open and checked off.
        kept_in: ``aria`` (ARIA's database) or the Home Assistant to-do entity holding it.
        problem: why the counts may be incomplete ("" when they are not): Home Assistant
            could not be reached, so only what ARIA holds for it is counted.
    """

    name: str
    open_items: int
    done_items: int
    kept_in: str = ARIA_STORE
    problem: str = ""
