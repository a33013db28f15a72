"""Timers as plain values, for every surface: the skill, the API, the CLI and the tray.

A running timer keeps its end as wall-clock UNIX seconds (``ends_at``), so it survives a
restart and ``kill -9``: whatever happened to the process, the end is where it was. A paused
timer has no end, only what is left (``remaining_s``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ACTIVE_STATES",
    "MAX_TIMER_S",
    "Timer",
    "TimerState",
    "parse_duration",
]

TimerState = Literal["running", "paused", "finished", "cancelled"]
ACTIVE_STATES: frozenset[TimerState] = frozenset({"running", "paused"})

MAX_TIMER_S = 24 * 3600.0
"""The longest timer (a day): anything longer is a reminder or an alarm."""

_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0}
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(h|hours?|m|min|mins|minutes?|s|sec|secs|seconds?)")


@dataclass(frozen=True, kw_only=True)
class Timer:
    """One timer.

    Attributes:
        id: short stable id (what ``aria timers cancel ID`` takes).
        name: what the user called it ("" for an unnamed timer).
        duration_s: how long it was set for (adding or removing time changes it).
        state: running, paused, finished or cancelled.
        ends_at: when a running timer ends, UNIX seconds (None while paused or ended).
        remaining_s: what is left, seconds: at the moment it was read for a running timer,
            frozen for a paused one, 0 once ended.
        created_at: when it was started, UNIX seconds.
        finished_at: when it ended (its end, not when ARIA noticed), UNIX seconds.
        announced: its end has been told to the user.
        language: the language it was started in (its announcement uses it).
    """

    id: str
    name: str = ""
    duration_s: float
    state: TimerState = "running"
    ends_at: float | None = None
    remaining_s: float = 0.0
    created_at: float = 0.0
    finished_at: float | None = None
    announced: bool = False
    language: str = "en"

    @property
    def active(self) -> bool:
        """Running or paused: it still counts down (or will again)."""
        return self.state in ACTIVE_STATES

    def remaining_at(self, now: float) -> float:
        """Seconds left at ``now`` (UNIX seconds); never below 0."""
        if self.state == "running" and self.ends_at is not None:
            return max(0.0, self.ends_at - now)
        if self.state == "paused":
            return max(0.0, self.remaining_s)
        return 0.0


def parse_duration(text: str) -> float:
    """``5m``, ``1h30m``, ``90s``, ``1:30`` (minutes:seconds), ``10`` (minutes) -> seconds.

    The CLI's and the API's way to say a duration; spoken ones come from the templates.

    Raises:
        ValueError: not a duration, zero, or longer than a day.
    """
    cleaned = text.strip().lower().replace(" ", "")
    seconds: float | None = None
    if re.fullmatch(r"\d+(\.\d+)?", cleaned):
        seconds = float(cleaned) * 60
    elif re.fullmatch(r"\d+(:\d{1,2}){1,2}", cleaned):
        parts = [int(p) for p in cleaned.split(":")]
        while len(parts) < 3:
            parts.insert(0, 0)
        seconds = float(parts[0] * 3600 + parts[1] * 60 + parts[2])
    else:
        found = list(_PART.finditer(cleaned))
        if found and "".join(m.group(0) for m in found) == cleaned:
            seconds = sum(float(m.group(1)) * _UNITS[m.group(2)[0]] for m in found)
    if seconds is None:
        raise ValueError(f"{text!r} is not a duration (say 5m, 1h30m or 90s)")
    if seconds <= 0:
        raise ValueError("a timer needs a duration above zero")
    if seconds > MAX_TIMER_S:
        raise ValueError("a timer can run for at most 24 hours; set a reminder for longer")
    return seconds
