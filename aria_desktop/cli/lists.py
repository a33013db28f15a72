"""``aria lists``: the shopping list, the to-do list and your own lists, from the terminal.

Through the owner's API when a daemon or the tray app runs (so the change is told to every
surface and the voice recogniser learns a new list's name at once); otherwise the command opens
the database itself. ``aria lists`` alone shows every list with its counts.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aria_desktop.cli._common import (
    Subparsers,
    owner_or_local,
    show_result,
)
from aria_desktop.domain.lists import ARIA_STORE, ListItem, canonical_list_name
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.core.ports import ListAccess

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the ``lists`` subcommand."""
    parser = sub.add_parser(
        "lists", help="your shopping, to-do and own lists: show, add, done, remove, ..."
    )
    parser.set_defaults(handler=_cmd_lists)
    parser.add_argument("--json", action="store_true", help="every list with its counts, as JSON")
    acts = parser.add_subparsers(dest="action", metavar="ACTION")
    show = acts.add_parser("show", help="a list's entries (open ones; --all: checked off too)")
    show.add_argument("name", metavar="LIST")
    show.add_argument("--all", action="store_true", help="also the checked-off entries")
    show.add_argument("--json", action="store_true")
    add = acts.add_parser("add", help="add entries, one per argument (quote an entry of words)")
    add.add_argument("name", metavar="LIST")
    add.add_argument("items", metavar="ITEM", nargs="+")
    add.add_argument("--json", action="store_true")
    for action, text in (
        ("remove", "delete an entry"),
        ("done", "check off an entry"),
        ("undone", "make a checked-off entry open again"),
    ):
        one = acts.add_parser(action, help=text)
        one.add_argument("name", metavar="LIST")
        one.add_argument("item", metavar="ITEM", nargs="+", help="the entry's words")
        one.add_argument("--json", action="store_true")
    clear = acts.add_parser("clear", help="delete a list's checked-off entries")
    clear.add_argument("name", metavar="LIST")
    clear.add_argument("--json", action="store_true")
    delete = acts.add_parser("delete", help="delete one of your own lists and its entries")
    delete.add_argument("name", metavar="LIST")
    delete.add_argument("--json", action="store_true")


def _open_lists(settings: Settings) -> contextlib.AbstractAsyncContextManager[ListAccess]:
    """The owner's lists over its API, or the database opened here (closed on exit)."""
    from aria_desktop.compose.lists import open_list_access

    return owner_or_local(settings, lambda client: client.lists, lambda: open_list_access(settings))


_Shown = tuple[Any, list[str]]
"""What an action shows: its JSON form, and its lines for people ([] says "nothing")."""


def _entry_line(item: ListItem) -> str:
    mark = "x" if item.done else " "
    waiting = "  (waiting for Home Assistant)" if item.pending else ""
    return f"  [{mark}] {item.text}{waiting}"


def _named(items: list[ListItem]) -> str:
    return ", ".join(item.text for item in items)


async def _overview(_args: argparse.Namespace, lists: ListAccess) -> _Shown:
    summaries = await lists.lists()
    width = max((len(s.name) for s in summaries), default=8)
    lines = []
    for s in summaries:
        where = "" if s.kept_in == ARIA_STORE else f"  (in Home Assistant: {s.kept_in})"
        lines.append(f"{s.name:<{width}}  {s.open_items:>3} open  {s.done_items:>3} done{where}")
        if s.problem:
            lines.append(f"  ! {s.problem}")
    return [dataclasses.asdict(s) for s in summaries], lines


async def _show(args: argparse.Namespace, lists: ListAccess) -> _Shown:
    items = await lists.items(args.name, include_done=args.all)
    return [dataclasses.asdict(i) for i in items], [_entry_line(i) for i in items]


async def _add(args: argparse.Namespace, lists: ListAccess) -> _Shown:
    added = await lists.add(args.name, args.items)
    lines = [f"Added {_named(added)} to the {args.name} list."]
    waiting = [item for item in added if item.pending]
    if waiting:
        lines.append(
            f"  ! Home Assistant could not be reached: {_named(waiting)} wait in ARIA and move "
            "there when it answers."
        )
    return [dataclasses.asdict(i) for i in added], lines


def _one(said: str, change: str) -> Callable[[argparse.Namespace, ListAccess], Awaitable[_Shown]]:
    """An action on one entry; ``said`` is its message ({item}, {list})."""

    async def act(args: argparse.Namespace, lists: ListAccess) -> _Shown:
        item = await getattr(lists, change)(args.name, " ".join(args.item))
        return dataclasses.asdict(item), [said.format(item=item.text, list=args.name)]

    return act


async def _clear(args: argparse.Namespace, lists: ListAccess) -> _Shown:
    cleared = await lists.clear_done(args.name)
    return {"cleared": cleared}, [f"Deleted {cleared} checked-off entries of the {args.name} list."]


async def _delete(args: argparse.Namespace, lists: ListAccess) -> _Shown:
    removed = await lists.delete_list(args.name)
    return {"name": args.name, "removed_items": removed}, [
        f"Deleted the {args.name} list and its {removed} entries."
    ]


_ACTIONS: dict[str | None, Callable[[argparse.Namespace, ListAccess], Awaitable[_Shown]]] = {
    None: _overview,
    "show": _show,
    "add": _add,
    "remove": _one("Removed {item} from the {list} list.", "remove"),
    "done": _one("Checked off {item} on the {list} list.", "complete"),
    "undone": _one("{item} is open again on the {list} list.", "reopen"),
    "clear": _clear,
    "delete": _delete,
}


async def _cmd_lists(args: argparse.Namespace, settings: Settings) -> int:
    if getattr(args, "name", None):
        args.name = canonical_list_name(args.name)  # as the messages name it
    async with _open_lists(settings) as lists:
        data, lines = await _ACTIONS[args.action](args, lists)
    empty = f"The {args.name} list is empty." if args.action == "show" else ""
    return show_result(data, lines, as_json=args.json, nothing=empty)
