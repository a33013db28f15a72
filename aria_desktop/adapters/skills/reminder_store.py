"""Reminders and alarms in the owner's database.

Table ``reminders`` (migration ``everyday_skills``); satisfies
``core.skills.reminders.ReminderStore``. Each change is one statement (or one transaction) on
the single writer connection, committed before the change is told to anyone: a reminder set
just before a ``kill -9`` is there at the next start. A delivery is recorded only if the
reminder is still pending at the time it was delivered for (``mark_delivered``), so a cancel
that came in between is kept. Delivered and cancelled reminders older than 30 days are dropped
as new ones are written.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, cast

from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.domain.reminders import Reminder, ReminderKind, ReminderState

__all__ = ["SQLiteReminderStore"]

_COLUMNS = (
    "id, kind, text, due_at, recurrence, timezone, state, created_at, delivered_at, late, language"
)
_KEEP_ENDED_S = 30 * 24 * 3600.0


def _reminder(row: Sequence[Any]) -> Reminder:
    return Reminder(
        id=str(row[0]),
        kind=cast(ReminderKind, str(row[1])),
        text=str(row[2]),
        due_at=float(row[3]),
        recurrence=str(row[4]),
        timezone=str(row[5]),
        state=cast(ReminderState, str(row[6])),
        created_at=float(row[7]),
        delivered_at=None if row[8] is None else float(row[8]),
        late=bool(row[9]),
        language=str(row[10]),
    )


class SQLiteReminderStore:
    """Reminders in SQLite."""

    def __init__(self, db: Database) -> None:
        """Use ``db`` (its schema includes the ``everyday_skills`` migration)."""
        self._db = db

    async def add(self, reminder: Reminder) -> None:
        """Insert a new reminder (and forget those that ended a month ago)."""
        values = (
            reminder.id,
            reminder.kind,
            reminder.text,
            reminder.due_at,
            reminder.recurrence,
            reminder.timezone,
            reminder.state,
            reminder.created_at,
            reminder.delivered_at,
            int(reminder.late),
            reminder.language,
        )

        def insert(conn: Connection) -> None:
            conn.execute(
                f"INSERT INTO reminders ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
            conn.execute(
                "DELETE FROM reminders WHERE state IN ('delivered', 'cancelled') "
                "AND COALESCE(delivered_at, created_at) < ?",
                (time.time() - _KEEP_ENDED_S,),
            )

        await self._db.write(insert)

    async def get(self, reminder_id: str) -> Reminder | None:
        """One reminder in any state."""

        def select(conn: Connection) -> Reminder | None:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM reminders WHERE id = ?", (reminder_id,)
            ).fetchone()
            return None if row is None else _reminder(row)

        return await self._db.read(select)

    async def pending(self) -> list[Reminder]:
        """Pending ones, soonest first."""
        return await self._select("state = 'pending' ORDER BY due_at, created_at", ())

    async def delivered_since(self, since: float) -> list[Reminder]:
        """One-offs delivered at ``since`` or later, newest first."""
        return await self._select(
            "state = 'delivered' AND delivered_at >= ? ORDER BY delivered_at DESC", (since,)
        )

    async def due(self, now: float) -> list[Reminder]:
        """Pending ones due by ``now``, oldest first."""
        return await self._select(
            "state = 'pending' AND due_at <= ? ORDER BY due_at, created_at", (now,)
        )

    async def next_due_at(self) -> float | None:
        """The soonest pending due time."""

        def select(conn: Connection) -> float | None:
            row = conn.execute(
                "SELECT MIN(due_at) FROM reminders WHERE state = 'pending'"
            ).fetchone()
            return None if row is None or row[0] is None else float(row[0])

        return await self._db.read(select)

    async def cancel(self, reminder_ids: Sequence[str]) -> list[Reminder]:
        """Cancel those still pending, in one transaction; returns them as cancelled."""
        ids = list(dict.fromkeys(reminder_ids))

        def update(conn: Connection) -> list[Reminder]:
            cancelled = []
            for reminder_id in ids:
                row = conn.execute(
                    f"SELECT {_COLUMNS} FROM reminders WHERE id = ? AND state = 'pending'",
                    (reminder_id,),
                ).fetchone()
                if row is None:
                    continue
                conn.execute(
                    "UPDATE reminders SET state = 'cancelled' WHERE id = ?", (reminder_id,)
                )
                cancelled.append(replace(_reminder(row), state="cancelled"))
            return cancelled

        return await self._db.write(update)

    async def mark_delivered(
        self, reminder: Reminder, *, delivered_at: float, late: bool, next_due_at: float | None
    ) -> bool:
        """Delivered, or moved to ``next_due_at``; only if still pending at its due time."""

        def update(conn: Connection) -> bool:
            if next_due_at is None:
                cursor = conn.execute(
                    "UPDATE reminders SET state = 'delivered', delivered_at = ?, late = ? "
                    "WHERE id = ? AND state = 'pending' AND due_at = ?",
                    (delivered_at, int(late), reminder.id, reminder.due_at),
                )
            else:
                cursor = conn.execute(
                    "UPDATE reminders SET due_at = ?, delivered_at = ?, late = ? "
                    "WHERE id = ? AND state = 'pending' AND due_at = ?",
                    (next_due_at, delivered_at, int(late), reminder.id, reminder.due_at),
                )
            return cursor.rowcount == 1

        return await self._db.write(update)

    async def _select(self, where: str, args: tuple[Any, ...]) -> list[Reminder]:
        def select(conn: Connection) -> list[Reminder]:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM reminders WHERE {where}", args).fetchall()
            return [_reminder(row) for row in rows]

        return await self._db.read(select)
