"""The reminders over HTTP: ``core.ports.ReminderAccess`` through the API's operations.

What ``aria reminders``, MCP's stdio server and an attached desktop app use while another
process owns the data (``ApiClient.reminders``); each method is one call into
``operations/reminders.py``.
"""

from __future__ import annotations

from aria_desktop.api.client.operations import reminders as ops
from aria_desktop.api.client.operations.base import Caller
from aria_desktop.domain.reminders import NewReminder, Reminder, ReminderKind

__all__ = ["RemindersClient"]


class RemindersClient:
    """``ReminderAccess`` over the owner's API."""

    def __init__(self, client: Caller) -> None:
        """Carry every call out through ``client`` (an ``ApiClient`` or its transport)."""
        self._client = client

    async def list_reminders(self, *, kind: ReminderKind | None = None) -> list[Reminder]:
        """Pending ones, then those delivered in the last week."""
        return await self._client.call(ops.LIST_REMINDERS, kind)

    async def add_reminder(self, new: NewReminder) -> Reminder:
        """Set one on the owner (it is told there); the owner parses ``new.when``."""
        return await self._client.call(ops.ADD_REMINDER, new)

    async def cancel_reminder(self, reminder_id: str) -> Reminder:
        """Cancel a pending one by id."""
        return await self._client.call(ops.CANCEL_REMINDER, reminder_id)

    async def cancel_all_reminders(self, kind: ReminderKind | None = None) -> list[Reminder]:
        """Cancel every pending one (of ``kind``)."""
        return await self._client.call(ops.CANCEL_ALL_REMINDERS, kind)
