"""Timers in the owner's database.

Table ``timers`` (migration ``everyday_skills``); satisfies ``core.skills.ports.TimerStore``.
Every change is one upsert on the single writer connection, committed before the change is
told to anyone, so a ``kill -9`` right after "timer set" still finds the timer at the next
start (its end is wall-clock UNIX seconds). Ended and cancelled timers older than a week are
dropped as new ones are written.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, cast

from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.domain.timers import Timer, TimerState

__all__ = ["SQLiteTimerStore"]

_COLUMNS = (
    "id, name, duration_s, state, ends_at, remaining_s, created_at, finished_at, announced, "
    "language"
)
_KEEP_ENDED_S = 7 * 24 * 3600.0


def _timer(row: Sequence[Any]) -> Timer:
    return Timer(
        id=str(row[0]),
        name=str(row[1]),
        duration_s=float(row[2]),
        state=cast(TimerState, str(row[3])),
        ends_at=None if row[4] is None else float(row[4]),
        remaining_s=float(row[5]),
        created_at=float(row[6]),
        finished_at=None if row[7] is None else float(row[7]),
        announced=bool(row[8]),
        language=str(row[9]),
    )


class SQLiteTimerStore:
    """Timers in SQLite."""

    def __init__(self, db: Database) -> None:
        """Use ``db`` (its schema includes the ``everyday_skills`` migration)."""
        self._db = db

    async def save(self, timer: Timer) -> None:
        """Insert ``timer`` or replace the stored one with the same id."""
        values = (
            timer.id,
            timer.name,
            timer.duration_s,
            timer.state,
            timer.ends_at,
            timer.remaining_s,
            timer.created_at,
            timer.finished_at,
            int(timer.announced),
            timer.language,
        )

        def upsert(conn: Connection) -> None:
            conn.execute(
                f"INSERT OR REPLACE INTO timers ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
            if timer.state == "running" and timer.remaining_s == timer.duration_s:
                conn.execute(  # a new timer: forget those that ended over a week ago
                    "DELETE FROM timers WHERE state IN ('finished', 'cancelled') "
                    "AND announced = 1 AND COALESCE(finished_at, created_at) < ?",
                    (time.time() - _KEEP_ENDED_S,),
                )

        await self._db.write(upsert)

    async def pending(self) -> list[Timer]:
        """Running and paused timers, and ended ones not yet announced."""

        def select(conn: Connection) -> list[Timer]:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM timers WHERE state IN ('running', 'paused') "
                "OR (state = 'finished' AND announced = 0) ORDER BY created_at"
            ).fetchall()
            return [_timer(row) for row in rows]

        return await self._db.read(select)

    async def get(self, timer_id: str) -> Timer | None:
        """One timer in any state (tests and diagnostics)."""

        def select(conn: Connection) -> Timer | None:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM timers WHERE id = ?", (timer_id,)
            ).fetchone()
            return None if row is None else _timer(row)

        return await self._db.read(select)
