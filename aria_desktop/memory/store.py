"""Long-term memories in SQLite: rows, an FTS5 keyword index and a sqlite-vec vector index.

Satisfies ``core.ports.MemoryStore`` structurally (this package may not import core).

Layout (all in the conversations' database file):

* ``memories`` — the rows (source of truth), each with its unit float32 vector (``embedding``)
  and the model that made it.
* ``memories_fts`` — FTS5 over ``content`` and ``subject`` with external content, kept in sync by
  triggers, so a row and its keyword entry are written by the same statement.
* ``memory_vec`` — a ``vec0`` table keyed by the row's ``seq``: the float vector (exact KNN,
  SIMD L2) plus a bit-quantised copy (``coarse``) for a fast first pass over large stores, and
  the status as a metadata column so KNN skips forgotten and superseded memories. Its
  dimension depends on the embedding model, so it is created at run time and rebuilt when the
  model changes.

A memory is written in ONE transaction (row + FTS via trigger + vec0 row): a crash or an error
anywhere leaves it fully present or absent. Both derived indexes can be rebuilt from the rows
(:meth:`SQLiteMemoryStore.reindex`).

Search fuses the BM25 ranking and the vector ranking with reciprocal rank fusion (k=60), then
weights lightly by importance and recency. A keyword hit counts in proportion to the share of
the query's content words it contains, and with a vector leg it must contain more than half of
them: under rank fusion a single shared common word ("office", "number") would otherwise
lift weak matches above the best meaning matches (measured by ``aria bench memory
--quality``). User, model and OCR text never reaches FTS5 syntax
raw: the query is reduced to quoted words (:func:`fts_query`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import math
import re
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from aria_desktop.domain.errors import EmbedderError, MemoryInvalidError, NotFoundError
from aria_desktop.domain.memory import (
    MEMORY_KINDS,
    MEMORY_STATUSES,
    Memory,
    MemoryAction,
    MemoryCandidate,
    MemoryHit,
    MemoryKind,
    MemoryQuery,
    MemoryStatus,
)
from aria_desktop.storage.connection import Connection
from aria_desktop.storage.database import Database

__all__ = [
    "RRF_K",
    "Embedder",
    "ImportReport",
    "SQLiteMemoryStore",
    "content_hash",
    "fts_query",
]

_LOGGER = logging.getLogger(__name__)

RRF_K = 60
"""Reciprocal rank fusion constant: score = sum 1 / (RRF_K + rank)."""
DUPLICATE_COSINE = 0.9
"""A new memory this similar (cosine) to an active one reinforces it instead."""
EXACT_KNN_LIMIT = 20_000
"""Up to this many vectors the KNN is exact (vec0 float scan); above it, a bit-quantised
first pass picks candidates that are re-ranked exactly (measured in ``aria bench memory``)."""
_COARSE_FACTOR = 4
_COARSE_MIN = 64
_MAX_CONTENT_CHARS = 2000
_MAX_QUERY_WORDS = 32
_DAY_S = 86_400.0
_RECENCY_HALF_LIFE_DAYS = 90.0
_META_MODEL = "embedding_model"
_META_DIM = "embedding_dim"

_WORD_RE = re.compile(r"\w+", re.UNICODE)
_STOPWORD_TEXT = """a about above after again all am an and any are as at be been before being below
    between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself
    yourselves s t d ll m re ve don doesn didn isn wasn aren weren won wouldn shouldn whats
    what's tell know remember please
    called call named name like get got thing things much many also still ever"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_COLUMNS = (
    "seq, id, content, kind, subject, topic, importance, confidence, status, provenance, "
    "conversation_id, message_ids, created_at, updated_at, last_accessed_at, access_count, "
    "embedding_model, supersedes, superseded_by"
)
_CANDIDATE_COLUMNS = (
    "id, content, kind, subject, topic, importance, confidence, conversation_id, message_ids, "
    "created_at"
)


class Embedder(Protocol):
    """What the store needs from an embedding model (``LocalEmbedder``, ``OllamaEmbedder``)."""

    @property
    def model_id(self) -> str: ...

    @property
    def name(self) -> str: ...

    async def dimension(self) -> int: ...

    async def embed(self, texts: Sequence[str]) -> list[bytes]: ...

    async def warm_up(self) -> None: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, kw_only=True)
class ImportReport:
    """Outcome of an import: rows added, lines skipped (already present), lines rejected."""

    added: int
    skipped: int
    rejected: int


@dataclass(frozen=True, kw_only=True)
class _NewMemory:
    """A validated memory about to be written (vector already computed, if any)."""

    content: str
    kind: str
    subject: str
    topic: str
    importance: float
    confidence: float
    provenance: str
    conversation_id: str | None
    message_ids: tuple[int, ...]
    supersedes: str | None
    vector: bytes | None
    id: str | None = None
    status: str = "active"
    created_at: float | None = None
    updated_at: float | None = None
    last_accessed_at: float | None = None
    access_count: int = 0
    superseded_by: str | None = None


# --- text helpers ---------------------------------------------------------------------------


def normalize_content(text: str) -> str:
    """Collapse whitespace; the stored form of memory text."""
    return " ".join(text.split())


def content_hash(text: str) -> str:
    """Hash identifying "the same statement": case, spacing and final punctuation ignored."""
    canonical = " ".join(text.casefold().split()).rstrip(".!?;,: ")
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression for plain text: quoted content words joined by OR.

    Every token is a run of word characters wrapped in double quotes, so no FTS5 operator,
    column filter, prefix or NEAR group can be expressed by the input (``NEAR(" OR *`` becomes
    ``"near"``). Common function words and question-frame words ("what is X called") are
    dropped so they do not swamp BM25. Returns "" when nothing searchable is left.
    """
    words: list[str] = []
    for word in _WORD_RE.findall(text.casefold()):
        if word in _STOPWORDS or word in words:
            continue
        words.append(word)
        if len(words) >= _MAX_QUERY_WORDS:
            break
    return " OR ".join(f'"{word}"' for word in words)


def _stem(word: str) -> str:
    """A light suffix strip, close enough to FTS5's porter stemmer to compare word sets."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def query_terms(text: str) -> set[str]:
    """The stemmed content words :func:`fts_query` searches for."""
    return {_stem(w) for w in _WORD_RE.findall(text.casefold()) if w not in _STOPWORDS}


def term_coverage(terms: set[str], content: str) -> float:
    """Fraction of the query's content words found in ``content`` (at least one word)."""
    if not terms:
        return 0.0
    found = terms & {_stem(w) for w in _WORD_RE.findall(content.casefold())}
    return max(len(found), 1) / len(terms)


def cosine_from_l2(distance: float) -> float:
    """Cosine similarity of two unit vectors from their L2 distance."""
    return 1.0 - (distance * distance) / 2.0


def _new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(6)}"


