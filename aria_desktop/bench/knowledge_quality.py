"""``aria bench knowledge --quality``: how often document search finds the passage that answers.

The household corpus of ``knowledge_corpus`` (Markdown, HTML pages with their navigation, plain
text, long PDFs, DOCX with tables, documents that update an older one) is written to a
temporary folder and added to a fresh knowledge base with the packaged embedder, the way
``aria knowledge add`` does. Each question is searched as a turn searches, and its answer is
found when a hit comes from the right file (and PDF page) and holds the answer's text.

Recall@1 and Recall@5 are printed per half, per kind of question and per format. Only the
*tune* half may guide changes to search; the *check* half is the figure to quote (the
developers' guide: never tune to the data you judge on).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from aria_desktop.adapters.knowledge.store import SQLiteKnowledgeStore
from aria_desktop.adapters.memory.embedding import LocalEmbedder
from aria_desktop.adapters.storage.database import Database
from aria_desktop.bench.knowledge_corpus import HALVES, KINDS, Question, write_quality_corpus
from aria_desktop.domain.knowledge import KnowledgeHit, KnowledgeQuery

__all__ = ["QualityFigures", "answer_rank", "measure_quality", "run_knowledge_quality"]

_DEPTH = 5
"""Hits looked at per question (Recall@5)."""


def answer_rank(question: Question, hits: Sequence[KnowledgeHit], folder: Path) -> int | None:
    """1-based rank of the first hit that answers ``question``, None when none of them does."""
    wanted = str(folder / question.file)
    for rank, hit in enumerate(hits, start=1):
        if hit.path != wanted or question.needle not in hit.text:
            continue
        if question.page is not None and hit.page != question.page:
            continue
        return rank
    return None


@dataclass(frozen=True, kw_only=True)
class QualityFigures:
    """Ranks of every question's answer and the search times.

    Attributes:
        ranks: (question, rank of its answer or None) in the corpus's order.
        search_ms: one search's time per question, milliseconds.
        passages: passages in the knowledge base.
    """

    ranks: tuple[tuple[Question, int | None], ...]
    search_ms: tuple[float, ...]
    passages: int

    def recall(self, *, half: str, kind: str = "", fmt: str = "") -> tuple[float, float, int]:
        """(Recall@1, Recall@5, questions) of the questions of ``half`` (and kind, format)."""
        picked = [
            rank
            for question, rank in self.ranks
            if question.half == half
            and (not kind or question.kind == kind)
            and (not fmt or Path(question.file).suffix == fmt)
        ]
        if not picked:
            return 0.0, 0.0, 0
        at1 = sum(1 for rank in picked if rank == 1) / len(picked)
        at5 = sum(1 for rank in picked if rank is not None) / len(picked)
        return at1, at5, len(picked)

    def formats(self) -> list[str]:
        """The file formats the questions cover, in a stable order."""
        return sorted({Path(question.file).suffix for question, _ in self.ranks})

    def misses(self, half: str) -> list[tuple[Question, int | None]]:
        """The questions of ``half`` whose answer was not the first hit."""
        return [(q, r) for q, r in self.ranks if q.half == half and r != 1]


async def measure_quality(folder: Path, db_path: Path) -> QualityFigures:
    """Write the corpus under ``folder``, index it in a new store at ``db_path``, search it."""
    questions = write_quality_corpus(folder)
    embedder = LocalEmbedder()
    try:
        async with await Database.open(db_path, take_lock=False) as db:
            store = SQLiteKnowledgeStore(db, embedder)
            await store.open()
            _source, report = await store.add(str(folder))
            ranks: list[tuple[Question, int | None]] = []
            timings: list[float] = []
            for question in questions:
                started = time.perf_counter()
                hits = await store.search(KnowledgeQuery(text=question.text, limit=_DEPTH))
                timings.append((time.perf_counter() - started) * 1000)
                ranks.append((question, answer_rank(question, hits, folder)))
    finally:
        await embedder.aclose()
    return QualityFigures(
        ranks=tuple(ranks), search_ms=tuple(timings), passages=report.chunks_added
    )


def _line(label: str, figures: tuple[float, float, int]) -> str:
    at1, at5, count = figures
    return f"  {label:<14}{count:>10}{at1:>10.3f}{at5:>10.3f}"


def print_quality(figures: QualityFigures, *, show_misses: bool = False) -> None:
    """Print the recall table of each half (and, optionally, the questions missed)."""
    for half in HALVES:
        print(f"{half} half{'':<8}questions  Recall@1  Recall@5")
        print(_line("all", figures.recall(half=half)))
        for kind in KINDS:
            print(_line(kind, figures.recall(half=half, kind=kind)))
        for fmt in figures.formats():
            print(_line(fmt.lstrip(".") or "(none)", figures.recall(half=half, fmt=fmt)))
        if show_misses:
            for question, rank in figures.misses(half):
                where = "not in the top 5" if rank is None else f"rank {rank}"
                print(f"    {where:<17}{question.kind:<11}{question.file}: {question.text}")


async def run_knowledge_quality(*, misses: bool = False) -> None:
    """Measure and print the quality figures (the check half is the one to quote)."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="aria-bench-knowledge-quality-") as tmp:
        root = Path(tmp)
        figures = await measure_quality(root / "corpus", root / "quality.db")
    counts: dict[str, int] = defaultdict(int)
    for question, _rank in figures.ranks:
        counts[question.half] += 1
    print(
        f"Knowledge search quality ({os.cpu_count()} CPUs, load average {load:.1f} at start): "
        f"{len(figures.ranks)} questions ({', '.join(f'{h} {counts[h]}' for h in HALVES)}) "
        f"over {figures.passages} passages; quote the check half"
    )
    print_quality(figures, show_misses=misses)
    print(f"search p50 {statistics.median(figures.search_ms):.1f} ms per question")
