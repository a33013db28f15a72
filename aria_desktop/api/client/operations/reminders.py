"""Operations of the reminders: list, add, cancel one, cancel all."""

from __future__ import annotations

from urllib.parse import quote

from aria_desktop.api.client.operations.base import Operation, at, many, one
from aria_desktop.domain.reminders import NewReminder, Reminder, ReminderKind

__all__ = ["ADD_REMINDER", "CANCEL_ALL_REMINDERS", "CANCEL_REMINDER", "LIST_REMINDERS"]


def _kind(kind: ReminderKind | None) -> dict[str, object]:
    return {"params": {"kind": kind}} if kind is not None else {}


LIST_REMINDERS = Operation[ReminderKind | None, list[Reminder]](
    method="GET", path=at("/reminders"), decode=many(Reminder), encode=_kind
)
ADD_REMINDER = Operation[NewReminder, Reminder](
    method="POST",
    path=at("/reminders"),
    decode=one(Reminder),
    encode=lambda new: {
        "json": {"text": new.text, "when": new.when, "kind": new.kind, "language": new.language}
    },
)
CANCEL_REMINDER = Operation[str, Reminder](
    method="POST",
    path=lambda reminder_id: f"/reminders/{quote(reminder_id, safe='')}/cancel",
    decode=one(Reminder),
)
CANCEL_ALL_REMINDERS = Operation[ReminderKind | None, list[Reminder]](
    method="DELETE", path=at("/reminders"), decode=many(Reminder), encode=_kind
)
