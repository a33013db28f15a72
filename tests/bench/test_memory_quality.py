"""The retrieval quality set with the real embedded model: hybrid search must beat both of
its legs on Recall@5 (the reason it exists), and each leg must do its own job."""

from __future__ import annotations

from pathlib import Path

import pytest

from aria_desktop.bench.memory import quality_recall
from aria_desktop.bench.memory_load import LIMITS, choose_limit, run_load_tuning


@pytest.mark.slow
async def test_hybrid_beats_both_legs_on_recall_at_5(tmp_path: Path) -> None:
    recall, _ = await quality_recall(tmp_path / "quality.db")
    hybrid = recall["hybrid"]["all"][1]
    assert hybrid > recall["lexical"]["all"][1]
    assert hybrid > recall["vector"]["all"][1]
    # Each leg does its job: exact tokens for the keyword leg, meaning for the vector leg.
    assert recall["lexical"]["keyword"][1] >= 0.95
    assert recall["vector"]["paraphrase"][1] >= 0.9
    assert recall["hybrid"]["keyword"][1] >= recall["lexical"]["keyword"][1]


def test_the_load_limit_is_the_smallest_that_loses_no_recall() -> None:
    assert choose_limit({1: 0.7, 2: 0.9, 3: 0.95, 5: 0.95, 8: 0.95}) == 3
    assert choose_limit({1: 0.7, 3: 0.94, 5: 0.95}) == 5  # a small loss is still a loss


@pytest.mark.slow
async def test_the_load_bench_prints_checking_half_figures_and_a_chosen_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await run_load_tuning(tmp_path / "load.db")
    out = capsys.readouterr().out
    assert "checking half" in out
    chosen = next(line for line in out.splitlines() if line.startswith("chosen limit"))
    assert "current limit 5" in chosen
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert [int(r[0]) for r in rows] == list(LIMITS)
    recalls = [float(r[1]) for r in rows]
    assert recalls == sorted(recalls)  # loading more never finds less
