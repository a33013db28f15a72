"""The model's ``lists`` tool: the same lists, for requests the sentence templates do not cover.

"When you're at the store, add what we need for pancakes" goes to the model; it reads and
changes the lists through this tool, which calls the ``ListAccess`` every surface uses, so the
registry's policy and the audit log see each call and the change is told on the bus. Changing
a list is reversible (the default policy lets it run without asking).
"""

from __future__ import annotations

from typing import Any

from aria_desktop.core.skills.ports import ListAccess
from aria_desktop.core.skills.tool_parameters import action_parameters
from aria_desktop.core.tools import Tool
from aria_desktop.domain.errors import ToolArgumentsError
from aria_desktop.domain.lists import MAX_ITEM_CHARS, MAX_ITEMS_PER_ADD, ListItem

__all__ = ["LISTS_TOOL", "lists_tool"]

LISTS_TOOL = "lists"

_ACTIONS = ("overview", "read", "add", "remove", "check_off", "uncheck")

_PARAMETERS = action_parameters(
    _ACTIONS,
    describe=(
        "overview: all lists; read: one list; add: items; remove, check_off, uncheck: one item."
    ),
    list={
        "type": "string",
        "description": '"shopping", "todo" or the user\'s own list.',
        "minLength": 1,
        "maxLength": 60,
    },
    items={
        "type": "array",
        "description": "For add: one entry per item.",
        "items": {"type": "string", "minLength": 1, "maxLength": MAX_ITEM_CHARS},
        "minItems": 1,
        "maxItems": MAX_ITEMS_PER_ADD,
    },
    item={
        "type": "string",
        "description": "The entry's text as on the list.",
        "minLength": 1,
        "maxLength": MAX_ITEM_CHARS,
    },
    include_done={
        "type": "boolean",
        "description": "For read: include checked-off entries.",
    },
)


def _entry(item: ListItem) -> dict[str, Any]:
    shown: dict[str, Any] = {"id": item.id, "text": item.text, "done": item.done}
    if item.pending:
        shown["pending"] = "kept in ARIA until Home Assistant can be reached"
    return shown


def _summarize(arguments: dict[str, Any]) -> str:
    action = str(arguments.get("action", ""))
    name = str(arguments.get("list", "shopping"))
    if action == "add":
        return f"add {', '.join(map(str, arguments.get('items', [])))} to the {name} list"
    if action in ("remove", "check_off", "uncheck"):
        return f"{action.replace('_', ' ')} {arguments.get('item', '')} on the {name} list"
    return "show the lists" if action == "overview" else f"read the {name} list"


def lists_tool(lists: ListAccess) -> Tool:
    """The ``lists`` tool over ``lists``."""

    async def run(arguments: dict[str, Any]) -> dict[str, Any]:
        action = str(arguments["action"])
        name = str(arguments.get("list", "shopping"))
        if action == "overview":
            return {
                "lists": [
                    {"name": s.name, "open": s.open_items, "done": s.done_items}
                    for s in await lists.lists()
                ]
            }
        if action == "read":
            entries = await lists.items(name, include_done=bool(arguments.get("include_done")))
            return {"list": name, "items": [_entry(entry) for entry in entries]}
        if action == "add":
            items = [str(item) for item in arguments.get("items", [])]
            if not items:
                raise ToolArgumentsError("add needs items.", hint='Give "items": ["milk"].')
            return {"list": name, "added": [_entry(e) for e in await lists.add(name, items)]}
        item = str(arguments.get("item", ""))
        if not item:
            raise ToolArgumentsError(f"{action} needs the item.", hint='Give "item": "milk".')
        change = {"remove": lists.remove, "check_off": lists.complete, "uncheck": lists.reopen}
        done = await change[action](name, item)
        return {"list": name, action: _entry(done)}

    return Tool(
        name=LISTS_TOOL,
        description=(
            "The user's shopping list, to-do list and own lists: read, add items, remove, "
            "check off."
        ),
        parameters=_PARAMETERS,
        permission="reversible",
        handler=run,
        summarize=_summarize,
    )
