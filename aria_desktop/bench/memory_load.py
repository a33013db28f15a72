"""``aria bench memory --load``: how many memories a turn should load, from reflections.

Every question of the synthetic set (:mod:`aria_desktop.bench.memory_data`) is one simulated
turn: recall loads the top ``k`` hits, as ``MemoryService.recall_context`` does (same minimum
similarity), and the reply uses the one memory that answers it when it was loaded (what the
reflection counts live, ``core/memory/usage.py``). Each turn becomes a ``TurnReflection`` and
the waste ratio comes from the same ``summarise`` the live ``aria memory stats`` uses.

The questions are split by fact into a tuning half and a checking half. ``k`` is chosen on the
tuning half only — the smallest that loses no recall against the largest tried — and every
figure printed is the checking half's.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from aria_desktop.bench.memory import Question, quality_store
from aria_desktop.core.memory.service import MemoryConfig
from aria_desktop.domain.memory import MemoryQuery
from aria_desktop.domain.memory_reflection import TurnReflection, summarise

__all__ = ["LIMITS", "choose_limit", "run_load_tuning"]

LIMITS = (1, 2, 3, 4, 5, 6, 8, 10)
"""The recall limits tried."""


def choose_limit(recall_by_limit: dict[int, float]) -> int:
    """The smallest limit whose recall equals the best one (no loss traded for less waste)."""
    best = max(recall_by_limit.values())
    return min(k for k, recall in recall_by_limit.items() if recall >= best - 1e-9)


def _halves(questions: list[Question]) -> tuple[list[Question], list[Question]]:
    """Tuning and checking halves, split by fact (both questions of a fact stay together)."""
    facts = sorted({target for _kind, _q, target in questions})
    tuning = set(facts[::2])
    return (
        [q for q in questions if q[2] in tuning],
        [q for q in questions if q[2] not in tuning],
    )


async def run_load_tuning(path: Path) -> None:
    """Print recall, memories loaded and waste per limit on the checking half, and the pick."""
    config = MemoryConfig()
    async with quality_store(path) as (store, questions, described):
        ranked: dict[str, tuple[list[str], float]] = {}
        for _kind, question, _target in questions:
            started = time.perf_counter()
            hits = await store.search(
                MemoryQuery(
                    text=question,
                    limit=max(LIMITS),
                    min_similarity=config.recall_min_similarity,
                    touch=False,
                )
            )
            ranked[question] = ([h.memory.id for h in hits], time.perf_counter() - started)
    tuning, checking = _halves(questions)

    def figures(half: list[Question], k: int) -> tuple[float, float, float, float]:
        turns = []
        for number, (_kind, question, target) in enumerate(half):
            ids, seconds = ranked[question]
            loaded = ids[:k]
            turns.append(
                TurnReflection(
                    conversation_id=f"q{number}",
                    run_id=f"q{number}",
                    at=float(number),
                    loaded=len(loaded),
                    used=int(target in loaded),
                    load_ms=seconds * 1000,
                )
            )
        stats = summarise([t for t in turns if t.loaded], len(turns))
        recall = sum(t.used for t in turns) / len(turns)
        loaded_mean = statistics.fmean(t.loaded for t in turns)
        load_ms = statistics.median(t.load_ms for t in turns)
        return recall, loaded_mean, stats.waste_ratio, load_ms

    chosen = choose_limit({k: figures(tuning, k)[0] for k in LIMITS})
    print(f"Memories loaded per turn: {described}")
    print(f"tuning half {len(tuning)} questions (picks the limit), checking half {len(checking)}")
    print(f"{'limit':>6}{'recall':>9}{'loaded':>9}{'waste':>8}  (checking half)")
    for k in LIMITS:
        recall, loaded_mean, waste, _ms = figures(checking, k)
        marks = " ".join(
            m for m, on in (("chosen", k == chosen), ("current", k == config.recall_limit)) if on
        )
        print(f"{k:>6}{recall:>9.3f}{loaded_mean:>9.2f}{waste:>8.1%}  {marks}")
    recall, _loaded, waste, load_ms = figures(checking, chosen)
    now_recall, _l, now_waste, _m = figures(checking, config.recall_limit)
    print(
        f"chosen limit {chosen} (tuning half): checking-half recall {recall:.3f}, waste "
        f"{waste:.1%}; current limit {config.recall_limit}: recall {now_recall:.3f}, waste "
        f"{now_waste:.1%}; median search {load_ms:.1f} ms"
    )
