"""How well memory served: per turn, what recall loaded and what the reply used.

A turn that loads ten memories and uses one wasted nine places in the prompt; one that loads
three and uses all three wasted none. The waste ratio (1 - used / loaded) per conversation,
and its trend over the latest conversations, say whether recall loads too much. Pure values
and their aggregation; the store keeps the rows (``adapters/memory/reflection.py``).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "TREND_STEP",
    "ConversationReflection",
    "MemoryStats",
    "TurnReflection",
    "summarise",
]

TREND_STEP = 0.05
"""A change of the waste ratio smaller than this is "steady", not a trend."""


@dataclass(frozen=True, kw_only=True)
class TurnReflection:
    """One turn's use of memory.

    Attributes:
        conversation_id: the conversation of the turn.
        run_id: the turn.
        at: UNIX seconds when it finished.
        loaded: memories recall put in the prompt (hits, associates, start-up memories).
        used: of those, the ones the reply cited or repeated (``core/memory/usage.py``).
        load_ms: how long recall took before the model request, milliseconds.
    """

    conversation_id: str
    run_id: str
    at: float
    loaded: int
    used: int
    load_ms: float


@dataclass(frozen=True, kw_only=True)
class ConversationReflection:
    """One conversation's turns summed: loaded, used, the waste ratio, the load time."""

    conversation_id: str
    turns: int
    loaded: int
    used: int
    load_ms_median: float
    first_at: float
    last_at: float

    @property
    def waste_ratio(self) -> float:
        """The share of loaded memories the replies did not use (0 when nothing loaded)."""
        return 1.0 - self.used / self.loaded if self.loaded else 0.0


@dataclass(frozen=True, kw_only=True)
class MemoryStats:
    """The latest conversations' reflections and how their waste moves.

    Attributes:
        conversations: the latest conversations, newest first (at most the number asked).
        waste_ratio: over all their turns (loaded-weighted), 0-1.
        earlier_waste_ratio: the same over as many conversations before them (None: none).
        trend: ``better`` (less waste now), ``worse``, ``steady``, or ``new`` (nothing before).
    """

    conversations: tuple[ConversationReflection, ...]
    waste_ratio: float
    earlier_waste_ratio: float | None
    trend: Literal["better", "worse", "steady", "new"]


def _by_conversation(turns: Sequence[TurnReflection]) -> list[ConversationReflection]:
    grouped: dict[str, list[TurnReflection]] = {}
    for turn in turns:
        grouped.setdefault(turn.conversation_id, []).append(turn)
    out = [
        ConversationReflection(
            conversation_id=conversation_id,
            turns=len(group),
            loaded=sum(t.loaded for t in group),
            used=sum(t.used for t in group),
            load_ms_median=statistics.median(t.load_ms for t in group),
            first_at=min(t.at for t in group),
            last_at=max(t.at for t in group),
        )
        for conversation_id, group in grouped.items()
    ]
    return sorted(out, key=lambda c: c.last_at, reverse=True)


def _waste(conversations: Sequence[ConversationReflection]) -> float:
    loaded = sum(c.loaded for c in conversations)
    return 1.0 - sum(c.used for c in conversations) / loaded if loaded else 0.0


def summarise(turns: Sequence[TurnReflection], last: int) -> MemoryStats:
    """The latest ``last`` conversations of ``turns`` and the trend against the ones before."""
    conversations = _by_conversation(turns)
    recent, earlier = conversations[: max(last, 0)], conversations[max(last, 0) : 2 * last]
    waste = _waste(recent)
    before = _waste(earlier) if earlier else None
    trend: Literal["better", "worse", "steady", "new"] = "new"
    if before is not None:
        trend = (
            "better"
            if waste <= before - TREND_STEP
            else "worse"
            if waste >= before + TREND_STEP
            else "steady"
        )
    return MemoryStats(
        conversations=tuple(recent),
        waste_ratio=waste,
        earlier_waste_ratio=before,
        trend=trend,
    )
