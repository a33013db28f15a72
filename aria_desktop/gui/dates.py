"""When something happened, the way a person reads it in a list.

"Today 14:02", "Yesterday", "3 Mar", "3 Mar 2024" (local time; the clock is passed in, so
tests need no waiting).
"""

from __future__ import annotations

import datetime
import time

__all__ = ["clock_time", "conversation_date"]

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def clock_time(at: float) -> str:
    """``14:02`` (24-hour local time) for UNIX seconds ``at``."""
    return time.strftime("%H:%M", time.localtime(at))


def conversation_date(at: float, now: float) -> str:
    """``at`` (UNIX seconds) said relative to ``now``: today with its time, else the day."""
    then, today = time.localtime(at), time.localtime(now)
    days = _day_number(today) - _day_number(then)
    if days <= 0:
        return f"Today {clock_time(at)}"
    if days == 1:
        return "Yesterday"
    day = f"{then.tm_mday} {_MONTHS[then.tm_mon - 1]}"
    return day if then.tm_year == today.tm_year else f"{day} {then.tm_year}"


def _day_number(moment: time.struct_time) -> int:
    """The calendar day's number (so midnight, not 24 hours, is the border)."""
    return datetime.date(moment.tm_year, moment.tm_mon, moment.tm_mday).toordinal()
