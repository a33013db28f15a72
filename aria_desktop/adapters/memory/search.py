"""Hybrid search over memories: a keyword leg, a vector leg, and their fusion.

The keyword leg ranks FTS5 matches by BM25 (content weighs more than subject); the vector leg
is the KNN of :mod:`aria_desktop.adapters.storage.vectors`;
:func:`aria_desktop.adapters.storage.fusion.fuse`
combines them. A keyword hit counts in proportion to the share of the query's content words it
contains, and with a vector leg it must contain more than half of them: under rank fusion a
single shared common word ("office", "number") would otherwise lift weak matches above the best
meaning matches (measured by ``aria bench memory --quality``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aria_desktop.adapters.memory.rows import MEMORY_COLUMNS, row_to_memory
from aria_desktop.adapters.memory.tiers import check_tier
from aria_desktop.adapters.storage.connection import Connection, placeholders
from aria_desktop.adapters.storage.fusion import Prior, fuse
from aria_desktop.adapters.storage.text import fts_query, query_terms, strict_coverage
from aria_desktop.adapters.storage.vectors import VectorIndex, cosine_from_l2
from aria_desktop.domain.errors import MemoryInvalidError
from aria_desktop.domain.memory import MEMORY_KINDS, MEMORY_STATUSES, MemoryHit, MemoryQuery

__all__ = ["memory_filters", "search_memories"]

_MIN_DEPTH = 20
"""Each leg returns at least this many rows (twice the limit when that is more)."""


def memory_filters(
    kinds: Sequence[str],
    subject: str | None,
    statuses: Sequence[str],
    since: float | None,
    until: float | None,
    tiers: Sequence[str] = (),
) -> tuple[str, tuple[Any, ...]]:
    """SQL conditions on alias ``m`` and their parameters.

    Raises:
        MemoryInvalidError: an unknown kind, status or tier.
    """
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
        clauses.append(f"m.status IN ({placeholders(len(statuses))})")
        params.extend(statuses)
    if tiers:
        clauses.append(f"m.tier IN ({placeholders(len(tiers))})")
        params.extend(check_tier(t) for t in tiers)
    if kinds:
        clauses.append(f"m.kind IN ({placeholders(len(kinds))})")
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


def search_memories(
    conn: Connection,
    query: MemoryQuery,
    vector: bytes | None,
    now: float,
    index: VectorIndex | None,
) -> list[MemoryHit]:
    """The hits for ``query``, best first, read inside one snapshot.

    Args:
        conn: a connection (the reader's).
        query: what to look for and the filters.
        vector: the query's embedding (None: keyword leg only).
        now: UNIX seconds ages are measured at.
        index: the vector index while vector search is on.
    """
    where, params = memory_filters(
        query.kinds, query.subject, query.statuses, query.since, query.until
    )
    depth = max(query.limit * 2, _MIN_DEPTH)
    lexical: list[int] = []
    coverage: dict[str, float] = {}
    if query.mode in ("hybrid", "lexical"):
        strict = vector is not None and query.mode == "hybrid"
        lexical = _keyword_leg(conn, query.text, where, params, depth, strict, coverage)
    semantic: list[int] = []
    if vector is not None and index is not None and query.mode in ("hybrid", "vector"):
        semantic = _vector_leg(conn, query, vector, where, params, depth, index)
    candidates = set(lexical) | set(semantic)
    if not candidates:
        return []
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories WHERE seq IN ({placeholders(len(candidates))})",
        tuple(candidates),
    ).fetchall()
    by_seq = {int(row[0]): row_to_memory(row) for row in rows}
    by_id = {memory.id: memory for memory in by_seq.values()}
    fused = fuse(
        [by_seq[seq].id for seq in lexical if seq in by_seq],
        [by_seq[seq].id for seq in semantic if seq in by_seq],
        priors={
            m.id: Prior(importance=m.importance, created_at=m.created_at) for m in by_id.values()
        },
        now=now,
        coverage=coverage,
    )
    return [
        MemoryHit(
            memory=by_id[item.key],
            score=item.score,
            lexical_rank=item.lexical_rank,
            vector_rank=item.vector_rank,
        )
        for item in fused[: query.limit]
    ]


def _keyword_leg(
    conn: Connection,
    text: str,
    where: str,
    params: tuple[Any, ...],
    depth: int,
    strict: bool,
    coverage: dict[str, float],
) -> list[int]:
    """Seqs of the BM25 matches in order; fills ``coverage`` (memory id -> share of words).

    ``strict`` (a vector leg runs too) drops weak matches (``storage.text.strict_coverage``).
    """
    match = fts_query(text)
    if not match:
        return []
    terms = query_terms(text)
    found: list[int] = []
    for seq, memory_id, content, subject in conn.execute(
        # CROSS JOIN keeps the FTS index as the outer loop (SQLite would otherwise scan
        # memories and test MATCH row by row).
        "SELECT m.seq, m.id, m.content, m.subject FROM memories_fts CROSS JOIN memories AS m "
        "ON m.seq = memories_fts.rowid "
        f"WHERE memories_fts MATCH ? AND {where} "
        "ORDER BY bm25(memories_fts, 1.0, 0.3) LIMIT ?",
        (match, *params, depth),
    ):
        share = strict_coverage(terms, f"{content} {subject}", strict)
        if share is not None:
            coverage[str(memory_id)] = share
            found.append(int(seq))
    return found


def _vector_leg(
    conn: Connection,
    query: MemoryQuery,
    vector: bytes,
    where: str,
    params: tuple[Any, ...],
    depth: int,
    index: VectorIndex,
) -> list[int]:
    """Seqs of the nearest memories that pass the filters and the similarity floor, in order."""
    active_only = tuple(query.statuses) == ("active",)
    near = index.nearest(conn, vector, depth, status="active" if active_only else None)
    if not near:
        return []
    seqs = [seq for seq, _ in near]
    allowed = {
        int(row[0])
        for row in conn.execute(
            f"SELECT m.seq FROM memories AS m WHERE m.seq IN ({placeholders(len(seqs))}) "
            f"AND {where}",
            (*seqs, *params),
        )
    }
    return [
        seq
        for seq, distance in near
        if seq in allowed and cosine_from_l2(distance) >= query.min_similarity
    ]
