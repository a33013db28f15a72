"""The reflection's arithmetic: waste per conversation, newest first, and the trend."""

from __future__ import annotations

import pytest

from aria_desktop.domain.memory_reflection import TurnReflection, summarise


def _turn(conversation: str, at: float, loaded: int, used: int, ms: float = 5.0) -> TurnReflection:
    return TurnReflection(
        conversation_id=conversation,
        run_id=f"run-{at}",
        at=at,
        loaded=loaded,
        used=used,
        load_ms=ms,
    )


def test_a_conversation_sums_its_turns_and_its_waste_is_the_unused_share() -> None:
    stats = summarise([_turn("c1", 1, 4, 1, 3.0), _turn("c1", 2, 6, 4, 9.0)], last=5)
    [c1] = stats.conversations
    assert (c1.turns, c1.loaded, c1.used, c1.load_ms_median) == (2, 10, 5, 6.0)
    assert c1.waste_ratio == pytest.approx(0.5)
    assert (c1.first_at, c1.last_at) == (1, 2)
    assert stats.trend == "new"
    assert stats.earlier_waste_ratio is None


def test_the_latest_conversations_come_first_and_the_trend_compares_with_those_before() -> None:
    before = [_turn("old1", 1, 10, 2), _turn("old2", 2, 10, 2)]  # 80 % waste
    recent = [_turn("new1", 3, 10, 8), _turn("new2", 4, 10, 6)]  # 30 % waste
    stats = summarise(before + recent, last=2)
    assert [c.conversation_id for c in stats.conversations] == ["new2", "new1"]
    assert stats.waste_ratio == pytest.approx(0.3)
    assert stats.earlier_waste_ratio == pytest.approx(0.8)
    assert stats.trend == "better"
    worse = summarise([*recent[:1], _turn("late", 9, 10, 1)], last=1)
    assert worse.trend == "worse"
    steady = summarise([_turn("a", 1, 10, 5), _turn("b", 2, 10, 5)], last=1)
    assert steady.trend == "steady"


def test_nothing_recorded_is_no_waste_and_nothing_to_compare() -> None:
    stats = summarise([], last=10)
    assert (stats.conversations, stats.waste_ratio, stats.trend) == ((), 0.0, "new")
