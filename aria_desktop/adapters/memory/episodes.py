"""Episodes in SQLite: one row per conversation, searched by keyword and meaning.

``episodes`` holds each conversation's summary with its unit vector (the memory embedder's);
``episodes_fts`` indexes the summary and title (triggers keep it in step); ``memory_sources``
says which conversations taught or confirmed each memory, so an episode's memories are those
of its conversation. Episodes are few (one per conversation): the vector leg is an exact scan.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from aria_desktop.adapters.memory.rows import new_id
from aria_desktop.adapters.memory.store import SQLiteMemoryStore
from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.fusion import Prior, fuse
from aria_desktop.adapters.storage.text import fts_query
from aria_desktop.domain.episodes import Episode, EpisodeDraft, EpisodeHit, MemorySource

__all__ = ["SQLiteEpisodeStore"]

_COLUMNS = (
    "seq, id, conversation_id, title, summary, started_at, ended_at, turns, summarised, "
    "created_at, updated_at"
)
_DEPTH = 20
"""Each search leg returns at most this many episodes."""
_MIN_COSINE = 0.3
"""Vector-leg episodes less similar than this to the question are left out."""
_SCAN_LIMIT = 5000
"""The vector leg scans the newest this many episodes."""


def _episode(conn: Connection, row: Sequence[Any]) -> Episode:
    memory_ids = conn.execute(
        "SELECT memory_id FROM memory_sources WHERE conversation_id = ? ORDER BY at, memory_id",
        (row[2],),
    ).fetchall()
    return Episode(
        id=str(row[1]),
        conversation_id=str(row[2]),
        title=str(row[3]),
        summary=str(row[4]),
        started_at=float(row[5]),
        ended_at=float(row[6]),
        turns=int(row[7]),
        summarised=bool(row[8]),
        memory_ids=tuple(dict.fromkeys(str(r[0]) for r in memory_ids)),
        created_at=float(row[9]),
        updated_at=float(row[10]),
    )


def _span_clause(span: tuple[float, float] | None) -> tuple[str, tuple[float, ...]]:
    if span is None:
        return "1", ()
    return "e.ended_at >= ? AND e.started_at < ?", span


class SQLiteEpisodeStore:
    """Episodes over the owner's :class:`Database`, embedded by the memory store's embedder."""

    def __init__(
        self,
        db: Database,
        memories: SQLiteMemoryStore,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._db = db
        self._memories = memories
        self._clock = clock

    async def upsert(self, draft: EpisodeDraft) -> Episode:
        """Write (or rewrite) the episode of ``draft.conversation_id``."""
        vectors = await self._memories.embed([f"{draft.title}. {draft.summary}"])
        vector = vectors[0] if vectors else None
        model = self._memories.embedding_model if vector is not None else ""
        now = self._clock()

        def tx(conn: Connection) -> Episode:
            conn.execute(
                "INSERT INTO episodes (id, conversation_id, title, summary, started_at, "
                "ended_at, turns, summarised, embedding_model, embedding, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (conversation_id) DO UPDATE SET title = excluded.title, "
                "summary = excluded.summary, started_at = min(started_at, excluded.started_at), "
                "ended_at = max(ended_at, excluded.ended_at), turns = excluded.turns, "
                "summarised = excluded.summarised, embedding_model = excluded.embedding_model, "
                "embedding = excluded.embedding, updated_at = excluded.updated_at",
                (
                    new_id("ep"),
                    draft.conversation_id,
                    draft.title,
                    draft.summary,
                    draft.started_at,
                    draft.ended_at,
                    draft.turns,
                    int(draft.summarised),
                    model,
                    vector,
                    now,
                    now,
                ),
            )
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM episodes WHERE conversation_id = ?",
                (draft.conversation_id,),
            ).fetchone()
            return _episode(conn, row)

        return await self._db.write(tx)

    async def get(self, episode_id: str) -> Episode | None:
        """One episode, or None."""
        return await self._one("id", episode_id)

    async def for_conversation(self, conversation_id: str) -> Episode | None:
        """The episode of a conversation, or None."""
        return await self._one("conversation_id", conversation_id)

    async def _one(self, column: str, value: str) -> Episode | None:
        def read(conn: Connection) -> Episode | None:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM episodes WHERE {column} = ?", (value,)
            ).fetchone()
            return None if row is None else _episode(conn, row)

        return await self._db.read(read)

    async def list_episodes(
        self, *, limit: int = 50, offset: int = 0, unsummarised: bool = False
    ) -> list[Episode]:
        """Episodes, the latest conversation first (``unsummarised``: only fallback texts)."""
        where = "summarised = 0" if unsummarised else "1"

        def read(conn: Connection) -> list[Episode]:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM episodes WHERE {where} "
                "ORDER BY ended_at DESC, seq DESC LIMIT ? OFFSET ?",
                (max(0, limit), max(0, offset)),
            ).fetchall()
            return [_episode(conn, row) for row in rows]

        return await self._db.read(read)

    async def search(
        self, text: str, *, limit: int = 5, span: tuple[float, float] | None = None
    ) -> list[EpisodeHit]:
        """Episodes about ``text`` (keywords and meaning fused), best first.

        With ``span`` only episodes overlapping that time count, and when neither leg
        matches, the span's episodes are returned newest first: "what did we talk about
        yesterday" names a time, not a topic.
        """
        vectors = await self._memories.embed([text]) if text.strip() else None
        query = np.frombuffer(vectors[0], dtype=np.float32) if vectors else None
        match = fts_query(text)
        where, params = _span_clause(span)
        now = self._clock()

        def read(conn: Connection) -> list[EpisodeHit]:
            lexical: list[int] = []
            if match:
                lexical = [
                    int(r[0])
                    for r in conn.execute(
                        "SELECT e.seq FROM episodes_fts JOIN episodes AS e "
                        f"ON e.seq = episodes_fts.rowid WHERE episodes_fts MATCH ? AND {where} "
                        "ORDER BY bm25(episodes_fts, 2.0, 1.0) LIMIT ?",
                        (match, *params, _DEPTH),
                    )
                ]
            semantic: list[int] = []
            if query is not None:
                rows = conn.execute(
                    f"SELECT e.seq, e.embedding FROM episodes AS e WHERE {where} "
                    "AND e.embedding IS NOT NULL AND length(e.embedding) = ? "
                    "ORDER BY e.ended_at DESC LIMIT ?",
                    (*params, query.nbytes, _SCAN_LIMIT),
                ).fetchall()
                if rows:
                    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
                    cosines = matrix.reshape(len(rows), -1) @ query
                    order = np.argsort(-cosines)[:_DEPTH]
                    semantic = [int(rows[i][0]) for i in order if cosines[i] >= _MIN_COSINE]
            keys = list(dict.fromkeys(lexical + semantic))
            if not keys and span is not None:
                keys = [
                    int(r[0])
                    for r in conn.execute(
                        f"SELECT e.seq FROM episodes AS e WHERE {where} "
                        "ORDER BY e.ended_at DESC LIMIT ?",
                        (*params, limit),
                    )
                ]
                lexical = keys
            if not keys:
                return []
            by_seq = {
                int(r[0]): r
                for r in conn.execute(
                    f"SELECT {_COLUMNS} FROM episodes WHERE seq IN ({', '.join('?' * len(keys))})",
                    keys,
                )
            }
            priors = {
                seq: Prior(importance=0.5, created_at=float(r[6])) for seq, r in by_seq.items()
            }
            fused = fuse(lexical, semantic, priors=priors, now=now)[:limit]
            return [EpisodeHit(episode=_episode(conn, by_seq[f.key]), score=f.score) for f in fused]

        return await self._db.read(read)

    async def sources(self, memory_id: str) -> list[MemorySource]:
        """The conversations that taught or confirmed a memory, oldest first."""

        def read(conn: Connection) -> list[MemorySource]:
            rows = conn.execute(
                "SELECT s.conversation_id, s.relation, s.at, e.id FROM memory_sources AS s "
                "LEFT JOIN episodes AS e ON e.conversation_id = s.conversation_id "
                "WHERE s.memory_id = ? ORDER BY s.at",
                (memory_id,),
            ).fetchall()
            return [
                MemorySource(
                    conversation_id=str(r[0]),
                    relation="reinforced" if r[1] == "reinforced" else "extracted",
                    at=float(r[2]),
                    episode_id=None if r[3] is None else str(r[3]),
                )
                for r in rows
            ]

        return await self._db.read(read)

    async def remove_conversation(self, conversation_id: str) -> list[str]:
        """Drop a deleted conversation's episode and its sources.

        Returns:
            The memories it taught that no other conversation supports now (the caller
            forgets them); memories it only confirmed stay.
        """

        def tx(conn: Connection) -> list[str]:
            taught = [
                str(r[0])
                for r in conn.execute(
                    "SELECT memory_id FROM memory_sources WHERE conversation_id = ? "
                    "AND relation = 'extracted'",
                    (conversation_id,),
                )
            ]
            conn.execute("DELETE FROM memory_sources WHERE conversation_id = ?", (conversation_id,))
            conn.execute("DELETE FROM episodes WHERE conversation_id = ?", (conversation_id,))
            return [
                memory_id
                for memory_id in taught
                if conn.execute(
                    "SELECT 1 FROM memory_sources WHERE memory_id = ? LIMIT 1", (memory_id,)
                ).fetchone()
                is None
            ]

        return await self._db.write(tx)
