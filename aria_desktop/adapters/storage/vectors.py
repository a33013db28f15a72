"""The vector leg of hybrid search: a sqlite-vec ``vec0`` index derived from stored rows.

Shared by every store that ranks with FTS5 + sqlite-vec (long-term memory today, the knowledge
base next; see ``aria_desktop/ARCHITECTURE.md``). The rows stay the source of truth: each keeps
its unit float32 vector and the model that made it, and the ``vec0`` table, keyed by the row's
integer key, holds

* ``embedding`` — the float vector (exact KNN, SIMD L2);
* ``coarse`` — a bit-quantised copy (when the dimension is a multiple of 8) for a fast first
  pass over large indexes, whose candidates are re-ranked exactly from the rows;
* ``status`` — a metadata column, so KNN can skip rows that no longer count.

Its dimension depends on the embedding model, so the table is created at run time and rebuilt
when the model changes (:meth:`VectorIndex.prepare`). Vectors are unit length, so L2 distance
ranks like cosine similarity (:func:`cosine_from_l2`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aria_desktop.adapters.storage.connection import Connection, placeholders

if TYPE_CHECKING:
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.adapters.storage.embedder import Embedder

__all__ = [
    "EXACT_KNN_LIMIT",
    "VectorIndex",
    "VectorTable",
    "cosine_from_l2",
    "open_vector_index",
    "vector_dim",
]

_LOGGER = logging.getLogger(__name__)

EXACT_KNN_LIMIT = 20_000
"""Up to this many vectors the KNN is exact (vec0 float scan); above it, a bit-quantised
first pass picks candidates that are re-ranked exactly (measured in ``aria bench memory``)."""
_COARSE_FACTOR = 4
"""The coarse pass keeps this many candidates per wanted neighbour ..."""
_COARSE_MIN = 64
"""... and never fewer than this many."""
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def cosine_from_l2(distance: float) -> float:
    """Cosine similarity of two unit vectors from their L2 distance."""
    return 1.0 - (distance * distance) / 2.0


def vector_dim(vector: bytes) -> int:
    """Dimension of a float32 vector given as bytes."""
    return len(vector) // 4


@dataclass(frozen=True, kw_only=True)
class VectorTable:
    """Where one ``vec0`` index and the rows it is derived from live.

    Every field is an SQL identifier written into statements (checked at construction, never
    taken from input).

    Attributes:
        name: the ``vec0`` table, e.g. ``memory_vec``.
        rows: the table of source rows, e.g. ``memories``.
        key: the rows' integer key, used as the ``vec0`` rowid, e.g. ``seq``.
        vector: the rows' BLOB column holding the unit float32 vector, e.g. ``embedding``.
        model: the rows' TEXT column naming the model that made the vector ("" when none).
        meta: a ``(key TEXT PRIMARY KEY, value TEXT)`` table recording the index's model.
        meta_prefix: prefix of the keys in ``meta``: ``<prefix>_model`` and ``<prefix>_dim``.
    """

    name: str
    rows: str
    meta: str
    key: str = "seq"
    vector: str = "embedding"
    model: str = "embedding_model"
    meta_prefix: str = "embedding"

    def __post_init__(self) -> None:
        """Refuse anything that is not a plain identifier (it is interpolated into SQL)."""
        for value in (self.name, self.rows, self.key, self.vector, self.model, self.meta):
            if not _IDENTIFIER.fullmatch(value):
                raise ValueError(f"Not an SQL identifier: {value!r}")
        if not _IDENTIFIER.fullmatch(self.meta_prefix):
            raise ValueError(f"Not an SQL identifier: {self.meta_prefix!r}")


class VectorIndex:
    """A ``vec0`` KNN index of ``dim``-dimensional unit vectors over :class:`VectorTable` rows.

    Methods taking a connection run inside the caller's transaction (the owner's writer or
    reader thread), so a row and its vector are written together or not at all.

    Attributes:
        table: where the index and its rows live.
        dim: the vectors' dimension.
        coarse: whether a bit-quantised copy exists (``dim`` is a multiple of 8).
        size: vectors in the index as last counted or added; decides exact vs. coarse KNN,
            so an approximate figure is enough.
    """

    def __init__(self, table: VectorTable, dim: int, *, exact_limit: int = EXACT_KNN_LIMIT) -> None:
        """Describe the index; nothing is read or written until :meth:`prepare`."""
        self.table = table
        self.dim = dim
        self.coarse = dim % 8 == 0
        self.size = 0
        self._exact_limit = exact_limit

    def fits(self, vector: bytes) -> bool:
        """Whether ``vector`` has this index's dimension."""
        return vector_dim(vector) == self.dim

    def prepare(self, conn: Connection, model: str) -> int:
        """Make the index ready for vectors from ``model``.

        Creates it when missing; when the recorded model or dimension differ, rebuilds it
        empty and clears the rows' vectors (they came from another model). Sets :attr:`size`.

        Returns:
            How many rows lack a vector from ``model`` (to be embedded in the background).
        """
        t = self.table
        meta = dict(conn.execute(f"SELECT key, value FROM {t.meta}").fetchall())
        model_key, dim_key = f"{t.meta_prefix}_model", f"{t.meta_prefix}_dim"
        exists = (
            conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = ? AND type = 'table'", (t.name,)
            ).fetchone()
            is not None
        )
        if not exists or meta.get(model_key) != model or meta.get(dim_key) != str(self.dim):
            if exists:
                _LOGGER.info(
                    "Embedding model changed (%s -> %s): rebuilding the vector index %s",
                    meta.get(model_key),
                    model,
                    t.name,
                )
            self.reset(conn)
            conn.executemany(
                f"INSERT OR REPLACE INTO {t.meta} (key, value) VALUES (?, ?)",
                [(model_key, model), (dim_key, str(self.dim))],
            )
        count = f"SELECT count(*) FROM {t.rows} WHERE {t.model} "
        self.size = int(conn.execute(count + "= ?", (model,)).fetchone()[0])
        return int(conn.execute(count + "!= ?", (model,)).fetchone()[0])

    def reset(self, conn: Connection) -> None:
        """Recreate the index empty and clear every row's vector (a full rebuild follows)."""
        t = self.table
        conn.execute(f"DROP TABLE IF EXISTS {t.name}")
        coarse = f", coarse bit[{self.dim}]" if self.coarse else ""
        conn.execute(
            f"CREATE VIRTUAL TABLE {t.name} USING vec0("
            f"status text, embedding float[{self.dim}] distance_metric=l2{coarse})"
        )
        conn.execute(f"UPDATE {t.rows} SET {t.vector} = NULL, {t.model} = ''")
        self.size = 0

    def insert(self, conn: Connection, key: int, status: str, vector: bytes) -> None:
        """Index ``vector`` for row ``key`` (the row itself stores it too)."""
        if self.coarse:
            conn.execute(
                f"INSERT INTO {self.table.name} (rowid, status, embedding, coarse) "
                "VALUES (?1, ?2, ?3, vec_quantize_binary(vec_f32(?3)))",
                (key, status, vector),
            )
        else:
            conn.execute(
                f"INSERT INTO {self.table.name} (rowid, status, embedding) VALUES (?, ?, ?)",
                (key, status, vector),
            )

    def remove(self, conn: Connection, key: int) -> None:
        """Drop row ``key``'s vector from the index (no-op when it has none)."""
        conn.execute(f"DELETE FROM {self.table.name} WHERE rowid = ?", (key,))

    def set_status(self, conn: Connection, key: int, status: str) -> None:
        """Mirror a row's new status, so KNN filtered by status skips or finds it."""
        conn.execute(f"UPDATE {self.table.name} SET status = ? WHERE rowid = ?", (status, key))

    def nearest(
        self, conn: Connection, vector: bytes, k: int, *, status: str | None = None
    ) -> list[tuple[int, float]]:
        """The ``k`` rows nearest to ``vector``: ``(key, L2 distance)``, closest first.

        Exact up to the exact limit; beyond it (when a coarse copy exists) a bit-quantised
        pass picks ``max(4k, 64)`` candidates that are re-ranked exactly from the rows.

        Args:
            conn: a connection with sqlite-vec loaded.
            vector: the query, unit float32 bytes of this index's dimension.
            k: how many neighbours.
            status: only rows with this status (None: any).
        """
        t = self.table
        where = "" if status is None else " AND status = ?"
        extra: tuple[str, ...] = () if status is None else (status,)
        if self.coarse and self.size > self._exact_limit:
            coarse_k = max(k * _COARSE_FACTOR, _COARSE_MIN)
            candidates = [
                int(row[0])
                for row in conn.execute(
                    f"SELECT rowid FROM {t.name} WHERE coarse MATCH "
                    f"vec_quantize_binary(vec_f32(?)) AND k = ?{where}",
                    (vector, coarse_k, *extra),
                )
            ]
            if not candidates:
                return []
            rows = conn.execute(
                f"SELECT {t.key}, vec_distance_l2({t.vector}, ?) AS d FROM {t.rows} "
                f"WHERE {t.key} IN ({placeholders(len(candidates))}) AND {t.vector} IS NOT NULL "
                "ORDER BY d LIMIT ?",
                (vector, *candidates, k),
            ).fetchall()
        else:
            rows = conn.execute(
                f"SELECT rowid, distance FROM {t.name} WHERE embedding MATCH ? AND k = ?{where}",
                (vector, k, *extra),
            ).fetchall()
        return [(int(key), float(distance)) for key, distance in rows]


