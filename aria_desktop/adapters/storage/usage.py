"""The usage ledger: one row per model call in ``llm_usage``, and sums over it.

Satisfies ``llm.budget.UsageLedger`` structurally (adapters import no other adapter). Per-day
cloud budgets are summed from here, so they hold across restarts; ``aria usage`` and
``GET /usage`` read totals per backend and model (ARCHITECTURE.md: usage and cloud budgets).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.domain.chat import Usage
from aria_desktop.domain.usage import UsageRecord, UsageTotal

__all__ = ["SQLiteUsageLedger"]

_SUMS = (
    "COUNT(*), SUM(input_tokens), SUM(output_tokens), SUM(cache_read_tokens), "
    "SUM(cache_write_tokens), SUM(cost)"
)


def _total(row: Sequence[Any]) -> UsageTotal:
    return UsageTotal(
        backend=row[0],
        model=row[1],
        locality=row[2],
        calls=int(row[3]),
        usage=Usage(
            input_tokens=int(row[4] or 0),
            output_tokens=int(row[5] or 0),
            cache_read_tokens=int(row[6] or 0),
            cache_write_tokens=int(row[7] or 0),
            cost=float(row[8] or 0.0),
        ),
    )


class SQLiteUsageLedger:
    """Model calls recorded in the owner's database."""

    def __init__(self, db: Database) -> None:
        """Use ``db`` (its schema includes the ``thinking_and_usage`` migration)."""
        self._db = db

    async def record(self, record: UsageRecord) -> None:
        """Append one call."""
        usage = record.usage

        def insert(conn: Connection) -> None:
            conn.execute(
                "INSERT INTO llm_usage (at, backend, model, locality, agent, input_tokens, "
                "output_tokens, cache_read_tokens, cache_write_tokens, cost) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.at,
                    record.backend,
                    record.model,
                    record.locality,
                    record.agent,
                    usage.input_tokens,
                    usage.output_tokens,
                    usage.cache_read_tokens,
                    usage.cache_write_tokens,
                    usage.cost,
                ),
            )

        await self._db.write(insert)

    async def cost_since(self, since: float, *, locality: str) -> float:
        """What the calls of ``locality`` since ``since`` (UNIX seconds) cost."""

        def query(conn: Connection) -> float:
            row = conn.execute(
                "SELECT COALESCE(SUM(cost), 0) FROM llm_usage WHERE at >= ? AND locality = ?",
                (since, locality),
            ).fetchone()
            return float(row[0])

        return await self._db.read(query)

    async def totals(self, since: float) -> list[UsageTotal]:
        """Calls, tokens and cost since ``since`` per backend and model, costliest first."""

        def query(conn: Connection) -> list[UsageTotal]:
            rows = conn.execute(
                f"SELECT backend, model, locality, {_SUMS} FROM llm_usage WHERE at >= ? "
                "GROUP BY backend, model, locality ORDER BY SUM(cost) DESC, backend, model",
                (since,),
            ).fetchall()
            return [_total(row) for row in rows]

        return await self._db.read(query)
