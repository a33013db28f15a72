"""The lists as tools of ARIA's MCP server: read, add, check off, remove.

Over the ``ListAccess`` port the assistant carries (``LocalAssistant.lists`` in the owner,
``ApiClient.lists`` in ``aria mcp serve`` attached to it), so a change an MCP client makes is
told on ARIA's bus like any other. Changing a list is reversible: no confirmation is asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aria_desktop.api.mcp.tool_errors import tool_failure
from aria_desktop.core.ports import Assistant, ListAccess
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.lists import ListItem

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["add_list_tools", "list_access"]


def list_access(assistant: Assistant) -> ListAccess | None:
    """The lists ``assistant`` carries, if any."""
    lists: ListAccess | None = getattr(assistant, "lists", None)
    return lists


def _item_json(item: ListItem) -> dict[str, Any]:
    shown: dict[str, Any] = {"id": item.id, "text": item.text, "done": item.done}
    if item.pending:
        shown["pending"] = True
    return shown


def add_list_tools(server: MCPServer, lists: ListAccess) -> None:
    """Offer the lists' tools on ``server``.

    ``list_lists``, ``list_items``, ``add_list_items``, ``check_off_list_item`` and
    ``remove_list_item``.
    """

    async def list_lists() -> list[dict[str, Any]]:
        """The user's lists (shopping, to-do and their own) with how many entries are open."""
        try:
            summaries = await lists.lists()
        except AriaError as exc:
            raise tool_failure(exc) from None
        return [{"name": s.name, "open": s.open_items, "done": s.done_items} for s in summaries]

    async def list_items(list: str = "shopping", include_done: bool = False) -> dict[str, Any]:
        """The entries of one of the user's lists ("shopping", "todo" or their own list)."""
        try:
            entries = await lists.items(list, include_done=include_done)
        except AriaError as exc:
            raise tool_failure(exc) from None
        return {"list": list, "items": [_item_json(entry) for entry in entries]}

    async def add_list_items(items: list[str], list: str = "shopping") -> dict[str, Any]:
        """Add entries to one of the user's lists, one per item ("milk", "eggs")."""
        try:
            added = await lists.add(list, items)
        except AriaError as exc:
            raise tool_failure(exc) from None
        return {"list": list, "added": [_item_json(entry) for entry in added]}

    async def check_off_list_item(item: str, list: str = "shopping") -> dict[str, Any]:
        """Check off an open entry of one of the user's lists, by its text."""
        try:
            done = await lists.complete(list, item)
        except AriaError as exc:
            raise tool_failure(exc) from None
        return {"list": list, "checked_off": _item_json(done)}

    async def remove_list_item(item: str, list: str = "shopping") -> dict[str, Any]:
        """Delete an entry from one of the user's lists, by its text."""
        try:
            removed = await lists.remove(list, item)
        except AriaError as exc:
            raise tool_failure(exc) from None
        return {"list": list, "removed": _item_json(removed)}

    for tool in (list_lists, list_items, add_list_items, check_off_list_item, remove_list_item):
        server.add_tool(tool, name=tool.__name__)
