"""When a memory moves between tiers: the promotion and demotion rules, pure and clock-free.

A memory starts ``active``. Use proves it: recalled for several turns, or learned again in a
later conversation, it becomes ``thread``; used for a week and more, or confirmed twice, it
becomes ``stable`` — a durable fact ARIA loads at the start of every conversation. Disuse and
lost confidence move it back down one step at a time. A tier the user pinned never moves.
Every move has a reason in words, kept in the memory's tier history.
"""

from __future__ import annotations

from dataclasses import dataclass

from aria_desktop.domain.memory import Memory, MemoryTier

__all__ = [
    "DEMOTE_STABLE_AFTER_DAYS",
    "DEMOTE_THREAD_AFTER_DAYS",
    "MIN_CONFIDENCE_TO_KEEP",
    "STABLE_ACCESSES",
    "STABLE_MIN_AGE_DAYS",
    "THREAD_ACCESSES",
    "MemoryTierChange",
    "TierMove",
    "next_tier",
]

DAY_S = 86_400.0

THREAD_ACCESSES = 3
"""Recalled this often, an active memory is in use: it becomes ``thread``."""
STABLE_ACCESSES = 10
"""Recalled this often (and old enough), a thread memory becomes ``stable``."""
STABLE_REINFORCEMENTS = 2
"""Learned again this often (and old enough), a thread memory becomes ``stable``."""
STABLE_MIN_AGE_DAYS = 7.0
"""No memory is stable before it is this many days old: a week of use, not one busy evening."""
STABLE_MIN_CONFIDENCE = 0.8
"""A memory ARIA is unsure of is never stable."""
DEMOTE_STABLE_AFTER_DAYS = 180.0
"""A stable memory unused this long goes back to ``thread``."""
DEMOTE_THREAD_AFTER_DAYS = 60.0
"""A thread memory unused this long goes back to ``active``."""
MIN_CONFIDENCE_TO_KEEP = 0.5
"""Below this confidence (decay) a thread or stable memory moves one tier down."""


@dataclass(frozen=True, kw_only=True)
class TierMove:
    """A move the rules call for: the new tier and why, in words for the history."""

    tier: MemoryTier
    reason: str


@dataclass(frozen=True, kw_only=True)
class MemoryTierChange:
    """One entry of a memory's tier history.

    Attributes:
        memory_id: the memory that moved.
        from_tier: its tier before (None: the memory's first tier).
        to_tier: its tier after.
        reason: why, in words ("recalled 3 times", "pinned by the user").
        at: UNIX seconds.
    """

    memory_id: str
    from_tier: str | None
    to_tier: str
    reason: str
    at: float


def _last_use(memory: Memory) -> float:
    """When the memory was last recalled or learned again (or made)."""
    return max(memory.last_accessed_at or 0.0, memory.updated_at, memory.created_at)


def next_tier(memory: Memory, now: float) -> TierMove | None:
    """The one-step move the rules call for now, or None when the memory stays.

    Only active memories (status) move, and never a pinned tier. Demotion is checked before
    promotion, so a memory that lost confidence is not promoted by old use.
    """
    if memory.tier_pinned or memory.status != "active":
        return None
    idle_days = (now - _last_use(memory)) / DAY_S
    if memory.tier != "active" and memory.confidence < MIN_CONFIDENCE_TO_KEEP:
        down: MemoryTier = "thread" if memory.tier == "stable" else "active"
        return TierMove(tier=down, reason=f"confidence fell to {memory.confidence:.2f}")
    if memory.tier == "stable" and idle_days >= DEMOTE_STABLE_AFTER_DAYS:
        return TierMove(tier="thread", reason=f"not used for {int(idle_days)} days")
    if memory.tier == "thread" and idle_days >= DEMOTE_THREAD_AFTER_DAYS:
        return TierMove(tier="active", reason=f"not used for {int(idle_days)} days")
    if memory.tier == "active":
        if memory.access_count >= THREAD_ACCESSES:
            return TierMove(tier="thread", reason=f"recalled {memory.access_count} times")
        if memory.reinforced_count >= 1:
            return TierMove(tier="thread", reason="learned again")
        return None
    if memory.tier == "thread":
        age_days = (now - memory.created_at) / DAY_S
        if age_days < STABLE_MIN_AGE_DAYS or memory.confidence < STABLE_MIN_CONFIDENCE:
            return None
        if memory.access_count >= STABLE_ACCESSES:
            return TierMove(
                tier="stable",
                reason=f"recalled {memory.access_count} times over {int(age_days)} days",
            )
        if memory.reinforced_count >= STABLE_REINFORCEMENTS:
            return TierMove(tier="stable", reason=f"learned again {memory.reinforced_count} times")
    return None
