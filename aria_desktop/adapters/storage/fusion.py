"""Rank fusion for hybrid search: two ranked lists in, one weighted ranking out.

Pure (no SQL, no clock): shared by every store that ranks with FTS5 + sqlite-vec (long-term
memory today, the knowledge base next; see ``aria_desktop/ARCHITECTURE.md``).

Reciprocal rank fusion (k = 60) adds ``1 / (k + rank)`` from each list an item is in. A keyword
hit counts in proportion to its *coverage*, the share of the query's content words it holds, so
one shared common word ("session") cannot push a strong meaning match out of the top results.
The fused score is then weighted lightly by importance (at most +-10 %) and recency (at most
+5 %, halving every 90 days).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = [
    "DAY_S",
    "RECENCY_HALF_LIFE_DAYS",
    "RRF_K",
    "Fused",
    "Prior",
    "fuse",
    "prior_weight",
]

RRF_K = 60
"""Reciprocal rank fusion constant: score = sum 1 / (RRF_K + rank)."""
DAY_S = 86_400.0
"""Seconds in a day."""
RECENCY_HALF_LIFE_DAYS = 90.0
"""The recency bonus halves with every this many days of age."""

K = TypeVar("K", int, str)


@dataclass(frozen=True, kw_only=True)
class Prior:
    """What the weighting knows about an item besides its ranks.

    Attributes:
        importance: how much it matters, 0-1 (0.5 is neutral).
        created_at: when it was made, UNIX seconds.
    """

    importance: float
    created_at: float


@dataclass(frozen=True, kw_only=True)
class Fused(Generic[K]):
    """One item of the fused ranking.

    Attributes:
        key: the item (as given in the input lists).
        score: weighted fused score; higher is better, comparable only within one fusion.
        lexical_rank: 1-based rank in the keyword list, None when not in it.
        vector_rank: 1-based rank in the vector list, None when not in it.
    """

    key: K
    score: float
    lexical_rank: int | None
    vector_rank: int | None


def prior_weight(prior: Prior, now: float) -> float:
    """The factor importance and recency apply to a fused score at time ``now`` (seconds)."""
    age_days = max(0.0, now - prior.created_at) / DAY_S
    recency: float = 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)
    return (1.0 + 0.2 * (prior.importance - 0.5)) * (1.0 + 0.05 * recency)


def fuse(
    lexical: Sequence[K],
    vector: Sequence[K],
    *,
    priors: Mapping[K, Prior],
    now: float,
    coverage: Mapping[K, float] | None = None,
    k: int = RRF_K,
) -> list[Fused[K]]:
    """Fuse a keyword ranking and a vector ranking, best first.

    Args:
        lexical: keys in keyword (BM25) order, best first.
        vector: keys in vector (KNN) order, best first.
        priors: importance and age of each key; a key without one is left out (its row is
            gone or filtered away).
        now: the time ages are measured at, UNIX seconds.
        coverage: share (0-1) of the query's words each keyword hit holds; a key missing
            here counts fully (plain reciprocal rank fusion).
        k: the fusion constant.

    Returns:
        Every key of either list that has a prior, by descending score, ties by key.
    """
    lexical_rank = {key: rank for rank, key in enumerate(lexical, start=1)}
    vector_rank = {key: rank for rank, key in enumerate(vector, start=1)}
    shares = coverage or {}
    fused: list[Fused[K]] = []
    for key in lexical_rank.keys() | vector_rank.keys():
        prior = priors.get(key)
        if prior is None:
            continue
        score = 0.0
        if key in lexical_rank:
            score += shares.get(key, 1.0) / (k + lexical_rank[key])
        if key in vector_rank:
            score += 1.0 / (k + vector_rank[key])
        fused.append(
            Fused(
                key=key,
                score=score * prior_weight(prior, now),
                lexical_rank=lexical_rank.get(key),
                vector_rank=vector_rank.get(key),
            )
        )
    fused.sort(key=lambda item: (-item.score, item.key))
    return fused
