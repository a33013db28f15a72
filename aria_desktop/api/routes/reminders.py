"""Reminders and alarms: the pending ones and those of the last week, set one, cancel.

Routes drive the owner's ``ReminderAccess`` (``core.ports``), reached as the assistant's
``reminders`` attribute. When one comes due the owner tells it (speech, notification, a ring
for an alarm) and ``/events`` carries ``reminder-due`` and ``skill-data-changed`` (kind
``reminders``); one due while ARIA was off is told at its next start, marked ``late``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Query

from aria_desktop.api.routes._router import assistant_skill, capability_router
from aria_desktop.api.server import docs
from aria_desktop.api.server.schemas.reminders import ReminderIn, ReminderOut
from aria_desktop.core.ports import ReminderAccess
from aria_desktop.domain.reminders import NewReminder, ReminderKind

_REMINDERS: docs.Responses = {
    503: docs.error("Reminders are not set up, or storage is unavailable")
}
router = capability_router("reminders", _REMINDERS)
"""Every reminder route can answer the common errors, and 503 when reminders are not set up."""

_CHANGE = docs.responses(docs.NOT_FOUND, docs.INVALID)

ReminderId = Annotated[
    str, Path(min_length=1, max_length=40, pattern=r"^[\w-]+$", description="The reminder's id")
]
KindQuery = Annotated[
    ReminderKind | None, Query(description="Only reminders or only alarms (default: both)")
]


RemindersDep = Annotated[ReminderAccess, Depends(assistant_skill("reminders", "Reminders"))]


@router.get(
    "/reminders",
    summary="Pending reminders and alarms (soonest first), then those delivered in the last 7 days",
    responses=docs.INVALID,
)
async def list_reminders(reminders: RemindersDep, kind: KindQuery = None) -> list[ReminderOut]:
    return [ReminderOut.of(r) for r in await reminders.list_reminders(kind=kind)]


@router.post(
    "/reminders",
    status_code=201,
    summary='Set a reminder or alarm for a time said in words ("tomorrow at 9 am")',
    responses=docs.responses(docs.BODY, docs.INVALID),
)
async def add_reminder(body: ReminderIn, reminders: RemindersDep) -> ReminderOut:
    new = NewReminder(text=body.text, when=body.when, kind=body.kind, language=body.language)
    return ReminderOut.of(await reminders.add_reminder(new))


@router.post(
    "/reminders/{reminder_id}/cancel", summary="Cancel a pending reminder", responses=_CHANGE
)
async def cancel_reminder(reminder_id: ReminderId, reminders: RemindersDep) -> ReminderOut:
    return ReminderOut.of(await reminders.cancel_reminder(reminder_id))


@router.delete("/reminders/{reminder_id}", summary="Cancel a pending reminder", responses=_CHANGE)
async def delete_reminder(reminder_id: ReminderId, reminders: RemindersDep) -> ReminderOut:
    return ReminderOut.of(await reminders.cancel_reminder(reminder_id))


@router.delete(
    "/reminders",
    summary="Cancel every pending reminder and alarm (or only those of one kind)",
    responses=docs.INVALID,
)
async def cancel_all_reminders(
    reminders: RemindersDep, kind: KindQuery = None
) -> list[ReminderOut]:
    return [ReminderOut.of(r) for r in await reminders.cancel_all_reminders(kind)]
