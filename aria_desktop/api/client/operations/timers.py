"""Operations of the timers: list, start, pause, resume, cancel one, cancel all."""

from __future__ import annotations

from urllib.parse import quote

from aria_desktop.api.client.operations.base import Operation, at, many, one
from aria_desktop.domain.timers import Timer

__all__ = ["CANCEL_ALL_TIMERS", "CHANGE_TIMER", "LIST_TIMERS", "START_TIMER"]

LIST_TIMERS = Operation[None, list[Timer]](method="GET", path=at("/timers"), decode=many(Timer))
START_TIMER = Operation[tuple[float, str, str], Timer](
    method="POST",
    path=at("/timers"),
    decode=one(Timer),
    encode=lambda arg: {"json": {"seconds": arg[0], "name": arg[1], "language": arg[2]}},
)
CHANGE_TIMER = Operation[tuple[str, str], Timer](
    method="POST",
    path=lambda arg: f"/timers/{quote(arg[0], safe='')}/{arg[1]}",
    decode=one(Timer),
)
"""``(timer, action)``: action is pause, resume or cancel."""
CANCEL_ALL_TIMERS = Operation[None, list[Timer]](
    method="DELETE", path=at("/timers"), decode=many(Timer)
)