def _vector_dim(vector: bytes) -> int:
    return len(vector) // 4


def _decode_ids(raw: str | None) -> tuple[int, ...]:
    try:
        values = json.loads(raw or "[]")
    except ValueError:
        return ()
    return tuple(int(v) for v in values if isinstance(v, int))


def _row_to_memory(row: Sequence[Any]) -> Memory:
    return Memory(
        id=row[1],
        content=row[2],
        kind=cast(MemoryKind, row[3]),
        subject=row[4],
        topic=row[5],
        importance=float(row[6]),
        confidence=float(row[7]),
        status=cast(MemoryStatus, row[8]),
        provenance=row[9],
        conversation_id=row[10],
        message_ids=_decode_ids(row[11]),
        created_at=float(row[12]),
        updated_at=float(row[13]),
        last_accessed_at=None if row[14] is None else float(row[14]),
        access_count=int(row[15]),
        embedding_model=row[16] or "",
        supersedes=row[17],
        superseded_by=row[18],
    )


def _row_to_candidate(row: Sequence[Any]) -> MemoryCandidate:
    return MemoryCandidate(
        id=row[0],
        content=row[1],
        kind=cast(MemoryKind, row[2]),
        subject=row[3],
        topic=row[4],
        importance=float(row[5]),
        confidence=float(row[6]),
        conversation_id=row[7],
        message_ids=_decode_ids(row[8]),
        created_at=float(row[9]),
    )


def _clamp01(value: float, what: str) -> float:
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise MemoryInvalidError(
            f"{what} must be between 0 and 1, got {value!r}.", hint=f"Give {what} as 0-1."
        )
    return float(value)


def _check_fields(content: str, kind: str, subject: str) -> tuple[str, str, str]:
    text = normalize_content(content)
    if not text:
        raise MemoryInvalidError("A memory cannot be empty.", hint="Say what to remember.")
    if len(text) > _MAX_CONTENT_CHARS:
        raise MemoryInvalidError(
            f"A memory is limited to {_MAX_CONTENT_CHARS} characters (got {len(text)}).",
            hint="Store the gist, or split it into several memories.",
        )
    if kind not in MEMORY_KINDS:
        raise MemoryInvalidError(
            f"Unknown memory kind {kind!r}.", hint=f"Use one of: {', '.join(MEMORY_KINDS)}."
        )
    who = " ".join(subject.split()) or "user"
    return text, kind, who[:200]


def _placeholders(values: Sequence[Any]) -> str:
    return ", ".join("?" for _ in values)


# --- the store ------------------------------------------------------------------------------


