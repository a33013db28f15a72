"""Bodies of the timers (``domain.timers``): a timer as the tray's countdown needs it, a start."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from aria_desktop.api.server.schemas.common import FromDomain, StrictTypes
from aria_desktop.domain.timers import MAX_TIMER_S

__all__ = ["TimerIn", "TimerOut"]


class TimerOut(FromDomain):
    """One timer. ``ends_at`` (UNIX seconds) is set while it runs: a countdown needs only it.

    ``remaining_s`` is what was left when the answer was made (frozen while paused);
    ``duration_s`` is what it was set for.
    """

    id: str
    name: str
    duration_s: float
    state: Literal["running", "paused", "finished", "cancelled"]
    ends_at: float | None = None
    remaining_s: float
    created_at: float
    finished_at: float | None = None
    language: str = "en"


class TimerIn(StrictTypes):
    """A new timer: how long, in seconds or as people write it ("5m", "1h30m"), and a name."""

    seconds: float | None = Field(default=None, gt=0, le=MAX_TIMER_S)
    duration: str | None = Field(default=None, min_length=1, max_length=20)
    name: str = Field(default="", max_length=60)
    language: str = Field(default="en", min_length=2, max_length=8, pattern=r"^[a-z]{2}(-\w+)?$")
