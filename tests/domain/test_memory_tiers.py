"""The tier rules, as plain values: use promotes one step, disuse and doubt demote, pins hold."""

from __future__ import annotations

import dataclasses

from aria_desktop.domain.memory import Memory
from aria_desktop.domain.memory_tiers import (
    DAY_S,
    DEMOTE_STABLE_AFTER_DAYS,
    DEMOTE_THREAD_AFTER_DAYS,
    STABLE_ACCESSES,
    STABLE_MIN_AGE_DAYS,
    THREAD_ACCESSES,
    next_tier,
)

T0 = 1_750_000_000.0


def _memory(**changes: object) -> Memory:
    base = Memory(id="mem_1", content="I am vegetarian", created_at=T0, updated_at=T0)
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def test_a_new_memory_stays_active_until_it_is_used() -> None:
    assert next_tier(_memory(), T0 + DAY_S) is None
    assert next_tier(_memory(access_count=THREAD_ACCESSES - 1), T0 + DAY_S) is None


def test_recalled_often_or_learned_again_an_active_memory_becomes_thread() -> None:
    move = next_tier(_memory(access_count=THREAD_ACCESSES, last_accessed_at=T0), T0 + 60)
    assert move is not None
    assert (move.tier, move.reason) == ("thread", "recalled 3 times")
    learned_again = next_tier(_memory(reinforced_count=1), T0 + 60)
    assert learned_again is not None
    assert learned_again.tier == "thread"


def test_a_thread_memory_becomes_stable_only_after_a_week_of_use() -> None:
    used = _memory(tier="thread", access_count=STABLE_ACCESSES, last_accessed_at=T0 + DAY_S)
    assert next_tier(used, T0 + 2 * DAY_S) is None  # busy evening, not yet a week
    week = T0 + STABLE_MIN_AGE_DAYS * DAY_S
    move = next_tier(used, week)
    assert move is not None
    assert move.tier == "stable"
    assert move.reason == "recalled 10 times over 7 days"
    confirmed = _memory(tier="thread", reinforced_count=2, updated_at=week - DAY_S)
    assert (move := next_tier(confirmed, week)) is not None
    assert move.tier == "stable"


def test_an_unsure_memory_is_never_promoted_to_stable_and_doubt_demotes_it() -> None:
    week = T0 + 8 * DAY_S
    unsure = _memory(tier="thread", access_count=20, confidence=0.7, last_accessed_at=week)
    assert next_tier(unsure, week) is None
    doubted = _memory(tier="stable", confidence=0.4, last_accessed_at=week)
    move = next_tier(doubted, week)
    assert move is not None
    assert (move.tier, move.reason) == ("thread", "confidence fell to 0.40")


def test_disuse_moves_a_memory_down_one_tier_at_a_time() -> None:
    stable = _memory(tier="stable", access_count=30)
    assert next_tier(stable, T0 + (DEMOTE_STABLE_AFTER_DAYS - 1) * DAY_S) is None
    move = next_tier(stable, T0 + DEMOTE_STABLE_AFTER_DAYS * DAY_S)
    assert move is not None
    assert (move.tier, move.reason) == ("thread", "not used for 180 days")
    thread = _memory(tier="thread", access_count=30)
    move = next_tier(thread, T0 + DEMOTE_THREAD_AFTER_DAYS * DAY_S)
    assert move is not None
    assert move.tier == "active"


def test_a_pinned_tier_and_a_memory_no_longer_active_never_move() -> None:
    far = T0 + 400 * DAY_S
    assert next_tier(_memory(tier="stable", tier_pinned=True), far) is None
    assert next_tier(_memory(access_count=50, tier_pinned=True), far) is None
    assert next_tier(_memory(access_count=50, status="forgotten"), far) is None