class SQLiteMemoryStore:
    """Memories over the owner's :class:`Database`.

    Call :meth:`open` once before use (it prepares the vector index for the embedder), and
    :meth:`sync_vectors` (in the background) to give vectors to rows that lack them.
    """

    def __init__(
        self,
        db: Database,
        embedder: Embedder | None,
        *,
        clock: Callable[[], float] = time.time,
        exact_knn_limit: int = EXACT_KNN_LIMIT,
    ) -> None:
        """Bind to ``db``; ``embedder`` None means keyword search only."""
        self._db = db
        self._embedder = embedder
        self._clock = clock
        self._exact_limit = exact_knn_limit
        self._dim: int | None = None
        self._coarse = False
        self._vectors_on = False
        self._vector_rows = 0
        self._reason = "not opened yet"

    # --- state ----------------------------------------------------------------------------

    @property
    def vector_search_available(self) -> bool:
        """Whether searches use the vector leg (embedder + sqlite-vec + index ready)."""
        return self._vectors_on

    @property
    def vector_status(self) -> str:
        """Why vector search is off, or what it uses when on (for doctor and capabilities)."""
        return self._reason

    @property
    def embedding_model(self) -> str:
        """Model id vectors are made with ("" without an embedder)."""
        return self._embedder.model_id if self._embedder is not None else ""

    async def open(self) -> int:
        """Prepare the vector index for the configured embedder.

        Creates ``memory_vec`` for the embedder's dimension, or drops and recreates it when the
        model changed since the vectors were made. Without an embedder, sqlite-vec or a
        reachable model, search stays keyword-only and :attr:`vector_status` says why.

        Returns:
            How many memories lack a vector from the current model (fix with
            :meth:`sync_vectors`).
        """
        self._vectors_on = False
        if self._embedder is None:
            self._reason = "no embedder (memory.embedder = none): keyword search only"
            return 0
        if not self._db.vec_available:
            self._reason = "sqlite-vec cannot be loaded: keyword search only"
            return 0
        try:
            dim = await self._embedder.dimension()
        except EmbedderError as exc:
            self._reason = f"{exc} (keyword search only)"
            _LOGGER.warning("Memory vector search is off: %s", exc)
            return 0
        model = self._embedder.model_id
        pending = await self._db.write(lambda conn: self._prepare_vec_table(conn, model, dim))
        self._dim = dim
        self._coarse = dim % 8 == 0
        self._vectors_on = True
        self._reason = f"{self._embedder.name}, {dim}-d vectors"
        return pending

    def _prepare_vec_table(self, conn: Connection, model: str, dim: int) -> int:
        meta = dict(conn.execute("SELECT key, value FROM memory_meta").fetchall())
        exists = (
            conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'memory_vec' AND type = 'table'"
            ).fetchone()
            is not None
        )
        if not exists or meta.get(_META_MODEL) != model or meta.get(_META_DIM) != str(dim):
            if exists:
                _LOGGER.info(
                    "Embedding model changed (%s -> %s): rebuilding the vector index",
                    meta.get(_META_MODEL),
                    model,
                )
            self._create_vec_table(conn, dim)
            conn.execute("UPDATE memories SET embedding = NULL, embedding_model = ''")
            conn.executemany(
                "INSERT OR REPLACE INTO memory_meta (key, value) VALUES (?, ?)",
                [(_META_MODEL, model), (_META_DIM, str(dim))],
            )
        self._vector_rows = int(
            conn.execute(
                "SELECT count(*) FROM memories WHERE embedding_model = ?", (model,)
            ).fetchone()[0]
        )
        return int(
            conn.execute(
                "SELECT count(*) FROM memories WHERE embedding_model != ?", (model,)
            ).fetchone()[0]
        )

    @staticmethod
    def _create_vec_table(conn: Connection, dim: int) -> None:
        conn.execute("DROP TABLE IF EXISTS memory_vec")
        coarse = f", coarse bit[{dim}]" if dim % 8 == 0 else ""
        conn.execute(
            "CREATE VIRTUAL TABLE memory_vec USING vec0("
            f"status text, embedding float[{dim}] distance_metric=l2{coarse})"
        )

    # --- embedding helpers ----------------------------------------------------------------

    async def _embed(self, texts: Sequence[str]) -> list[bytes] | None:
        """Vectors for ``texts``, or None (logged) when vector search is off or fails."""
        if not self._vectors_on or self._embedder is None or not texts:
            return None
        try:
            vectors = await self._embedder.embed(texts)
        except EmbedderError as exc:
            _LOGGER.warning("Embedding failed; keyword search only for now: %s", exc)
            return None
        if any(_vector_dim(v) != self._dim for v in vectors):
            _LOGGER.warning("Embedder returned vectors of the wrong dimension; ignored")
            return None
        return vectors

    def _insert_vector(self, conn: Connection, seq: int, status: str, vector: bytes) -> None:
        if self._coarse:
            conn.execute(
                "INSERT INTO memory_vec (rowid, status, embedding, coarse) "
                "VALUES (?1, ?2, ?3, vec_quantize_binary(vec_f32(?3)))",
                (seq, status, vector),
            )
        else:
            conn.execute(
                "INSERT INTO memory_vec (rowid, status, embedding) VALUES (?, ?, ?)",
                (seq, status, vector),
            )

    def _set_vector_status(self, conn: Connection, seq: int, status: str) -> None:
        if self._vectors_on:
            conn.execute("UPDATE memory_vec SET status = ? WHERE rowid = ?", (status, seq))

    def _knn(
        self, conn: Connection, vector: bytes, k: int, *, active_only: bool
    ) -> list[tuple[int, float]]:
        """Nearest rows to ``vector``: ``(seq, L2 distance)``, closest first."""
        status = " AND status = 'active'" if active_only else ""
        if self._coarse and self._vector_rows > self._exact_limit:
            coarse_k = max(k * _COARSE_FACTOR, _COARSE_MIN)
            candidates = [
                int(row[0])
                for row in conn.execute(
                    "SELECT rowid FROM memory_vec WHERE coarse MATCH "
                    f"vec_quantize_binary(vec_f32(?)) AND k = ?{status}",
                    (vector, coarse_k),
                )
            ]
            if not candidates:
                return []
            rows = conn.execute(
                "SELECT seq, vec_distance_l2(embedding, ?) AS d FROM memories "
                f"WHERE seq IN ({_placeholders(candidates)}) AND embedding IS NOT NULL "
                "ORDER BY d LIMIT ?",
                (vector, *candidates, k),
            ).fetchall()
        else:
            rows = conn.execute(
                f"SELECT rowid, distance FROM memory_vec WHERE embedding MATCH ? AND k = ?{status}",
                (vector, k),
            ).fetchall()
        return [(int(seq), float(distance)) for seq, distance in rows]

    # --- writing ----------------------------------------------------------------------------

    async def add(
        self,
        content: str,
        *,
        kind: str = "fact",
        subject: str = "user",
        topic: str = "",
        importance: float = 0.5,
        confidence: float = 1.0,
        provenance: str = "manual",
        conversation_id: str | None = None,
        message_ids: Sequence[int] = (),
        supersedes: str | None = None,
    ) -> tuple[Memory, MemoryAction]:
        """Remember ``content``, or reinforce the memory it duplicates, or supersede one.

        * Same content hash as an active memory, or cosine >= 0.9 to one: that memory is
          reinforced (confidence and importance raised, ``updated_at`` bumped); nothing new.
        * Otherwise, if ``supersedes`` names an active memory about the same subject, or an
          active memory has the same subject and ``topic``: the new memory replaces it (the old
          one is marked ``superseded`` and linked both ways).
        * Otherwise it is added.

        Returns:
            The stored (new or reinforced) memory and what happened.

        Raises:
            MemoryInvalidError: empty or too long content, unknown kind, bad 0-1 values.
        """
        text, kind, subject = _check_fields(content, kind, subject)
        item = _NewMemory(
            content=text,
            kind=kind,
            subject=subject,
            topic=" ".join(topic.split()).casefold()[:200],
            importance=_clamp01(importance, "importance"),
            confidence=_clamp01(confidence, "confidence"),
            provenance=provenance or "manual",
            conversation_id=conversation_id,
            message_ids=tuple(message_ids),
            supersedes=supersedes,
            vector=None,
        )
        vectors = await self._embed([text])
        if vectors is not None:
            item = _replace(item, vector=vectors[0])
        now = self._clock()
        result = await self._db.write(lambda conn: self._add_tx(conn, item, now, dedupe=True))
        if result[1] != "reinforced" and item.vector is not None:
            self._vector_rows += 1
        return result

    async def add_many(
        self, items: Iterable[Mapping[str, Any]], *, dedupe: bool = True, batch: int = 500
    ) -> int:
        """Add many memories, ``batch`` per transaction (bulk loads, benchmarks).

        Each item has the keyword arguments of :meth:`add`, plus optionally ``vector`` (unit
        float32 bytes of the right dimension, used instead of embedding ``content``).

        Returns:
            How many new memories were written (reinforcements not counted).
        """
        written = 0
        chunk: list[_NewMemory] = []

        async def flush() -> None:
            nonlocal written
            missing = [i for i, item in enumerate(chunk) if item.vector is None]
            if missing:
                vectors = await self._embed([chunk[i].content for i in missing])
                if vectors is not None:
                    for i, vector in zip(missing, vectors, strict=True):
                        chunk[i] = _replace(chunk[i], vector=vector)
            now = self._clock()
            items_now = list(chunk)

            def tx(conn: Connection) -> int:
                added = 0
                for item in items_now:
                    if self._add_tx(conn, item, now, dedupe=dedupe)[1] != "reinforced":
                        added += 1
                return added

            added = await self._db.write(tx)
            self._vector_rows += sum(1 for item in items_now if item.vector is not None)
            written += added
            chunk.clear()

        for raw in items:
            text, kind, subject = _check_fields(
                str(raw.get("content", "")), str(raw.get("kind", "fact")), raw.get("subject") or ""
            )
            vector = raw.get("vector")
            if vector is not None and (not self._vectors_on or _vector_dim(vector) != self._dim):
                vector = None
            chunk.append(
                _NewMemory(
                    content=text,
                    kind=kind,
                    subject=subject,
                    topic=str(raw.get("topic", "")).casefold(),
                    importance=_clamp01(float(raw.get("importance", 0.5)), "importance"),
                    confidence=_clamp01(float(raw.get("confidence", 1.0)), "confidence"),
                    provenance=str(raw.get("provenance", "manual")),
                    conversation_id=raw.get("conversation_id"),
                    message_ids=tuple(raw.get("message_ids", ())),
                    supersedes=raw.get("supersedes"),
                    vector=vector,
                )
            )
            if len(chunk) >= batch:
                await flush()
        if chunk:
            await flush()
        return written

    def _add_tx(
        self, conn: Connection, item: _NewMemory, now: float, *, dedupe: bool
    ) -> tuple[Memory, MemoryAction]:
        if dedupe:
            existing = self._find_duplicate(conn, item)
            if existing is not None:
                return self._reinforce(conn, existing, item, now), "reinforced"
        old = self._find_superseded(conn, item) if dedupe or item.supersedes else None
        memory_id = item.id or _new_id("mem")
        cursor = conn.execute(
            "INSERT INTO memories (id, content, content_hash, kind, subject, topic, importance, "
            "confidence, status, provenance, conversation_id, message_ids, created_at, "
            "updated_at, last_accessed_at, access_count, embedding_model, embedding, "
            "supersedes, superseded_by) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                memory_id,
                item.content,
                content_hash(item.content),
                item.kind,
                item.subject,
                item.topic,
                item.importance,
                item.confidence,
                item.status,
                item.provenance,
                item.conversation_id,
                json.dumps(list(item.message_ids)),
                item.created_at if item.created_at is not None else now,
                item.updated_at if item.updated_at is not None else now,
                item.last_accessed_at,
                item.access_count,
                self.embedding_model if item.vector is not None else "",
                item.vector,
                old[1] if old is not None else item.supersedes,
                item.superseded_by,
            ),
        )
        seq = int(cursor.lastrowid or 0)
        if item.vector is not None:
            self._insert_vector(conn, seq, item.status, item.vector)
        action: MemoryAction = "added"
        if old is not None:
            conn.execute(
                "UPDATE memories SET status = 'superseded', superseded_by = ?, updated_at = ? "
                "WHERE seq = ?",
                (memory_id, now, old[0]),
            )
            self._set_vector_status(conn, old[0], "superseded")
            action = "superseded"
        row = conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE seq = ?", (seq,)).fetchone()
        return _row_to_memory(row), action

    def _find_duplicate(self, conn: Connection, item: _NewMemory) -> tuple[Any, ...] | None:
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE content_hash = ? AND status = 'active' LIMIT 1",
            (content_hash(item.content),),
        ).fetchone()
        if row is not None:
            return tuple(row)
        if item.vector is None or not self._vectors_on:
            return None
        near = self._knn(conn, item.vector, 1, active_only=True)
        if near and cosine_from_l2(near[0][1]) >= DUPLICATE_COSINE:
            found = conn.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE seq = ? AND status = 'active'",
                (near[0][0],),
            ).fetchone()
            return tuple(found) if found is not None else None
        return None

    def _find_superseded(self, conn: Connection, item: _NewMemory) -> tuple[int, str] | None:
        row = None
        if item.supersedes:
            row = conn.execute(
                "SELECT seq, id FROM memories WHERE id = ? AND status = 'active' "
                "AND subject = ? COLLATE NOCASE",
                (item.supersedes, item.subject),
            ).fetchone()
        if row is None and item.topic:
            row = conn.execute(
                "SELECT seq, id FROM memories WHERE subject = ? COLLATE NOCASE AND topic = ? "
                "AND status = 'active' ORDER BY created_at DESC LIMIT 1",
                (item.subject, item.topic),
            ).fetchone()
        return (int(row[0]), str(row[1])) if row is not None else None

    def _reinforce(
        self, conn: Connection, row: Sequence[Any], item: _NewMemory, now: float
    ) -> Memory:
        memory = _row_to_memory(row)
        conn.execute(
            "UPDATE memories SET confidence = min(1.0, max(confidence, ?) + 0.1), "
            "importance = max(importance, ?), updated_at = ?, decayed_at = NULL, "
            "topic = CASE WHEN topic = '' THEN ? ELSE topic END WHERE seq = ?",
            (item.confidence, item.importance, now, item.topic, row[0]),
        )
        fresh = conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE seq = ?", (row[0],))
        _LOGGER.debug("Memory %s reinforced", memory.id)
        return _row_to_memory(fresh.fetchone())

    async def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        kind: str | None = None,
        subject: str | None = None,
        importance: float | None = None,
    ) -> Memory:
        """Correct a memory in place (same id); its keyword entry and vector follow.

        Raises:
            NotFoundError: no memory has this id.
            MemoryInvalidError: the new values are not acceptable.
        """
        current = await self.get(memory_id)
        if current is None:
            raise _not_found(memory_id)
        text, new_kind, new_subject = _check_fields(
            current.content if content is None else content,
            current.kind if kind is None else kind,
            current.subject if subject is None else subject,
        )
        new_importance = (
            current.importance if importance is None else _clamp01(importance, "importance")
        )
        vector: bytes | None = None
        if text != current.content:
            vectors = await self._embed([text])
            vector = vectors[0] if vectors is not None else None
        now = self._clock()

        def tx(conn: Connection) -> Memory:
            row = conn.execute("SELECT seq, content FROM memories WHERE id = ?", (memory_id,))
            found = row.fetchone()
            if found is None:
                raise _not_found(memory_id)
            seq, old_text = int(found[0]), str(found[1])
            conn.execute(
                "UPDATE memories SET content = ?, content_hash = ?, kind = ?, subject = ?, "
                "importance = ?, updated_at = ? WHERE seq = ?",
                (text, content_hash(text), new_kind, new_subject, new_importance, now, seq),
            )
            if text != old_text:
                if self._vectors_on:
                    conn.execute("DELETE FROM memory_vec WHERE rowid = ?", (seq,))
                status = conn.execute("SELECT status FROM memories WHERE seq = ?", (seq,))
                if vector is not None:
                    self._insert_vector(conn, seq, str(status.fetchone()[0]), vector)
                conn.execute(
                    "UPDATE memories SET embedding = ?, embedding_model = ? WHERE seq = ?",
                    (vector, self.embedding_model if vector is not None else "", seq),
                )
            return _row_to_memory(
                conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE seq = ?", (seq,)).fetchone()
            )

        return await self._db.write(tx)

    async def forget(self, memory_id: str) -> Memory:
        """Mark a memory ``forgotten``: no search finds it unless asked for forgotten ones.

        Raises:
            NotFoundError: no memory has this id.
        """
        now = self._clock()

        def tx(conn: Connection) -> Memory:
            found = conn.execute("SELECT seq FROM memories WHERE id = ?", (memory_id,)).fetchone()
            if found is None:
                raise _not_found(memory_id)
            conn.execute(
                "UPDATE memories SET status = 'forgotten', updated_at = ? WHERE seq = ?",
                (now, found[0]),
            )
            self._set_vector_status(conn, int(found[0]), "forgotten")
            return _row_to_memory(
                conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE seq = ?", found).fetchone()
            )

        return await self._db.write(tx)

    async def decay(
        self, *, after_days: float, per_day: float, floor: float, now: float | None = None
    ) -> int:
        """Lower the confidence of active memories never accessed for ``after_days``.

        Confidence falls by ``per_day`` for each day past ``after_days`` since the memory was
        made (or since the last decay run), never below ``floor``. Idempotent over time: two
        runs on the same day lower it once.

        Returns:
            How many memories decayed.
        """
        at = self._clock() if now is None else now
        after_s = after_days * _DAY_S

        def tx(conn: Connection) -> int:
            cursor = conn.execute(
                "UPDATE memories SET confidence = max(?1, confidence - ?2 * "
                "((?3 - max(coalesce(decayed_at, 0), created_at + ?4)) / ?5)), decayed_at = ?3 "
                "WHERE status = 'active' AND access_count = 0 AND created_at + ?4 < ?3 "
                "AND confidence > ?1",
                (floor, per_day, at, after_s, _DAY_S),
            )
            return int(cursor.rowcount)

        return await self._db.write(tx)

    # --- reading ----------------------------------------------------------------------------

    async def get(self, memory_id: str) -> Memory | None:
        """One memory by id (any status), or None."""

        def read(conn: Connection) -> Memory | None:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE id = ?", (memory_id,)
            ).fetchone()
            return _row_to_memory(row) if row is not None else None

        return await self._db.read(read)

    async def list_memories(
        self,
        *,
        kinds: Sequence[str] = (),
        subject: str | None = None,
        statuses: Sequence[str] = ("active",),
        limit: int = 100,
        offset: int = 0,
    ) -> list[Memory]:
        """Memories newest first, filtered."""
        where, params = _filters(kinds, subject, statuses, None, None)

        def read(conn: Connection) -> list[Memory]:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM memories AS m WHERE {where} "
                "ORDER BY m.created_at DESC, m.seq DESC LIMIT ? OFFSET ?",
                (*params, max(0, limit), max(0, offset)),
            ).fetchall()
            return [_row_to_memory(row) for row in rows]

        return await self._db.read(read)

    async def count(self, statuses: Sequence[str] = ("active",)) -> int:
        """How many memories have one of ``statuses``."""
        where, params = _filters((), None, statuses, None, None)

        def read(conn: Connection) -> int:
            sql = f"SELECT count(*) FROM memories AS m WHERE {where}"
            return int(conn.execute(sql, params).fetchone()[0])

        return await self._db.read(read)

    async def nearest(self, vector: bytes, k: int = 10) -> list[tuple[str, float]]:
        """The vector leg alone: ids of the ``k`` active memories nearest to ``vector``.

        Returns ``(memory id, cosine similarity)``, most similar first (benchmarks, diagnosis).
        """
        if not self._vectors_on:
            return []

        def read(conn: Connection) -> list[tuple[str, float]]:
            near = self._knn(conn, vector, k, active_only=True)
            if not near:
                return []
            seqs = [seq for seq, _ in near]
            ids = dict(
                conn.execute(
                    f"SELECT seq, id FROM memories WHERE seq IN ({_placeholders(seqs)})", seqs
                ).fetchall()
            )
            return [(str(ids[seq]), cosine_from_l2(d)) for seq, d in near if seq in ids]

        return await self._db.read(read)

    async def has_active(self) -> bool:
        """Whether any active memory exists (lets recall skip embedding on an empty store)."""

        def read(conn: Connection) -> bool:
            row = conn.execute("SELECT 1 FROM memories WHERE status = 'active' LIMIT 1").fetchone()
            return row is not None

        return await self._db.read(read)

    async def touch(self, ids: Sequence[str]) -> None:
        """Record that these memories were used now (access count, last-accessed time)."""
        if ids:
            now = self._clock()
            await self._db.write(lambda conn: _touch(conn, ids, now))

    async def search(self, query: MemoryQuery) -> list[MemoryHit]:
        """Hybrid search (see module docstring); updates access statistics of the hits."""
        if query.limit <= 0:
            return []
        vector: bytes | None = None
        if query.mode != "lexical" and query.text.strip():
            vectors = await self._embed([query.text])
            vector = vectors[0] if vectors is not None else None
        now = self._clock()
        hits = await self._db.read(lambda conn: self._search_tx(conn, query, vector, now))
        if query.touch and hits:
            ids = [hit.memory.id for hit in hits]
            await self._db.write(lambda conn: _touch(conn, ids, now))
        return hits

    def _search_tx(
        self, conn: Connection, query: MemoryQuery, vector: bytes | None, now: float
    ) -> list[MemoryHit]:
        where, params = _filters(
            query.kinds, query.subject, query.statuses, query.since, query.until
        )
        depth = max(query.limit * 2, 20)
        lexical: list[int] = []
        terms = query_terms(query.text)
        coverage: dict[int, float] = {}
        if query.mode in ("hybrid", "lexical"):
            match = fts_query(query.text)
            if match:
                strict = vector is not None and query.mode == "hybrid"
                for seq, content, subject in conn.execute(
                    # CROSS JOIN keeps the FTS index as the outer loop (SQLite would otherwise
                    # scan memories and test MATCH row by row).
                    "SELECT m.seq, m.content, m.subject FROM memories_fts CROSS JOIN memories AS m "
                    "ON m.seq = memories_fts.rowid "
                    f"WHERE memories_fts MATCH ? AND {where} "
                    "ORDER BY bm25(memories_fts, 1.0, 0.3) LIMIT ?",
                    (match, *params, depth),
                ):
                    share = term_coverage(terms, f"{content} {subject}")
                    # With a vector leg, a keyword hit must hold most of the query's words: one
                    # shared common word is weak evidence, and under rank fusion it would push
                    # better meaning matches out of the top results.
                    if strict and share <= 0.5:
                        continue
                    coverage[int(seq)] = share
                    lexical.append(int(seq))
        semantic: list[int] = []
        if vector is not None and query.mode in ("hybrid", "vector"):
            active_only = tuple(query.statuses) == ("active",)
            near = self._knn(conn, vector, depth, active_only=active_only)
            if near:
                seqs = [seq for seq, _ in near]
                allowed = {
                    int(row[0])
                    for row in conn.execute(
                        f"SELECT m.seq FROM memories AS m WHERE m.seq IN ({_placeholders(seqs)}) "
                        f"AND {where}",
                        (*seqs, *params),
                    )
                }
                semantic = [
                    seq
                    for seq, distance in near
                    if seq in allowed and cosine_from_l2(distance) >= query.min_similarity
                ]
        lexical_rank = {seq: rank for rank, seq in enumerate(lexical, start=1)}
        vector_rank = {seq: rank for rank, seq in enumerate(semantic, start=1)}
        candidates = set(lexical_rank) | set(vector_rank)
        if not candidates:
            return []
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE seq IN ({_placeholders(list(candidates))})",
            tuple(candidates),
        ).fetchall()
        hits: list[MemoryHit] = []
        for row in rows:
            memory = _row_to_memory(row)
            seq = int(row[0])
            # Reciprocal rank fusion; a keyword hit counts in proportion to the share of the
            # query's words it contains, so one shared common word ("session") cannot push a
            # strong meaning match out of the top results.
            score = 0.0
            if seq in lexical_rank:
                score += coverage[seq] / (RRF_K + lexical_rank[seq])
            if seq in vector_rank:
                score += 1.0 / (RRF_K + vector_rank[seq])
            age_days = max(0.0, now - memory.created_at) / _DAY_S
            recency = 0.5 ** (age_days / _RECENCY_HALF_LIFE_DAYS)
            weight = (1.0 + 0.2 * (memory.importance - 0.5)) * (1.0 + 0.05 * recency)
            hits.append(
                MemoryHit(
                    memory=memory,
                    score=score * weight,
                    lexical_rank=lexical_rank.get(seq),
                    vector_rank=vector_rank.get(seq),
                )
            )
        hits.sort(key=lambda hit: (-hit.score, hit.memory.id))
        return hits[: query.limit]

    # --- inbox ------------------------------------------------------------------------------

    async def add_candidate(
        self,
        content: str,
        *,
        kind: str = "fact",
        subject: str = "user",
        topic: str = "",
        importance: float = 0.5,
        confidence: float = 0.8,
        conversation_id: str | None = None,
        message_ids: Sequence[int] = (),
        supersedes: str | None = None,
    ) -> MemoryCandidate | None:
        """Put a proposed memory in the inbox; None when it is already there or remembered."""
        text, kind, subject = _check_fields(content, kind, subject)
        item_importance = _clamp01(importance, "importance")
        item_confidence = _clamp01(confidence, "confidence")
        now = self._clock()
        digest = content_hash(text)

        def tx(conn: Connection) -> MemoryCandidate | None:
            known = conn.execute(
                "SELECT 1 FROM memories WHERE content_hash = ? AND status = 'active'", (digest,)
            ).fetchone()
            if known is not None:
                return None
            for (existing,) in conn.execute("SELECT content FROM memory_candidates"):
                if content_hash(str(existing)) == digest:
                    return None
            candidate_id = _new_id("cand")
            conn.execute(
                "INSERT INTO memory_candidates (id, content, kind, subject, topic, importance, "
                "confidence, conversation_id, message_ids, supersedes, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    candidate_id,
                    text,
                    kind,
                    subject,
                    " ".join(topic.split()).casefold(),
                    item_importance,
                    item_confidence,
                    conversation_id,
                    json.dumps(list(message_ids)),
                    supersedes,
                    now,
                ),
            )
            row = conn.execute(
                f"SELECT {_CANDIDATE_COLUMNS} FROM memory_candidates WHERE id = ?",
                (candidate_id,),
            ).fetchone()
            return _row_to_candidate(row)

        return await self._db.write(tx)

    async def list_candidates(self) -> list[MemoryCandidate]:
        """The inbox, oldest first."""
        return await self._db.read(
            lambda conn: [
                _row_to_candidate(row)
                for row in conn.execute(
                    f"SELECT {_CANDIDATE_COLUMNS} FROM memory_candidates ORDER BY created_at, id"
                )
            ]
        )

    async def approve_candidate(self, candidate_id: str) -> tuple[Memory, MemoryAction]:
        """Turn an inbox entry into a memory (same rules as :meth:`add`) and remove it.

        Raises:
            NotFoundError: no candidate has this id.
        """
        found = await self._db.read(
            lambda conn: conn.execute(
                f"SELECT {_CANDIDATE_COLUMNS}, supersedes FROM memory_candidates WHERE id = ?",
                (candidate_id,),
            ).fetchone()
        )
        if found is None:
            raise _candidate_not_found(candidate_id)
        candidate = _row_to_candidate(found)
        vectors = await self._embed([candidate.content])
        item = _NewMemory(
            content=candidate.content,
            kind=candidate.kind,
            subject=candidate.subject,
            topic=candidate.topic,
            importance=candidate.importance,
            confidence=candidate.confidence,
            provenance="conversation",
            conversation_id=candidate.conversation_id,
            message_ids=candidate.message_ids,
            supersedes=found[10],
            vector=vectors[0] if vectors is not None else None,
        )
        now = self._clock()

        def tx(conn: Connection) -> tuple[Memory, MemoryAction]:
            gone = conn.execute("DELETE FROM memory_candidates WHERE id = ?", (candidate_id,))
            if gone.rowcount == 0:
                raise _candidate_not_found(candidate_id)
            return self._add_tx(conn, item, now, dedupe=True)

        result = await self._db.write(tx)
        if result[1] != "reinforced" and item.vector is not None:
            self._vector_rows += 1
        return result

    async def reject_candidate(self, candidate_id: str) -> None:
        """Drop an inbox entry.

        Raises:
            NotFoundError: no candidate has this id.
        """

        def tx(conn: Connection) -> None:
            gone = conn.execute("DELETE FROM memory_candidates WHERE id = ?", (candidate_id,))
            if gone.rowcount == 0:
                raise _candidate_not_found(candidate_id)

        await self._db.write(tx)

    # --- derived indexes ------------------------------------------------------------------

    async def sync_vectors(self, *, batch: int = 256) -> int:
        """Give a current-model vector to every memory lacking one (drift repair).

        Runs in batches (one transaction each), so it can run in the background while ARIA
        is used; a row edited meanwhile is skipped and picked up next time.

        Returns:
            How many vectors were written.
        """
        if not self._vectors_on:
            return 0
        model = self.embedding_model
        written = 0
        while True:
            rows: list[tuple[int, str, str]] = await self._db.read(
                lambda conn: [
                    (int(r[0]), str(r[1]), str(r[2]))
                    for r in conn.execute(
                        "SELECT seq, content, status FROM memories WHERE embedding_model != ? "
                        "ORDER BY seq LIMIT ?",
                        (model, batch),
                    )
                ]
            )
            if not rows:
                return written
            vectors = await self._embed([text for _, text, _ in rows])
            if vectors is None:
                return written
            pairs = list(zip(rows, vectors, strict=True))

            def tx(
                conn: Connection, pairs: list[tuple[tuple[int, str, str], bytes]] = pairs
            ) -> int:
                done = 0
                for (seq, text, _status), vector in pairs:
                    current = conn.execute(
                        "SELECT status FROM memories WHERE seq = ? AND content = ?", (seq, text)
                    ).fetchone()
                    if current is None:
                        continue
                    conn.execute("DELETE FROM memory_vec WHERE rowid = ?", (seq,))
                    self._insert_vector(conn, seq, str(current[0]), vector)
                    conn.execute(
                        "UPDATE memories SET embedding = ?, embedding_model = ? WHERE seq = ?",
                        (vector, model, seq),
                    )
                    done += 1
                return done

            done = await self._db.write(tx)
            self._vector_rows += done
            written += done
            if done == 0:
                return written

    async def reindex(self) -> tuple[int, int]:
        """Rebuild the keyword index and all vectors from the rows.

        Returns:
            (rows in the keyword index, vectors written).
        """
        fts_rows = await self._db.write(_rebuild_fts)
        vectors = 0
        if self._embedder is not None and self._db.vec_available:
            await self.open()
            if self._vectors_on and self._dim is not None:
                dim = self._dim

                def reset(conn: Connection) -> None:
                    self._create_vec_table(conn, dim)
                    conn.execute("UPDATE memories SET embedding = NULL, embedding_model = ''")

                await self._db.write(reset)
                self._vector_rows = 0
                vectors = await self.sync_vectors()
        _LOGGER.info("Memory reindexed: %d keyword rows, %d vectors", fts_rows, vectors)
        return fts_rows, vectors

    async def check_consistency(self) -> dict[str, int]:
        """Counts that must agree for a healthy index (tests, doctor): rows, FTS, vectors."""

        def read(conn: Connection) -> dict[str, int]:
            counts = {
                "rows": int(conn.execute("SELECT count(*) FROM memories").fetchone()[0]),
                "fts": int(conn.execute("SELECT count(*) FROM memories_fts").fetchone()[0]),
                "with_vector": int(
                    conn.execute(
                        "SELECT count(*) FROM memories WHERE embedding IS NOT NULL"
                    ).fetchone()[0]
                ),
                "vectors": 0,
            }
            has_vec = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'memory_vec'"
            ).fetchone()
            if has_vec is not None and self._db.vec_available:
                counts["vectors"] = int(
                    conn.execute("SELECT count(*) FROM memory_vec").fetchone()[0]
                )
            return counts

        return await self._db.read(read)

    # --- export / import ------------------------------------------------------------------

    async def export_rows(self) -> list[dict[str, Any]]:
        """Every memory (all statuses) as JSON-ready dicts, oldest first (no vectors)."""

        def read(conn: Connection) -> list[dict[str, Any]]:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM memories ORDER BY seq").fetchall()
            return [_export_dict(_row_to_memory(row)) for row in rows]

        return await self._db.read(read)

    async def import_rows(self, lines: Iterable[Mapping[str, Any]]) -> ImportReport:
        """Import exported memories; a memory whose id (or active content) exists is skipped.

        Importing the same file twice therefore adds nothing the second time. Lines that are
        not valid memories are counted as rejected (and logged), the rest still import.
        """
        items: list[_NewMemory] = []
        rejected = 0
        for number, raw in enumerate(lines, start=1):
            try:
                items.append(_import_item(raw))
            except (MemoryInvalidError, ValueError, TypeError, KeyError) as exc:
                rejected += 1
                _LOGGER.warning("Import: line %d rejected: %s", number, exc)
        vectors = await self._embed([item.content for item in items])
        if vectors is not None:
            items = [_replace(i, vector=v) for i, v in zip(items, vectors, strict=True)]
        now = self._clock()

        def tx(conn: Connection) -> tuple[int, int]:
            added = skipped = 0
            for item in items:
                exists = conn.execute(
                    "SELECT 1 FROM memories WHERE id = ? OR (content_hash = ? AND status = ?)",
                    (item.id, content_hash(item.content), "active"),
                ).fetchone()
                if exists is not None and (
                    item.status == "active"
                    or conn.execute("SELECT 1 FROM memories WHERE id = ?", (item.id,)).fetchone()
                ):
                    skipped += 1
                    continue
                self._add_tx(conn, item, now, dedupe=False)
                added += 1
            return added, skipped

        added, skipped = await self._db.write(tx)
        self._vector_rows += sum(1 for item in items if item.vector is not None)
        return ImportReport(added=added, skipped=skipped, rejected=rejected)


