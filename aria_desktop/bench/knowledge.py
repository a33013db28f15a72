"""``aria bench knowledge``: ingest throughput, search latency at 50k passages, unchanged rescan.

* **ingest** — a generated folder of Markdown files (sections under headings) is added to a
  fresh knowledge base with the packaged embedder (int8 MiniLM): passages per second end to
  end (walk, read, extract, chunk, embed, write), beside the embedder alone on the same texts
  (the reference: what the model allows).
* **search** — 50k passages (bulk rows with random unit vectors and random-word text, like
  ``aria bench memory``: embedding 50k passages would measure the model, not the index), then
  hybrid searches with the query embedded by the real model: p50/p95, and the query embedding
  alone for reference.
* **rescan** — a folder of 10k small files indexed (keyword only: the rescan never embeds),
  then rescanned unchanged: the time to find that nothing changed.

Targets (issue 17): >= 150 passages/s, search p50 <= 30 ms, rescan <= 2 s.
"""

from __future__ import annotations

import functools
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from aria_desktop.adapters.knowledge import rows
from aria_desktop.adapters.knowledge.chunking import Chunk
from aria_desktop.adapters.knowledge.scan import FileStat, Prepared
from aria_desktop.adapters.knowledge.store import SQLiteKnowledgeStore
from aria_desktop.adapters.memory.embedding import LocalEmbedder
from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.bench._util import percentile, vocabulary
from aria_desktop.domain.knowledge import IngestReport, KnowledgeQuery

__all__ = ["run_knowledge_bench"]

_WORDS = tuple(
    [
        "router",
        "printer",
        "invoice",
        "contract",
        "warranty",
        "garden",
        "recipe",
        "kettle",
        "battery",
        "engine",
        "budget",
        "meeting",
        "holiday",
        "passport",
        "insurance",
        "mortgage",
        "lease",
        "deposit",
        "notice",
        "pension",
        "salary",
        "tax",
        "receipt",
        "doctor",
        "dentist",
        "vaccine",
        "school",
        "teacher",
        "homework",
        "piano",
        "guitar",
        "bicycle",
        "train",
        "ticket",
        "flight",
        "hotel",
        "museum",
        "concert",
        "library",
        "archive",
        "backup",
        "server",
        "password",
        "network",
        "cable",
        "screen",
        "keyboard",
        "camera",
        "lens",
        "tripod",
        "paint",
        "ladder",
        "window",
        "door",
        "heating",
        "boiler",
        "pipe",
        "valve",
        "filter",
    ]
)
_DIM = 384


def _sentence(rng: random.Random) -> str:
    words = rng.choices(_WORDS, k=rng.randint(8, 16))
    return " ".join(words).capitalize() + "."


def _markdown(rng: random.Random, sections: int) -> str:
    parts = [f"# {' '.join(rng.choices(_WORDS, k=2)).title()}"]
    for _ in range(sections):
        parts.append(f"## {' '.join(rng.choices(_WORDS, k=3)).title()}")
        parts.append(" ".join(_sentence(rng) for _ in range(rng.randint(4, 7))))
    return "\n\n".join(parts) + "\n"


def _write_folder(folder: Path, files: int, sections: int, seed: int) -> None:
    rng = random.Random(seed)
    for index in range(files):
        sub = folder / f"d{index // 500:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"note{index:05d}.md").write_text(_markdown(rng, sections), encoding="utf-8")


async def run_knowledge_bench(*, files: int, chunks: int, rescan_files: int, queries: int) -> None:
    """Run the three parts and print their figures."""
    load = os.getloadavg()[0]
    print(f"Knowledge base ({os.cpu_count()} CPUs, load average {load:.1f} at start)")
    with tempfile.TemporaryDirectory(prefix="aria-bench-knowledge-") as tmp:
        root = Path(tmp)
        embedder = LocalEmbedder()
        try:
            await _ingest(root, embedder, files)
            await _search(root, embedder, chunks, queries)
        finally:
            await embedder.aclose()
        await _rescan(root, rescan_files)


async def _timed_add(
    db: Database, embedder: LocalEmbedder | None, folder: Path
) -> tuple[IngestReport, float]:
    """Add ``folder`` to a fresh store on ``db``: the report and the seconds it took."""
    store = SQLiteKnowledgeStore(db, embedder)
    await store.open()
    started = time.perf_counter()
    _source, report = await store.add(str(folder))
    return report, time.perf_counter() - started


