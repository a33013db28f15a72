"""Reminders and alarms as tools of ARIA's MCP server: list, set, cancel.

Over the ``ReminderAccess`` port the assistant carries (``LocalAssistant.reminders`` in the
owner, ``ApiClient.reminders`` in ``aria mcp serve`` attached to it), so a reminder an MCP
client sets is stored and told by the owner like any other, and the change is on ARIA's bus.
The time is said in words and read by ARIA's own parser in the owner's time zone. Setting and
cancelling are reversible: no confirmation is asked.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, cast

from aria_desktop.api.mcp.tool_errors import tool_failure
from aria_desktop.core.ports import Assistant, ReminderAccess
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.reminders import NewReminder, Reminder, ReminderKind

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["add_reminder_tools", "reminder_access"]


def reminder_access(assistant: Assistant) -> ReminderAccess | None:
    """The reminders ``assistant`` carries, if any."""
    reminders: ReminderAccess | None = getattr(assistant, "reminders", None)
    return reminders


def _reminder_json(reminder: Reminder) -> dict[str, Any]:
    due = dt.datetime.fromtimestamp(reminder.due_at, dt.UTC).astimezone()
    return {
        "id": reminder.id,
        "kind": reminder.kind,
        "text": reminder.text,
        "due": due.isoformat(timespec="minutes"),
        "recurrence": reminder.recurrence,
        "state": reminder.state,
        "late": reminder.late,
    }


def add_reminder_tools(server: MCPServer, reminders: ReminderAccess) -> None:
    """Offer ``list_reminders``, ``add_reminder`` and ``cancel_reminder`` on ``server``."""

    async def list_reminders() -> list[dict[str, Any]]:
        """The user's pending reminders and alarms, then those delivered in the last week."""
        try:
            found = await reminders.list_reminders()
        except AriaError as exc:
            raise tool_failure(exc) from None
        return [_reminder_json(r) for r in found]

    async def add_reminder(
        when: str, text: str = "", kind: str = "reminder", language: str = "en"
    ) -> dict[str, Any]:
        """Set a reminder (or an alarm: kind "alarm") for a time said in words.

        when: "in 20 minutes", "at 4 pm", "tomorrow at 9 am", "every weekday at 7", or a
        local ISO time; text: what to remind of (needed for a reminder).
        """
        if kind not in ("reminder", "alarm"):
            raise tool_failure(AriaError(f"kind is reminder or alarm, not {kind!r}."))
        new = NewReminder(text=text, when=when, kind=cast(ReminderKind, kind), language=language)
        try:
            added = await reminders.add_reminder(new)
        except AriaError as exc:
            raise tool_failure(exc) from None
        return _reminder_json(added)

    async def cancel_reminder(reminder_id: str) -> dict[str, Any]:
        """Cancel a pending reminder or alarm by its id (from list_reminders)."""
        try:
            cancelled = await reminders.cancel_reminder(reminder_id)
        except AriaError as exc:
            raise tool_failure(exc) from None
        return _reminder_json(cancelled)

    for tool in (list_reminders, add_reminder, cancel_reminder):
        server.add_tool(tool, name=tool.__name__)
