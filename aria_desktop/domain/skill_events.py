"""Everyday-skill events: a timer ended, a reminder or alarm came due, a list changed.

Front-ends (tray, chat window, ``/api/v1/events``), automations and Home Assistant's outbound
hooks all see these; each is a fact, told once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from aria_desktop.domain.events import Event

__all__ = ["ReminderDue", "RingingChanged", "SkillDataChanged", "TimerFinished"]


@dataclass(frozen=True, kw_only=True)
class TimerFinished(Event):
    """A timer reached zero (or was found ended at start: ``missed``).

    Attributes:
        timer_id: the timer's id.
        name: its name ("" for an unnamed timer).
        duration_s: how long it was set for, seconds.
        missed: it ended while ARIA was not running; announced at the next start.
        message: the sentence ARIA said and showed ("Your pasta timer is done."), in the
            language the timer was set in — what an automation or Home Assistant passes on.
    """

    type: ClassVar[str] = "timer-finished"
    timer_id: str
    name: str = ""
    duration_s: float = 0.0
    missed: bool = False
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class ReminderDue(Event):
    """A reminder or an alarm came due and was delivered.

    Attributes:
        reminder_id: its id.
        kind: reminder or alarm.
        text: what to remember ("" for an alarm without one).
        due_at: when it was due, UNIX seconds.
        late: it came due while ARIA was not running and is delivered now.
        message: the sentence ARIA said and showed ("Reminder: call mum."), ready to pass on.
    """

    type: ClassVar[str] = "reminder-due"
    reminder_id: str
    kind: Literal["reminder", "alarm"] = "reminder"
    text: str = ""
    due_at: float = 0.0
    late: bool = False
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class SkillDataChanged(Event):
    """Timers, reminders or lists changed: views showing them read them again.

    Attributes:
        kind: timers, reminders or lists.
    """

    type: ClassVar[str] = "skill-data-changed"
    kind: Literal["timers", "reminders", "lists"]


@dataclass(frozen=True, kw_only=True)
class RingingChanged(Event):
    """A timer's or an alarm's ring started, or ended (stopped, or its minute was up).

    The tray offers "Stop ringing" exactly while one sounds.

    Attributes:
        ringing: whether a ring sounds now.
    """

    type: ClassVar[str] = "ringing-changed"
    ringing: bool
