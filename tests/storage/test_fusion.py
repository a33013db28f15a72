"""Rank fusion as a pure function over plain ranked lists."""

from __future__ import annotations

import pytest

from aria_desktop.adapters.storage.fusion import DAY_S, RRF_K, Prior, fuse, prior_weight

NOW = 1_700_000_000.0
NEUTRAL = Prior(importance=0.5, created_at=NOW)
"""Importance 0.5 and age 0: the weight is the full recency bonus only."""
FRESH_WEIGHT = 1.05


def _neutral(*keys: str) -> dict[str, Prior]:
    return dict.fromkeys(keys, NEUTRAL)


def test_an_item_in_both_lists_beats_items_in_one() -> None:
    fused = fuse(["a", "b"], ["c", "a"], priors=_neutral("a", "b", "c"), now=NOW)
    assert [item.key for item in fused] == ["a", "c", "b"]
    first = fused[0]
    assert (first.lexical_rank, first.vector_rank) == (1, 2)
    expected = (1 / (RRF_K + 1) + 1 / (RRF_K + 2)) * FRESH_WEIGHT
    assert first.score == pytest.approx(expected)


def test_ranks_are_reported_per_list() -> None:
    fused = {item.key: item for item in fuse(["x"], ["y"], priors=_neutral("x", "y"), now=NOW)}
    assert (fused["x"].lexical_rank, fused["x"].vector_rank) == (1, None)
    assert (fused["y"].lexical_rank, fused["y"].vector_rank) == (None, 1)


def test_coverage_scales_only_the_keyword_contribution() -> None:
    # A keyword hit holding a third of the query's words ranks below the vector leg's first.
    fused = fuse(
        ["weak"], ["strong"], priors=_neutral("weak", "strong"), now=NOW, coverage={"weak": 1 / 3}
    )
    assert [item.key for item in fused] == ["strong", "weak"]
    assert fused[1].score == pytest.approx(fused[0].score / 3)


def test_a_key_missing_from_coverage_counts_fully() -> None:
    plain = fuse(["a"], [], priors=_neutral("a"), now=NOW)
    covered = fuse(["a"], [], priors=_neutral("a"), now=NOW, coverage={})
    assert plain[0].score == covered[0].score == pytest.approx(FRESH_WEIGHT / (RRF_K + 1))


def test_importance_moves_the_score_by_at_most_ten_percent() -> None:
    assert prior_weight(Prior(importance=1.0, created_at=NOW), NOW) == pytest.approx(1.1 * 1.05)
    assert prior_weight(Prior(importance=0.0, created_at=NOW), NOW) == pytest.approx(0.9 * 1.05)
    priors = {
        "minor": Prior(importance=0.0, created_at=NOW),
        "major": Prior(importance=1.0, created_at=NOW),
    }
    # Same fused rank contribution (first in one list each): importance decides.
    assert [item.key for item in fuse(["minor"], ["major"], priors=priors, now=NOW)] == [
        "major",
        "minor",
    ]


def test_the_recency_bonus_halves_every_ninety_days() -> None:
    aged = Prior(importance=0.5, created_at=NOW - 90 * DAY_S)
    assert prior_weight(aged, NOW) == pytest.approx(1.025)
    future = Prior(importance=0.5, created_at=NOW + DAY_S)
    assert prior_weight(future, NOW) == pytest.approx(FRESH_WEIGHT)


def test_equal_scores_are_ordered_by_key() -> None:
    fused = fuse(["b"], ["a"], priors=_neutral("a", "b"), now=NOW)
    assert fused[0].score == fused[1].score
    assert [item.key for item in fused] == ["a", "b"]


def test_keys_without_a_prior_are_left_out() -> None:
    fused = fuse([3, 1], [2], priors={1: NEUTRAL, 2: NEUTRAL}, now=NOW)
    assert [item.key for item in fused] == [2, 1]
    assert fused[1].lexical_rank == 2


def test_nothing_in_gives_nothing_out() -> None:
    assert fuse([], [], priors={}, now=NOW) == []