async def _ingest(root: Path, embedder: LocalEmbedder, files: int) -> None:
    folder = root / "ingest"
    _write_folder(folder, files, sections=4, seed=1)
    await embedder.warm_up()
    async with await Database.open(root / "ingest.db", take_lock=False) as db:
        report, elapsed = await _timed_add(db, embedder, folder)
        texts = await db.read(
            lambda conn: [
                f"{h}\n{t}" if h else str(t)
                for h, t in conn.execute("SELECT heading, text FROM knowledge_chunks")
            ]
        )
    started = time.perf_counter()
    await embedder.embed(texts)
    model_s = time.perf_counter() - started
    print(
        f"ingest   {report.files_indexed} files, {report.chunks_added} passages in "
        f"{elapsed:.1f} s: {report.chunks_embedded / elapsed:7.1f} passages/s end to end "
        f"(embedder alone: {len(texts) / model_s:7.1f}/s; target >= 150)"
    )


def _bulk_files(count: int, rng: random.Random) -> list[Prepared]:
    vocab = vocabulary(rng)
    per_file = 10
    prepared: list[Prepared] = []
    for index in range(0, count, per_file):
        path = f"/bench/doc{index // per_file:06d}.md"
        chunks = []
        for offset in range(min(per_file, count - index)):
            text = " ".join(rng.choices(vocab, k=60))
            chunks.append(
                Chunk(
                    text=text,
                    heading="Bench > Section",
                    page=None,
                    start=offset * 400,
                    end=offset * 400 + len(text),
                    hash=f"{index + offset:064x}",
                )
            )
        stat = FileStat(path=path, size=1, mtime_ns=1)
        prepared.append(Prepared(stat=stat, content_hash="0" * 64, title=path, chunks=chunks))
    return prepared


def _bench_source(conn: Connection) -> int:
    cursor = conn.execute(
        "INSERT INTO knowledge_sources (location, kind, watch, added_at) "
        "VALUES ('/bench', 'folder', 0, 0)"
    )
    return int(cursor.lastrowid or 0)


def _unit_vectors(count: int, rng: random.Random) -> list[bytes]:
    import numpy as np

    generator = np.random.default_rng(rng.randint(0, 2**31))
    matrix = generator.standard_normal((count, _DIM)).astype("<f4")
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return [row.tobytes() for row in matrix]


async def _search(root: Path, embedder: LocalEmbedder, chunks: int, queries: int) -> None:
    rng = random.Random(2)
    async with await Database.open(root / "search.db", take_lock=False) as db:
        store = SQLiteKnowledgeStore(db, embedder)
        await store.open()
        index = store._index
        model = embedder.model_id
        source: int = await db.write(_bench_source)
        files = _bulk_files(chunks, rng)
        started = time.perf_counter()
        for start in range(0, len(files), 500):
            batch = files[start : start + 500]
            hashes = [c.hash for f in batch for c in f.chunks]
            vectors = dict(zip(hashes, _unit_vectors(len(hashes), rng), strict=True))
            await db.write(
                functools.partial(
                    rows.write_prepared,
                    source_id=source,
                    files=batch,
                    vectors=vectors,
                    index=index,
                    model=model,
                )
            )
        load_s = time.perf_counter() - started
        stored = [c.text for f in files for c in f.chunks]
        asks = [" ".join(rng.sample(rng.choice(stored).split(), 4)) for _ in range(queries)]
        hybrid: list[float] = []
        embed_only: list[float] = []
        for text in asks:
            began = time.perf_counter()
            await embedder.embed([text])
            embed_only.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            await store.search(KnowledgeQuery(text=text, limit=8))
            hybrid.append((time.perf_counter() - began) * 1000)
    print(
        f"search   {chunks} passages (loaded in {load_s:.1f} s): hybrid p50 "
        f"{statistics.median(hybrid):6.1f} ms  p95 {percentile(hybrid, 0.95):6.1f} ms "
        f"(query embedding alone p50 {statistics.median(embed_only):5.1f} ms; target p50 <= 30)"
    )


async def _rescan(root: Path, files: int) -> None:
    folder = root / "rescan"
    _write_folder(folder, files, sections=1, seed=3)
    async with await Database.open(root / "rescan.db", take_lock=False) as db:
        first, index_s = await _timed_add(db, None, folder)
        store = SQLiteKnowledgeStore(db, None)
        await store.open()
        timings = []
        for _ in range(3):
            started = time.perf_counter()
            report = await store.rescan()
            timings.append(time.perf_counter() - started)
            assert report.files_unchanged == files, report
    print(
        f"rescan   {files} unchanged files: median {statistics.median(timings):5.2f} s "
        f"(first index, keyword only: {first.files_indexed} files in {index_s:.1f} s; "
        "target <= 2 s)"
    )
