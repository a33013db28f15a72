"""Telling the user something came due: a timer's ring, a reminder, an alarm.

One port for every way ARIA reaches a person who is not looking at it: the spoken sentence
(when voice is on), a desktop notification, and for timers and alarms a ring that repeats until
"stop" (or a minute). Skills publish their own event (``timer-finished``, ``reminder-due``)
and hand the rest to the announcer, so timers and reminders reach people the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = ["Announcement", "Announcer", "Notifier"]


@dataclass(frozen=True, kw_only=True)
class Announcement:
    """What to tell, and how insistently.

    Attributes:
        kind: timer, reminder or alarm.
        title: the notification's title ("Timer", "Reminder").
        text: the sentence spoken and shown ("Your pasta timer is done.").
        ring: ring (timers and alarms) until stopped or ``ring_s`` passed.
        ring_s: the longest the ring lasts, seconds.
        key: identifies the thing announced (a timer's or reminder's id).
    """

    kind: Literal["timer", "reminder", "alarm"]
    title: str
    text: str
    ring: bool = False
    ring_s: float = 60.0
    key: str = ""


class Announcer(Protocol):
    """Reaches the user (``compose/skills.py`` builds the desktop one)."""

    async def announce(self, announcement: Announcement) -> None:
        """Speak, notify and (when asked) start ringing; returns without waiting for the ring."""
        ...

    async def silence(self) -> bool:
        """Stop every ring now; whether one was ringing ("stop" said to a ringing timer)."""
        ...

    @property
    def ringing(self) -> bool:
        """Whether a ring is sounding now."""
        ...


class Notifier(Protocol):
    """Desktop notifications (freedesktop ``org.freedesktop.Notifications`` on Linux)."""

    async def notify(self, title: str, body: str, *, urgent: bool = False) -> bool:
        """Show a notification; False (never an exception) when this desktop has none."""
        ...
