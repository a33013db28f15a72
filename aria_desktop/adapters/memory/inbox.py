"""The inbox: memories proposed from conversations, waiting for the user's yes or no.

Extraction proposes candidates when memory is set to ask first; approving one turns it into a
memory by the same rules as adding it directly (the store's lifecycle), rejecting drops it.
A candidate already remembered, or already waiting, is not proposed twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from aria_desktop.adapters.memory.rows import (
    CANDIDATE_COLUMNS,
    CANDIDATE_FIELDS,
    PendingRow,
    candidate_not_found,
    new_id,
    row_to_candidate,
    row_values,
)
from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.text import content_hash
from aria_desktop.domain.memory import MemoryCandidate

__all__ = ["MemoryInbox"]

_APPROVED_FIELDS = (
    *(name for name in CANDIDATE_FIELDS if name not in ("id", "created_at")),
    "supersedes",
)
"""The candidate columns an approved memory takes over."""


class MemoryInbox:
    """The ``memory_candidates`` table over the owner's :class:`Database`."""

    def __init__(self, db: Database, *, clock: Callable[[], float]) -> None:
        """Bind to ``db``; ``clock`` gives UNIX seconds for the candidates' times."""
        self._db = db
        self._clock = clock

    async def propose(self, item: PendingRow) -> MemoryCandidate | None:
        """Put a checked memory in the inbox; None when it is already there or remembered."""
        now = self._clock()
        digest = content_hash(item.content)

        def tx(conn: Connection) -> MemoryCandidate | None:
            known = conn.execute(
                "SELECT 1 FROM memories WHERE content_hash = ? AND status = 'active'", (digest,)
            ).fetchone()
            if known is not None:
                return None
            for (existing,) in conn.execute("SELECT content FROM memory_candidates"):
                if content_hash(str(existing)) == digest:
                    return None
            candidate_id = new_id("cand")
            conn.execute(
                "INSERT INTO memory_candidates (id, content, kind, subject, topic, importance, "
                "confidence, conversation_id, message_ids, supersedes, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    candidate_id,
                    item.content,
                    item.kind,
                    item.subject,
                    item.topic,
                    item.importance,
                    item.confidence,
                    item.conversation_id,
                    json.dumps(list(item.message_ids)),
                    item.supersedes,
                    now,
                ),
            )
            row = conn.execute(
                f"SELECT {CANDIDATE_COLUMNS} FROM memory_candidates WHERE id = ?",
                (candidate_id,),
            ).fetchone()
            return row_to_candidate(row)

        return await self._db.write(tx)

    async def entries(self) -> list[MemoryCandidate]:
        """The inbox, oldest first."""
        return await self._db.read(
            lambda conn: [
                row_to_candidate(row)
                for row in conn.execute(
                    f"SELECT {CANDIDATE_COLUMNS} FROM memory_candidates ORDER BY created_at, id"
                )
            ]
        )

    async def to_approve(self, candidate_id: str) -> PendingRow:
        """The memory an inbox entry becomes when approved (no vector yet; entry kept).

        Raises:
            NotFoundError: no candidate has this id.
        """
        found = await self._db.read(
            lambda conn: conn.execute(
                f"SELECT {', '.join(_APPROVED_FIELDS)} FROM memory_candidates WHERE id = ?",
                (candidate_id,),
            ).fetchone()
        )
        if found is None:
            raise candidate_not_found(candidate_id)
        return PendingRow(**row_values(_APPROVED_FIELDS, found), provenance="conversation")

    @staticmethod
    def remove(conn: Connection, candidate_id: str) -> None:
        """Delete an inbox entry inside the caller's transaction.

        Raises:
            NotFoundError: no candidate has this id (any more).
        """
        gone = conn.execute("DELETE FROM memory_candidates WHERE id = ?", (candidate_id,))
        if gone.rowcount == 0:
            raise candidate_not_found(candidate_id)

    async def reject(self, candidate_id: str) -> None:
        """Drop an inbox entry.

        Raises:
            NotFoundError: no candidate has this id.
        """
        await self._db.write(lambda conn: self.remove(conn, candidate_id))
