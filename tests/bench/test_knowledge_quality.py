"""The document-search quality set: real files of every format, two halves, honest scoring.

The bench's figures only mean something if its corpus is what it claims (every answer is in
the file and page it names, halves that share no document) and if its scoring counts a hit
only for the passage that holds the answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aria_desktop.adapters.knowledge.extract import extract, format_of_path
from aria_desktop.bench.knowledge_corpus import HALVES, KINDS, write_quality_corpus
from aria_desktop.bench.knowledge_quality import measure_quality, print_quality

_FORMATS = {".md", ".html", ".txt", ".pdf", ".docx"}


def test_every_answer_is_in_the_file_and_page_it_names_and_the_halves_share_no_file(
    tmp_path: Path,
) -> None:
    questions = write_quality_corpus(tmp_path)
    for half in HALVES:
        mine = [q for q in questions if q.half == half]
        assert {q.kind for q in mine} == set(KINDS)
        assert {Path(q.file).suffix for q in mine} == _FORMATS
        assert all(q.file.startswith(f"{half}/") for q in mine)
    for question in questions:
        path = tmp_path / question.file
        kind = format_of_path(str(path))
        assert kind is not None, question
        doc = extract(path.read_bytes(), path=str(path), kind=kind, max_bytes=10_000_000)
        pages = [b.text for b in doc.blocks if question.page in (None, b.page)]
        assert any(question.needle in text for text in pages), question


@pytest.mark.slow
async def test_the_bench_scores_each_half_and_finds_every_keyword_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = await measure_quality(tmp_path / "corpus", tmp_path / "quality.db")
    for half in HALVES:
        _at1, at5, count = figures.recall(half=half, kind="keyword")
        assert count > 0
        assert at5 == 1.0
    print_quality(figures, show_misses=True)
    out = capsys.readouterr().out
    assert "tune half" in out
    assert "check half" in out
