"""The derived indexes of memories: the vector index's life, and the checks that they agree.

The rows of ``memories`` are the source of truth; the FTS5 keyword index (kept in sync by triggers)
and the ``memory_vec`` vector index (:mod:`aria_desktop.adapters.storage.vectors`) are derived from
them and can be rebuilt at any time. This module decides whether the vector leg is on (an embedder,
sqlite-vec and a reachable model), embeds text for the store, gives current-model vectors to rows
that lack them, and rebuilds both indexes.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence

from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.embedder import Embedder
from aria_desktop.adapters.storage.vectors import (
    EXACT_KNN_LIMIT,
    VectorIndex,
    VectorTable,
    open_vector_index,
)
from aria_desktop.domain.errors import EmbedderError

__all__ = ["MEMORY_VECTORS", "Embedder", "MemoryIndexes"]

_LOGGER = logging.getLogger(__name__)

MEMORY_VECTORS = VectorTable(name="memory_vec", rows="memories", meta="memory_meta")
"""Where the memories' vector index lives (the ``long_term_memory`` migration's tables)."""


class MemoryIndexes:
    """The vector leg's state for one store, and the upkeep of both derived indexes.

    Attributes:
        vectors: the vector index while vector search is on, else None (keyword only).
        status: why vector search is off, or what it uses when on.
    """

    def __init__(
        self, db: Database, embedder: Embedder | None, *, exact_limit: int = EXACT_KNN_LIMIT
    ) -> None:
        """Bind to ``db``; ``embedder`` None means keyword search only."""
        self._db = db
        self._embedder = embedder
        self._exact_limit = exact_limit
        self.vectors: VectorIndex | None = None
        self.status = "not opened yet"

    @property
    def model_id(self) -> str:
        """Model id vectors are made with ("" without an embedder)."""
        return self._embedder.model_id if self._embedder is not None else ""

    async def open(self) -> int:
        """Prepare the vector index for the configured embedder.

        Creates ``memory_vec`` for the embedder's dimension, or drops and recreates it when the
        model changed since the vectors were made. Without an embedder, sqlite-vec or a
        reachable model, search stays keyword-only and :attr:`status` says why.

        Returns:
            How many memories lack a vector from the current model (fix with :meth:`sync`).
        """
        self.vectors, self.status, pending = await open_vector_index(
            self._db, self._embedder, MEMORY_VECTORS, exact_limit=self._exact_limit, what="Memory"
        )
        return pending

    def count_written(self, vectors: int) -> None:
        """Count vectors the store just wrote: the index size decides exact vs. coarse KNN."""
        if self.vectors is not None:
            self.vectors.size += vectors

    async def embed(self, texts: Sequence[str]) -> list[bytes] | None:
        """Vectors for ``texts``, or None (logged) when vector search is off or fails."""
        index = self.vectors
        if index is None or self._embedder is None or not texts:
            return None
        try:
            vectors = await self._embedder.embed(texts)
        except EmbedderError as exc:
            _LOGGER.warning("Embedding failed; keyword search only for now: %s", exc)
            return None
        if not all(index.fits(v) for v in vectors):
            _LOGGER.warning("Embedder returned vectors of the wrong dimension; ignored")
            return None
        return vectors

    async def sync(self, *, batch: int = 256) -> int:
        """Give a current-model vector to every memory lacking one (drift repair).

        Runs in batches (one transaction each), so it can run in the background while ARIA
        is used; a row edited meanwhile is skipped and picked up next time.

        Returns:
            How many vectors were written.
        """
        index = self.vectors
        if index is None:
            return 0
        model = self.model_id
        written = 0
        while True:
            rows: list[tuple[int, str]] = await self._db.read(
                lambda conn: [
                    (int(r[0]), str(r[1]))
                    for r in conn.execute(
                        "SELECT seq, content FROM memories WHERE embedding_model != ? "
                        "ORDER BY seq LIMIT ?",
                        (model, batch),
                    )
                ]
            )
            if not rows:
                return written
            vectors = await self.embed([text for _, text in rows])
            if vectors is None:
                return written
            pairs = list(zip(rows, vectors, strict=True))
            done = await self._db.write(
                functools.partial(_store_vectors, index=index, model=model, pairs=pairs)
            )
            index.size += done
            written += done
            if done == 0:
                return written

    async def rebuild(self) -> tuple[int, int]:
        """Rebuild the keyword index and all vectors from the rows.

        Returns:
            (rows in the keyword index, vectors written).
        """
        fts_rows = await self._db.write(_rebuild_fts)
        vectors = 0
        if self._embedder is not None and self._db.vec_available:
            await self.open()
            index = self.vectors
            if index is not None:
                await self._db.write(index.reset)
                vectors = await self.sync()
        _LOGGER.info("Memory reindexed: %d keyword rows, %d vectors", fts_rows, vectors)
        return fts_rows, vectors

    async def consistency(self) -> dict[str, int]:
        """Counts that must agree for a healthy index (tests, doctor): rows, FTS, vectors."""
        vec_loaded = self._db.vec_available

        def read(conn: Connection) -> dict[str, int]:
            def count(sql: str) -> int:
                return int(conn.execute(sql).fetchone()[0])

            counts = {
                "rows": count("SELECT count(*) FROM memories"),
                "fts": count("SELECT count(*) FROM memories_fts"),
                "with_vector": count("SELECT count(*) FROM memories WHERE embedding IS NOT NULL"),
                "vectors": 0,
            }
            has_vec = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = ?", (MEMORY_VECTORS.name,)
            ).fetchone()
            if has_vec is not None and vec_loaded:
                counts["vectors"] = count(f"SELECT count(*) FROM {MEMORY_VECTORS.name}")
            return counts

        return await self._db.read(read)


def _store_vectors(
    conn: Connection, index: VectorIndex, model: str, pairs: list[tuple[tuple[int, str], bytes]]
) -> int:
    """Write each ``((seq, content), vector)`` whose row still has that content."""
    done = 0
    for (seq, text), vector in pairs:
        current = conn.execute(
            "SELECT status FROM memories WHERE seq = ? AND content = ?", (seq, text)
        ).fetchone()
        if current is None:
            continue
        index.remove(conn, seq)
        index.insert(conn, seq, str(current[0]), vector)
        conn.execute(
            "UPDATE memories SET embedding = ?, embedding_model = ? WHERE seq = ?",
            (vector, model, seq),
        )
        done += 1
    return done


def _rebuild_fts(conn: Connection) -> int:
    conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')")
    return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])
