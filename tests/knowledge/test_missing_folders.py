"""Sources whose folder goes away and comes back: deleted, or on a drive that is not mounted.

Real folders on disk and the real watcher; the tests wait on the watcher's reports and the
source's state, never on sleeps. A drive that is unplugged cannot be made in a test without
privileges, so that case records a mount point for the source that is not mounted (what the
store finds when the drive is away) and removes the folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from aria_desktop.adapters.knowledge.store import SQLiteKnowledgeStore
from aria_desktop.adapters.knowledge.watcher import FolderWatcher
from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.core.knowledge.service import KnowledgeService
from aria_desktop.domain.knowledge import IngestReport, KnowledgeQuery, KnowledgeSource
from tests.knowledge.corpus import write_corpus

_WAIT_S = 20.0
GARDEN = "# Garden\n\nPlant the tulip bulbs in October, ten centimetres deep.\n"


class _Watched:
    """The real watcher over a store, its reports on a queue."""

    def __init__(self, store: SQLiteKnowledgeStore) -> None:
        self.store = store
        self.service = KnowledgeService(store=store)
        self.reports: asyncio.Queue[IngestReport] = asyncio.Queue()
        self.watcher = FolderWatcher(
            store.apply_changes, store.rescan, self.reports.put_nowait, debounce_ms=100
        )

    async def until(self, done: Callable[[KnowledgeSource], bool], folder: Path) -> None:
        """Wait for reports until ``done`` holds for the folder's source."""
        async with asyncio.timeout(_WAIT_S):
            while not done(await self.store.find(str(folder))):
                await self.reports.get()


@pytest.fixture
async def watched(store: SQLiteKnowledgeStore) -> AsyncIterator[_Watched]:
    watched = _Watched(store)
    watched.service.attach_watcher(watched.watcher.watch, watched.watcher.run)
    task = asyncio.create_task(watched.watcher.run())
    try:
        yield watched
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _found(store: SQLiteKnowledgeStore, text: str) -> list[str]:
    hits = await store.search(KnowledgeQuery(text=text, limit=3, min_similarity=0.5))
    return [Path(h.path).name for h in hits]


async def test_a_deleted_watched_folder_is_missing_then_indexed_again_when_recreated(
    watched: _Watched, store: SQLiteKnowledgeStore, tmp_path: Path
) -> None:
    corpus = write_corpus(tmp_path / "docs")
    await watched.service.add_source(str(corpus), watch=True)
    async with asyncio.timeout(_WAIT_S):
        await watched.watcher.ready.wait()

    shutil.rmtree(corpus)
    await watched.until(lambda s: s.missing_since is not None and s.files == 0, corpus)
    source = await store.find(str(corpus))
    assert source.state == "folder missing"
    assert "router.md" not in await _found(store, "router admin page port")
    status = await watched.service.knowledge_status()
    assert status.watching == status.missing == (str(corpus),)

    corpus.mkdir()
    (corpus / "garden.md").write_text(GARDEN)
    await watched.until(lambda s: s.missing_since is None and s.files == 1, corpus)
    assert await _found(store, "when do I plant tulips") == ["garden.md"]
    assert (await store.find(str(corpus))).state == ""
    assert (await watched.service.knowledge_status()).missing == ()
    # Watched again: a file added now is picked up like before the folder went.
    (corpus / "bikes.md").write_text("# Bikes\n\nThe bike lock code is 4711.\n")
    await watched.until(lambda s: s.files == 2, corpus)
    assert "bikes.md" in await _found(store, "bike lock code")


async def test_a_folder_missing_at_start_is_watched_for_and_indexed_when_it_appears(
    watched: _Watched, store: SQLiteKnowledgeStore, tmp_path: Path
) -> None:
    folder = tmp_path / "later"
    folder.mkdir()
    (folder / "garden.md").write_text(GARDEN)
    await store.add(str(folder), watch=True)
    shutil.rmtree(folder)
    report = await watched.service.start()  # ARIA starts while the folder is away
    [problem] = report.problems
    assert problem.code == "missing"
    assert "deleted or moved?" in problem.message
    async with asyncio.timeout(_WAIT_S):
        await watched.watcher.ready.wait()

    folder.mkdir()  # e.g. the drive it is on is mounted now
    (folder / "garden.md").write_text(GARDEN)
    await watched.until(lambda s: s.missing_since is None and s.files == 1, folder)
    assert await _found(store, "when do I plant tulips") == ["garden.md"]


async def _on_a_drive(db: Database, store: SQLiteKnowledgeStore, folder: Path, drive: Path) -> None:
    """Record ``drive`` as the mount point the source was found under (not mounted now)."""
    source = await store.find(str(folder))

    def record(conn: Connection) -> None:
        conn.execute("UPDATE knowledge_sources SET mount = ? WHERE id = ?", (str(drive), source.id))

    await db.write(record)


async def test_a_folder_on_a_drive_that_is_away_keeps_its_passages(
    db: Database, store: SQLiteKnowledgeStore, tmp_path: Path
) -> None:
    drive = tmp_path / "usb"
    corpus = write_corpus(drive / "docs")
    source, _ = await store.add(str(corpus))
    await _on_a_drive(db, store, corpus, drive)

    drive.rename(tmp_path / "in-a-drawer")  # unplugged: the mount point directory went too
    report = await store.rescan(str(corpus))
    [problem] = report.problems
    assert problem.code == "missing"
    assert f"the drive it was on ({drive}) is not mounted" in problem.message
    assert report.files_removed == 0
    away = await store.find(str(corpus))
    assert away.state == "folder missing (passages kept)"
    assert away.files == source.files
    assert "router.md" in await _found(store, "router admin page port")

    (tmp_path / "in-a-drawer").rename(drive)  # plugged in again: the same files
    (corpus / "garden.md").write_text(GARDEN)
    report = await store.rescan(str(corpus))
    assert report.problems == ()
    assert report.files_unchanged == 4  # same files: not extracted or embedded again
    assert report.files_indexed == 1
    back = await store.find(str(corpus))
    assert (back.missing_since, back.state, back.files) == (None, "", 5)


async def test_a_folder_that_is_the_mount_point_of_a_drive_that_is_away(
    db: Database, store: SQLiteKnowledgeStore, tmp_path: Path
) -> None:
    corpus = write_corpus(tmp_path / "mnt")
    await store.add(str(corpus))
    await _on_a_drive(db, store, corpus, corpus)
    for child in corpus.iterdir():  # unmounted: the empty mount point directory stays
        child.unlink()
    report = await store.rescan(str(corpus))
    assert [p.code for p in report.problems] == ["missing"]
    assert (await store.find(str(corpus))).state == "folder missing (passages kept)"


async def test_a_deleted_folder_drops_its_passages_at_a_rescan(
    store: SQLiteKnowledgeStore, tmp_path: Path
) -> None:
    corpus = write_corpus(tmp_path / "docs")
    await store.add(str(corpus))
    shutil.rmtree(corpus)
    report = await store.rescan()
    assert report.files_removed == 4
    [problem] = report.problems
    assert (problem.code, problem.path) == ("missing", str(corpus))
    gone = await store.find(str(corpus))
    assert (gone.state, gone.files, gone.chunks) == ("folder missing", 0, 0)
    assert await store.counts() == (1, 0, 0, 0)
