"""Timers: list the running ones (the tray's countdown), start, pause, resume, cancel.

Routes drive the owner's ``TimerAccess`` (``core.ports``), reached as the assistant's
``timers`` attribute. A timer in a path is its ``id`` or its name ("pasta"); a name two timers
share answers 422 with their ids. When a timer ends the owner rings and announces it and
``/events`` carries ``timer-finished`` and ``skill-data-changed`` (kind ``timers``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path

from aria_desktop.api.routes._router import assistant_skill, capability_router
from aria_desktop.api.server import docs
from aria_desktop.api.server.schemas.timers import TimerIn, TimerOut
from aria_desktop.core.ports import TimerAccess
from aria_desktop.domain.errors import TimerError
from aria_desktop.domain.timers import parse_duration

_TIMERS: docs.Responses = {503: docs.error("Timers are not set up, or storage is unavailable")}
router = capability_router("timers", _TIMERS)
"""Every timer route can answer the common errors, and 503 when timers are not set up."""

_CHANGE = docs.responses(docs.NOT_FOUND, docs.INVALID)

TimerRef = Annotated[
    str, Path(min_length=1, max_length=60, description="The timer's id, or its name")
]


TimersDep = Annotated[TimerAccess, Depends(assistant_skill("timers", "Timers"))]


@router.get("/timers", summary="Running and paused timers, soonest end first")
async def list_timers(timers: TimersDep) -> list[TimerOut]:
    return [TimerOut.of(timer) for timer in await timers.list_timers()]


@router.post(
    "/timers",
    status_code=201,
    summary="Start a timer (seconds, or a duration such as 5m or 1h30m; optional name)",
    responses=docs.responses(docs.BODY, docs.INVALID),
)
async def start_timer(body: TimerIn, timers: TimersDep) -> TimerOut:
    if (body.seconds is None) == (body.duration is None):
        raise TimerError(
            "Give either seconds or duration.", hint='{"duration": "5m"} or {"seconds": 300}'
        )
    try:
        seconds = body.seconds if body.seconds is not None else parse_duration(body.duration or "")
    except ValueError as exc:
        raise TimerError(f"{exc}.", hint="Write it as 5m, 1h30m or 90s.") from None
    started = await timers.start_timer(seconds, name=body.name, language=body.language)
    return TimerOut.of(started)


@router.post("/timers/{timer}/pause", summary="Pause a running timer", responses=_CHANGE)
async def pause_timer(timer: TimerRef, timers: TimersDep) -> TimerOut:
    return TimerOut.of(await timers.pause_timer(timer))


@router.post("/timers/{timer}/resume", summary="Let a paused timer run again", responses=_CHANGE)
async def resume_timer(timer: TimerRef, timers: TimersDep) -> TimerOut:
    return TimerOut.of(await timers.resume_timer(timer))


@router.post("/timers/{timer}/cancel", summary="Cancel one timer", responses=_CHANGE)
async def cancel_timer(timer: TimerRef, timers: TimersDep) -> TimerOut:
    return TimerOut.of(await timers.cancel_timer(timer))


@router.delete("/timers", summary="Cancel every running and paused timer")
async def cancel_all_timers(timers: TimersDep) -> list[TimerOut]:
    return [TimerOut.of(timer) for timer in await timers.cancel_all_timers()]
