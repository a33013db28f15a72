"""``aria bench memory``: retrieval quality and search speed of long-term memory.

``--quality`` loads the synthetic set of :mod:`aria_desktop.bench.memory_data` (200 facts,
200 questions: half keyword, half pure paraphrase) into a fresh database with the real
embedded model, and prints Recall@1 / Recall@5 of the keyword leg alone, the vector leg alone
and the hybrid (reciprocal rank fusion), overall and per question type.

``--n N`` measures speed at 10k and N memories (384-d): bulk insert throughput, hybrid search
p50/p95 (query embedded by the real model, included), the vector leg alone, and in the same
run a NumPy brute-force scan over the same vectors as the reference. Bulk rows get random unit
vectors (embedding 100k sentences would take minutes and measures the model, not the index)
and random-word texts; queries are perturbed copies of stored vectors, so the vector leg's
recall of the planted neighbour is measured too (the coarse bit-quantised pass is approximate).
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aria_desktop.adapters.memory.embedding import LocalEmbedder
from aria_desktop.adapters.memory.store import SQLiteMemoryStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.bench._util import percentile, vocabulary
from aria_desktop.bench.memory_data import quality_set
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.memory import MemoryDraft, MemoryFilter, MemoryQuery

__all__ = ["run_memory_bench"]

_DIM = 384


async def run_memory_bench(
    *, quality: bool, n: int | None, queries: int = 200, load: bool = False
) -> None:
    """Run the chosen parts (quality and speed when none is chosen)."""
    if not quality and n is None and not load:
        quality, n = True, 100_000
    # Multi-threaded OpenBLAS spin-waits badly on a small shared machine (8 ms vs 0.2 ms for a
    # 10k x 384 product here); the reference must be the fastest honest NumPy scan.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    with tempfile.TemporaryDirectory(prefix="aria-bench-memory-") as tmp:
        if quality:
            await _quality(Path(tmp) / "quality.db")
        if load:
            from aria_desktop.bench.memory_load import run_load_tuning

            await run_load_tuning(Path(tmp) / "load.db")
        if n is not None:
            sizes = sorted({min(10_000, n), n})
            await _speed(Path(tmp), sizes, queries)


# --- quality ----------------------------------------------------------------------------------


Recall = dict[str, dict[str, tuple[float, float]]]
"""leg -> question type (all, keyword, paraphrase) -> (Recall@1, Recall@5)."""


Question = tuple[str, str, str]
"""(question type, question, the id of the memory that answers it)."""


@asynccontextmanager
async def quality_store(path: Path) -> AsyncIterator[tuple[SQLiteMemoryStore, list[Question], str]]:
    """The synthetic set in a new store at ``path`` with the real embedder, and its questions.

    Yields the store, the questions (keyword and paraphrase, two per asked fact, in the set's
    order) and a one-line description of the set and the embedder.
    """
    items = quality_set()
    embedder = LocalEmbedder()
    db = await Database.open(path, take_lock=False)
    try:
        store = SQLiteMemoryStore(db, embedder)
        await store.open()
        if not store.vector_search_available:
            raise AriaError(
                f"The quality check needs vector search: {store.vector_status}",
                hint="Run `aria doctor` to see what is missing.",
            )
        await store.add_many((MemoryDraft(content=item.fact) for item in items), dedupe=False)
        stored = await store.list_memories(MemoryFilter(limit=10_000))
        by_content = {m.content: m.id for m in stored}
        questions: list[Question] = []
        for item in items:
            if not item.asked:
                continue
            target = by_content[item.fact]
            questions.append(("keyword", item.keyword_question, target))
            questions.append(("paraphrase", item.paraphrase_question, target))
        described = (
            f"{len(items)} facts, {len(questions)} questions "
            f"({sum(q[0] == 'keyword' for q in questions)} keyword, "
            f"{sum(q[0] == 'paraphrase' for q in questions)} paraphrase); "
            f"embedder {embedder.model_id}"
        )
        yield store, questions, described
    finally:
        await db.close()
        await embedder.aclose()


async def quality_recall(path: Path) -> tuple[Recall, str]:
    """Recall@1/@5 of each search leg over the synthetic set, in a new store at ``path``.

    Returns the figures and a one-line description of the set and the embedder.
    """
    async with quality_store(path) as (store, questions, described):
        recall: Recall = {}
        for mode in ("lexical", "vector", "hybrid"):
            ranks: dict[str, list[int | None]] = {"keyword": [], "paraphrase": []}
            for kind, question, target in questions:
                hits = await store.search(
                    MemoryQuery(text=question, limit=5, mode=mode, touch=False)
                )
                ids = [hit.memory.id for hit in hits]
                ranks[kind].append(ids.index(target) + 1 if target in ids else None)
            everything = ranks["keyword"] + ranks["paraphrase"]
            recall[mode] = {}
            for label, values in (("all", everything), *ranks.items()):
                at1 = sum(1 for r in values if r == 1) / len(values)
                at5 = sum(1 for r in values if r is not None) / len(values)
                recall[mode][label] = (at1, at5)
        return recall, described


async def _quality(path: Path) -> None:
    recall, described = await quality_recall(path)
    print(f"Memory retrieval quality: {described}")
    print(f"{'leg':<10}{'questions':<12}{'Recall@1':>10}{'Recall@5':>10}")
    for mode, by_kind in recall.items():
        for label, (at1, at5) in by_kind.items():
            print(f"{mode:<10}{label:<12}{at1:>10.3f}{at5:>10.3f}")


# --- speed ------------------------------------------------------------------------------------


async def _speed(tmp: Path, sizes: Sequence[int], queries: int) -> None:
    import numpy as np

    rng = random.Random(11)
    np_rng = np.random.default_rng(11)
    vocab = vocabulary(rng)
    largest = max(sizes)
    matrix = np_rng.standard_normal((largest, _DIM), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    texts = [" ".join(rng.choices(vocab, k=rng.randint(6, 14))) for _ in range(largest)]
    embedder = LocalEmbedder()
    print(
        f"Memory search speed ({_DIM}-d, {os.cpu_count()} CPUs; bulk rows: random unit vectors "
        "+ random-word text; queries embedded by the real model)"
    )
    try:
        for size in sizes:
            await _speed_one(
                tmp / f"speed-{size}.db", size, matrix[:size], texts, vocab, queries, embedder, rng
            )
    finally:
        await embedder.aclose()


@dataclass(kw_only=True)
class _SpeedFigures:
    """One store size's timings (ms unless named otherwise) and the vector leg's recall."""

    insert_s: float = 0.0
    single_ms: list[float] = field(default_factory=list)
    numpy_ms: list[float] = field(default_factory=list)
    vector_ms: list[float] = field(default_factory=list)
    recall: float = 0.0
    hybrid_ms: list[float] = field(default_factory=list)
    touch_ms: list[float] = field(default_factory=list)
    embed_ms: list[float] = field(default_factory=list)


async def _speed_one(
    path: Path,
    size: int,
    matrix: object,
    texts: list[str],
    vocab: list[str],
    queries: int,
    embedder: LocalEmbedder,
    rng: random.Random,
) -> None:
    import numpy as np

    vectors = np.asarray(matrix, dtype=np.float32)
    figures = _SpeedFigures()
    db = await Database.open(path, take_lock=False)
    try:
        store = SQLiteMemoryStore(db, embedder)
        await store.open()
        figures.insert_s = await _bulk_insert(store, vectors, texts, size)
        # Single adds through the full path (embedding, duplicate check, one transaction each).
        for i in range(20):
            text = f"Benchmark fact number {i}: {' '.join(rng.choices(vocab, k=8))}"
            t0 = time.perf_counter()
            await store.add(MemoryDraft(content=text))
            figures.single_ms.append((time.perf_counter() - t0) * 1000)
        # Queries: perturbed stored vectors (for the vector leg) and words from stored texts.
        picks = [rng.randrange(size) for _ in range(queries)]
        noise = np.random.default_rng(5).standard_normal((queries, _DIM), dtype=np.float32)
        qvecs = vectors[picks] + 0.03 * noise
        qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
        qtexts = [" ".join(rng.sample(texts[p].split(), 3)) for p in picks]
        await store.search(MemoryQuery(text="warm up", limit=10, touch=False))
        figures.numpy_ms, figures.vector_ms = await _vector_leg(store, vectors, qvecs)
        figures.recall = await _planted_recall(db, store, picks, qvecs)
        figures.hybrid_ms = await _search_times(store, qtexts, touch=False)
        figures.touch_ms = await _search_times(store, qtexts[:30], touch=True)
        for text in qtexts[:50]:
            t0 = time.perf_counter()
            await embedder.embed([text])
            figures.embed_ms.append((time.perf_counter() - t0) * 1000)
    finally:
        await db.close()
    _print_speed(size, figures)


async def _bulk_insert(
    store: SQLiteMemoryStore, vectors: Any, texts: list[str], size: int
) -> float:
    """Seconds to bulk-load ``size`` rows with their given vectors, 2000 per transaction."""
    drafts = (MemoryDraft(content=texts[i]) for i in range(size))
    blobs = (vectors[i].astype("<f4").tobytes() for i in range(size))
    started = time.perf_counter()
    await store.add_many(drafts, vectors=blobs, dedupe=False, batch=2000)
    return time.perf_counter() - started


async def _vector_leg(
    store: SQLiteMemoryStore, vectors: Any, qvecs: Any
) -> tuple[list[float], list[float]]:
    """Each query's top 10 by a NumPy scan and by the store's vector leg, in ms."""
    import numpy as np

    numpy_ms: list[float] = []
    vector_ms: list[float] = []
    for q in qvecs:
        t0 = time.perf_counter()
        scores = vectors @ q
        top = np.argpartition(-scores, 10)[:10]
        top = top[np.argsort(-scores[top])]
        numpy_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        near = await store.nearest(q.astype("<f4").tobytes(), 10)
        vector_ms.append((time.perf_counter() - t0) * 1000)
        del top, near
    return numpy_ms, vector_ms


async def _planted_recall(
    db: Database, store: SQLiteMemoryStore, picks: list[int], qvecs: Any
) -> float:
    """How often the vector leg's top 10 holds the stored row each query was made from."""
    # Bulk rows were inserted in order: row i has seq i + 1.
    source_ids: list[str] = await db.read(
        lambda conn: [
            str(conn.execute("SELECT id FROM memories WHERE seq = ?", (p + 1,)).fetchone()[0])
            for p in picks
        ]
    )
    recall = 0
    for q, source in zip(qvecs, source_ids, strict=True):
        near = await store.nearest(q.astype("<f4").tobytes(), 10)
        recall += int(source in {memory_id for memory_id, _ in near})
    return recall / len(source_ids)


