"""Hybrid search of the chunks: BM25 over text and heading path, KNN over vectors, fused.

The same ranking as long-term memory (``storage.text``, ``storage.vectors``,
``storage.fusion``: one algorithm, see ``aria_desktop/ARCHITECTURE.md``); chunks carry no
importance or age, so the fusion's prior is neutral for all of them.
"""

from __future__ import annotations

from aria_desktop.adapters.storage.connection import Connection, placeholders
from aria_desktop.adapters.storage.fusion import Prior, fuse
from aria_desktop.adapters.storage.text import fts_query, query_terms, strict_coverage
from aria_desktop.adapters.storage.vectors import VectorIndex, cosine_from_l2
from aria_desktop.domain.knowledge import KnowledgeHit, KnowledgeQuery

__all__ = ["search_chunks"]

_MIN_DEPTH = 24
_KEYWORD_SQL = """
SELECT c.seq, c.text, c.heading FROM knowledge_chunks_fts CROSS JOIN knowledge_chunks c
ON c.seq = knowledge_chunks_fts.rowid WHERE knowledge_chunks_fts MATCH ?
ORDER BY bm25(knowledge_chunks_fts, 1.0, 0.5) LIMIT ?
"""
"""BM25 matches, text weighing more than the heading path (CROSS JOIN: the FTS index is the
outer loop)."""
_HIT_SQL = """
SELECT c.seq, c.path, f.title, c.page, c.heading, c.text, c.char_start, c.char_end,
       f.content_hash
FROM knowledge_chunks c JOIN knowledge_files f ON f.path = c.path
"""


def _keyword(
    conn: Connection, text: str, depth: int, strict: bool, coverage: dict[int, float]
) -> list[int]:
    """Seqs of BM25 matches (text weighs more than the heading path), best first."""
    match = fts_query(text)
    if not match:
        return []
    terms = query_terms(text)
    found = conn.execute(_KEYWORD_SQL, (match, depth)).fetchall()
    shares = {int(r[0]): strict_coverage(terms, f"{r[2]} {r[1]}", strict) for r in found}
    kept = {seq: share for seq, share in shares.items() if share is not None}
    coverage.update(kept)
    return list(kept)  # BM25 order: dicts keep insertion order


def search_chunks(
    conn: Connection,
    query: KnowledgeQuery,
    vector: bytes | None,
    index: VectorIndex | None,
    now: float,
) -> list[KnowledgeHit]:
    """The best chunks for ``query`` in one read snapshot."""
    depth = max(query.limit * 3, _MIN_DEPTH)
    coverage: dict[int, float] = {}
    lexical = _keyword(conn, query.text, depth, vector is not None and index is not None, coverage)
    semantic: list[int] = []
    if vector is not None and index is not None:
        semantic = [
            seq
            for seq, distance in index.nearest(conn, vector, depth)
            if cosine_from_l2(distance) >= query.min_similarity
        ]
    candidates = set(lexical) | set(semantic)
    if not candidates:
        return []
    rows = {
        int(r[0]): r
        for r in conn.execute(
            f"{_HIT_SQL} WHERE c.seq IN ({placeholders(len(candidates))})", tuple(candidates)
        )
    }
    neutral = Prior(importance=0.5, created_at=now)
    fused = fuse(
        lexical, semantic, priors={seq: neutral for seq in rows}, now=now, coverage=coverage
    )
    hits: list[KnowledgeHit] = []
    for item in fused[: query.limit]:
        r = rows[item.key]
        hits.append(
            KnowledgeHit(
                chunk_id=int(r[0]),
                path=str(r[1]),
                title=str(r[2] or ""),
                page=None if r[3] is None else int(r[3]),
                heading=str(r[4]),
                text=str(r[5]),
                char_start=int(r[6]),
                char_end=int(r[7]),
                content_hash=str(r[8]),
                score=item.score,
                lexical_rank=item.lexical_rank,
                vector_rank=item.vector_rank,
            )
        )
    return hits
