"""The embedder's workers: an ingest's texts shared out side by side, a query never behind it."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from aria_desktop.adapters.memory.embedding import (
    BULK_NICENESS,
    LocalEmbedder,
    default_bulk_workers,
)

_PASSAGES = [
    f"Section {n}. The boiler's pressure should read {n % 3 + 1}.{n % 10} bar when cold; "
    f"bleed radiator {n} if its top stays cool."
    for n in range(40)
]


@pytest.fixture(scope="module")
def embedder(embedding_cache: Path) -> Iterator[LocalEmbedder]:
    model = LocalEmbedder(workers=2, cache_dir=embedding_cache)
    yield model
    model.close()


def _matrix(vectors: list[bytes]) -> np.ndarray:
    return np.frombuffer(b"".join(vectors), dtype="<f4").reshape(len(vectors), -1)


def test_a_machine_gets_one_bulk_worker_per_cpu_up_to_four_or_half_if_not_lowered() -> None:
    cpus = (None, 1, 2, 3, 4, 8, 64)
    assert [default_bulk_workers(c, lowered=True) for c in cpus] == [1, 1, 2, 3, 4, 4, 4]
    # Where their priority cannot be lowered (not Linux), at most half the CPUs.
    assert [default_bulk_workers(c, lowered=False) for c in cpus] == [1, 1, 1, 1, 2, 2, 2]


async def test_texts_shared_out_to_workers_come_back_in_order_as_embedded_alone(
    embedder: LocalEmbedder,
) -> None:
    shared = _matrix(await embedder.embed(_PASSAGES))
    alone = _matrix([embedder.embed_sync([text])[0] for text in _PASSAGES])
    assert (shared * alone).sum(axis=1).min() > 0.99999  # same text, same vector, same place


async def test_a_query_is_embedded_while_every_bulk_worker_is_busy(
    embedder: LocalEmbedder,
) -> None:
    await embedder.warm_up()
    release = threading.Event()
    busy = [embedder._bulk.submit(release.wait) for _ in range(2)]
    try:
        (vector,) = await embedder.embed(["when was the boiler serviced?"])
        assert len(vector) == 384 * 4
        assert not any(job.done() for job in busy)  # the ingest's workers were all taken
    finally:
        release.set()
    await asyncio.wrap_future(busy[0])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
async def test_bulk_workers_run_at_lower_priority_and_queries_at_normal(
    embedder: LocalEmbedder,
) -> None:
    normal = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def own_priority() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    bulk = await asyncio.wrap_future(embedder._bulk.submit(own_priority))
    interactive = await asyncio.wrap_future(embedder._executor.submit(own_priority))
    assert bulk == min(normal + BULK_NICENESS, 19)
    assert interactive == normal


def test_a_closed_embedder_leaves_no_worker_threads(embedding_cache: Path) -> None:
    # Compared by thread, not by count: a thread an earlier test left may end meanwhile.
    before = set(threading.enumerate())
    model = LocalEmbedder(workers=3, cache_dir=embedding_cache)
    assert len(asyncio.run(model.embed(_PASSAGES[:9]))) == 9  # the bulk workers started
    assert set(threading.enumerate()) - before
    model.close()
    assert not set(threading.enumerate()) - before