async def _search_times(store: SQLiteMemoryStore, texts: list[str], *, touch: bool) -> list[float]:
    """Each hybrid search's time in ms (``touch``: with its access-statistics write)."""
    times: list[float] = []
    for text in texts:
        t0 = time.perf_counter()
        await store.search(MemoryQuery(text=text, limit=10, touch=touch))
        times.append((time.perf_counter() - t0) * 1000)
    return times


def _print_speed(size: int, figures: _SpeedFigures) -> None:
    vector_ms, numpy_ms, hybrid_ms = figures.vector_ms, figures.numpy_ms, figures.hybrid_ms
    vec_p50 = statistics.median(vector_ms)
    np_p50 = statistics.median(numpy_ms)
    single, embed, touch = (
        statistics.median(values)
        for values in (figures.single_ms, figures.embed_ms, figures.touch_ms)
    )
    mode = "exact vec0 float KNN" if size <= 20_000 else "vec0 bit-quantised pass + exact rerank"
    print(f"\n{size:,} memories")
    print(f"  bulk insert (row+FTS+vec0, 2000/txn)  {size / figures.insert_s:10,.0f} rows/s")
    print(f"  single add (embed+dedupe+txn+fsync)   median {single:7.2f} ms")
    print(
        f"  hybrid search (embed+BM25+KNN+RRF)     p50 {statistics.median(hybrid_ms):7.2f} ms"
        f"   p95 {percentile(hybrid_ms, 0.95):7.2f} ms"
    )
    print(f"    of which query embedding           p50 {embed:7.2f} ms")
    print(f"  hybrid search + access-stat write     p50 {touch:7.2f} ms")
    print(
        f"  vector leg ({mode})  p50 {vec_p50:7.2f} ms   p95 {percentile(vector_ms, 0.95):7.2f} ms"
    )
    print(
        f"  NumPy brute force (float32 matmul)     p50 {np_p50:7.2f} ms   "
        f"p95 {percentile(numpy_ms, 0.95):7.2f} ms"
    )
    print(f"  vector leg / NumPy                     {vec_p50 / np_p50:7.2f}x")
    print(f"  vector leg finds the planted neighbour {figures.recall:7.1%} (top 10)")
