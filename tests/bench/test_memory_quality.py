"""The retrieval quality set with the real embedded model: hybrid search must beat both of
its legs on Recall@5 (the reason it exists), and each leg must do its own job."""

from __future__ import annotations

from pathlib import Path

import pytest

from aria_desktop.bench.memory import quality_recall


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
