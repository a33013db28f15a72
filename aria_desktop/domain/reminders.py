"""Reminders and alarms as plain values, for every surface: the skill, the API, the CLI, MCP.

A reminder's moment is wall-clock UNIX seconds (``due_at``), so it survives a restart: one that
came due while ARIA was not running is still pending at the next start and is delivered then,
marked late. A recurring one ("every weekday at 7") keeps its rule (``recurrence``, a cron
expression in local wall-clock time, ``domain/cron.py``) and moves to its next occurrence after
each delivery.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "MAX_REMINDER_TEXT",
    "RECENT_DELIVERED_S",
    "REMINDER_KINDS",
    "NewReminder",
    "Reminder",
    "ReminderKind",
    "ReminderState",
]

ReminderKind = Literal["reminder", "alarm"]
ReminderState = Literal["pending", "delivered", "cancelled"]
REMINDER_KINDS: tuple[ReminderKind, ...] = ("reminder", "alarm")

MAX_REMINDER_TEXT = 500
"""The longest thing to be reminded of (characters)."""

RECENT_DELIVERED_S = 7 * 86400.0
"""How far back the list shows delivered reminders (a week)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Reminder:
    """One reminder or alarm.

    Attributes:
        id: short stable id (what ``aria reminders cancel ID`` takes).
        kind: reminder (said and shown) or alarm (rings until stopped).
        text: what to remember ("" for an alarm without one).
        due_at: when it is (next) due, UNIX seconds.
        recurrence: a cron rule in local wall-clock time ("0 7 * * 1-5"); "" for a one-off.
        timezone: the local zone it was set in (``Europe/Berlin``; "" when unknown).
        state: pending, delivered or cancelled (a recurring one stays pending).
        created_at: when it was set, UNIX seconds.
        delivered_at: when it was last delivered, UNIX seconds (None: never yet).
        late: its last delivery came after ARIA was off (or asleep) at its time.
        language: the language it was set in (its announcement uses it).
    """

    id: str
    kind: ReminderKind = "reminder"
    text: str = ""
    due_at: float
    recurrence: str = ""
    timezone: str = ""
    state: ReminderState = "pending"
    created_at: float = 0.0
    delivered_at: float | None = None
    late: bool = False
    language: str = "en"


@dataclass(frozen=True, kw_only=True, slots=True)
class NewReminder:
    """A reminder to set, as a surface states it.

    Attributes:
        text: what to remember (required for a reminder, optional for an alarm).
        when: when, as people say it ("tomorrow at 9 am", "in 20 minutes", "every weekday at
            7") or an ISO 8601 local time ("2026-03-05T16:00"); parsed in ``language``.
        kind: reminder or alarm.
        language: the language ``when`` is in and the announcement will be in.
    """

    text: str = ""
    when: str
    kind: ReminderKind = "reminder"
    language: str = "en"