# --- module helpers -------------------------------------------------------------------------


def _replace(item: _NewMemory, **changes: Any) -> _NewMemory:
    return dataclasses.replace(item, **changes)


def _not_found(memory_id: str) -> NotFoundError:
    return NotFoundError(
        f"There is no memory {memory_id!r}.", hint="List them with `aria memory list`."
    )


def _candidate_not_found(candidate_id: str) -> NotFoundError:
    return NotFoundError(
        f"There is no inbox entry {candidate_id!r}.", hint="See them with `aria memory inbox`."
    )


def _filters(
    kinds: Sequence[str],
    subject: str | None,
    statuses: Sequence[str],
    since: float | None,
    until: float | None,
) -> tuple[str, tuple[Any, ...]]:
    """SQL conditions on alias ``m`` and their parameters."""
    clauses: list[str] = []
    params: list[Any] = []
    bad = [s for s in statuses if s not in MEMORY_STATUSES]
    bad_kinds = [k for k in kinds if k not in MEMORY_KINDS]
    if bad or bad_kinds:
        raise MemoryInvalidError(
            f"Unknown memory {'status' if bad else 'kind'} {(bad or bad_kinds)[0]!r}.",
            hint=f"Kinds: {', '.join(MEMORY_KINDS)}; statuses: {', '.join(MEMORY_STATUSES)}.",
        )
    if statuses:
        clauses.append(f"m.status IN ({_placeholders(statuses)})")
        params.extend(statuses)
    if kinds:
        clauses.append(f"m.kind IN ({_placeholders(kinds)})")
        params.extend(kinds)
    if subject:
        clauses.append("m.subject = ? COLLATE NOCASE")
        params.append(subject)
    if since is not None:
        clauses.append("m.created_at >= ?")
        params.append(since)
    if until is not None:
        clauses.append("m.created_at <= ?")
        params.append(until)
    return (" AND ".join(clauses) or "1"), tuple(params)


