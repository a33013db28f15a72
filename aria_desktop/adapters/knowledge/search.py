"""Hybrid search of the chunks: BM25 over text and heading path, KNN over vectors, fused.

The same ranking as long-term memory (``storage.text``, ``storage.vectors``,
``storage.fusion``: one algorithm, see ``aria_desktop/ARCHITECTURE.md``); chunks carry no
importance or age, so the fusion's prior is neutral for all of them.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from aria_desktop.adapters.knowledge.supersede import Candidate, document_family, newer_first
from aria_desktop.adapters.storage.connection import Connection, placeholders
from aria_desktop.adapters.storage.fusion import Prior, fuse
from aria_desktop.adapters.storage.text import fts_query, query_terms, term_coverage
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
       f.content_hash, f.mtime_ns, c.embedding
FROM knowledge_chunks c JOIN knowledge_files f ON f.path = c.path
"""


KEYWORD_FLOOR = 0.5
"""With the meaning leg running, a keyword match must hold more than this share of the
query's content words to count (one shared common word is weak evidence under fusion; the
same floor as long-term memory's, ``storage.text.strict_coverage``)."""


def _keyword(
    conn: Connection, text: str, depth: int, strict: bool, coverage: dict[int, float]
) -> tuple[list[int], list[int]]:
    """Seqs of BM25 matches, best first: those over the coverage floor, and the weak rest.

    The text weighs more than the heading path. The weak ones are kept apart for a search
    that would otherwise find nothing.
    """
    match = fts_query(text)
    if not match:
        return [], []
    terms = query_terms(text)
    found = conn.execute(_KEYWORD_SQL, (match, depth)).fetchall()
    coverage.update({int(r[0]): term_coverage(terms, f"{r[2]} {r[1]}") for r in found})
    kept = [seq for seq in coverage if not strict or coverage[seq] > KEYWORD_FLOOR]
    weak = [seq for seq in coverage if seq not in set(kept)]
    return kept, weak  # BM25 order: dicts keep insertion order


def _candidate(row: Any) -> Candidate:
    """The file facts :func:`newer_first` orders versions of a document by."""
    path, title, blob = str(row[1]), str(row[2] or ""), row[10]
    families = {document_family(title), document_family(PurePath(path).name)} - {""}
    vector = bytes(blob) if blob else None
    return Candidate(
        path=path, families=frozenset(families), modified=int(row[9] or 0), vector=vector
    )


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
    strict = vector is not None and index is not None
    lexical, weak = _keyword(conn, query.text, depth, strict, coverage)
    semantic: list[int] = []
    if vector is not None and index is not None:
        semantic = [
            seq
            for seq, distance in index.nearest(conn, vector, depth)
            if cosine_from_l2(distance) >= query.min_similarity
        ]
    if not lexical and not semantic:
        lexical = weak  # weak evidence is still better than answering "nothing found"
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
    fused = [fused[i] for i in newer_first([_candidate(rows[item.key]) for item in fused])]
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