async def open_vector_index(
    db: Database, embedder: Embedder | None, table: VectorTable, *, exact_limit: int, what: str
) -> tuple[VectorIndex | None, str, int]:
    """Prepare ``table``'s vector index for ``embedder`` (shared by memory and knowledge).

    Without an embedder, sqlite-vec or a reachable model the store stays keyword-only, and
    the status says why.

    Args:
        db: the owner's database.
        embedder: the embedding model (None: keyword search only).
        table: where the index and its rows live.
        exact_limit: up to this many vectors the KNN is exact.
        what: the store's name for the log ("Memory", "Knowledge").

    Returns:
        (the index or None, its status for people, rows lacking a current-model vector).
    """
    from aria_desktop.domain.errors import EmbedderError

    if embedder is None:
        return None, "no embedder (memory.embedder = none): keyword search only", 0
    if not db.vec_available:
        return None, "sqlite-vec cannot be loaded: keyword search only", 0
    try:
        dim = await embedder.dimension()
    except EmbedderError as exc:
        _LOGGER.warning("%s vector search is off: %s", what, exc)
        return None, f"{exc} (keyword search only)", 0
    model = embedder.model_id
    index = VectorIndex(table, dim, exact_limit=exact_limit)
    pending = await db.write(lambda conn: index.prepare(conn, model))
    return index, f"{embedder.name}, {dim}-d vectors", pending