def _touch(conn: Connection, ids: Sequence[str], now: float) -> None:
    conn.execute(
        "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? "
        f"WHERE id IN ({_placeholders(ids)})",
        (now, *ids),
    )


def _rebuild_fts(conn: Connection) -> int:
    conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')")
    return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])


_EXPORT_FIELDS = (
    "id",
    "content",
    "kind",
    "subject",
    "topic",
    "importance",
    "confidence",
    "status",
    "provenance",
    "conversation_id",
    "message_ids",
    "created_at",
    "updated_at",
    "last_accessed_at",
    "access_count",
    "supersedes",
    "superseded_by",
)


def _export_dict(memory: Memory) -> dict[str, Any]:
    data = {name: getattr(memory, name) for name in _EXPORT_FIELDS}
    data["message_ids"] = list(memory.message_ids)
    return data


def _import_item(raw: Mapping[str, Any]) -> _NewMemory:
    if not isinstance(raw, Mapping):
        raise MemoryInvalidError("not a JSON object")
    memory_id = raw.get("id")
    if not isinstance(memory_id, str) or not re.fullmatch(r"[A-Za-z0-9_.:-]{1,64}", memory_id):
        raise MemoryInvalidError(f"bad or missing id {memory_id!r}")
    text, kind, subject = _check_fields(
        str(raw.get("content", "")), str(raw.get("kind", "fact")), str(raw.get("subject", ""))
    )
    status = str(raw.get("status", "active"))
    if status not in MEMORY_STATUSES:
        raise MemoryInvalidError(f"unknown status {status!r}")
    now = time.time()

    def number(name: str, default: float) -> float:
        value = raw.get(name, default)
        if value is None or isinstance(value, bool) or not isinstance(value, int | float):
            raise MemoryInvalidError(f"{name} must be a number")
        return float(value)

    return _NewMemory(
        id=memory_id,
        content=text,
        kind=kind,
        subject=subject,
        topic=str(raw.get("topic", "") or ""),
        importance=_clamp01(number("importance", 0.5), "importance"),
        confidence=_clamp01(number("confidence", 1.0), "confidence"),
        provenance="import",
        conversation_id=raw.get("conversation_id") if raw.get("conversation_id") else None,
        message_ids=tuple(int(v) for v in raw.get("message_ids") or () if isinstance(v, int)),
        supersedes=raw.get("supersedes") or None,
        superseded_by=raw.get("superseded_by") or None,
        vector=None,
        status=status,
        created_at=number("created_at", now),
        updated_at=number("updated_at", now),
        last_accessed_at=(
            None if raw.get("last_accessed_at") is None else number("last_accessed_at", now)
        ),
        access_count=int(number("access_count", 0)),
    )
