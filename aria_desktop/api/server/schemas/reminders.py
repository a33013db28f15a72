"""Bodies of the reminders (``domain.reminders``): a reminder or alarm as listed, a new one."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from aria_desktop.api.server.schemas.common import FromDomain, StrictTypes
from aria_desktop.domain.reminders import MAX_REMINDER_TEXT

__all__ = ["ReminderIn", "ReminderOut"]


class ReminderOut(FromDomain):
    """One reminder or alarm (times are UNIX seconds).

    ``recurrence`` is a cron rule in local wall-clock time ("" for a one-off); ``delivered_at``
    is its last delivery, ``late`` whether that came after ARIA was off at its time. A
    recurring one stays ``pending``.
    """

    id: str
    kind: Literal["reminder", "alarm"]
    text: str
    due_at: float
    recurrence: str = ""
    timezone: str = ""
    state: Literal["pending", "delivered", "cancelled"]
    created_at: float
    delivered_at: float | None = None
    late: bool = False
    language: str = "en"


class ReminderIn(StrictTypes):
    """A new reminder: what, and when.

    ``when`` is said as people say it ("tomorrow at 9 am", "in 20 minutes", "every weekday at
    7") in ``language``, or a local ISO time ("2026-03-05T16:00").
    """

    text: str = Field(default="", max_length=MAX_REMINDER_TEXT)
    when: str = Field(min_length=1, max_length=200, examples=["tomorrow at 9 am"])
    kind: Literal["reminder", "alarm"] = "reminder"
    language: str = Field(default="en", min_length=2, max_length=8, pattern=r"^[a-z]{2}(-\w+)?$")
