"""Database: one writer thread, one reader thread, transactions, closing, ownership."""

from __future__ import annotations

import asyncio
import os
import stat
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from aria_desktop.adapters.storage.connection import Connection, driver
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.migrations import Migration
from aria_desktop.adapters.storage.owner_lock import OwnerLock, read_owner
from aria_desktop.domain.errors import DatabaseOwnedError, NotFoundError, StorageError

pytestmark = pytest.mark.timeout(30)

WAIT_S = 5.0
"""Upper bound for any single wait in these tests, seconds."""

NOTES = (Migration(name="notes", statements=("CREATE TABLE notes (body TEXT)",)),)


@pytest.fixture
async def notes_db(db_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(db_path, migrations=NOTES)
    try:
        yield database
    finally:
        await database.close()


def _insert(body: str) -> Callable[[Connection], int]:
    def run(conn: Connection) -> int:
        return int(conn.execute("INSERT INTO notes VALUES (?)", (body,)).lastrowid or 0)

    return run


def _bodies(conn: Connection) -> list[str]:
    return [str(r[0]) for r in conn.execute("SELECT body FROM notes ORDER BY rowid")]


async def test_write_commits_and_returns_the_function_result(notes_db: Database) -> None:
    assert await notes_db.write(_insert("a")) == 1
    assert await notes_db.read(_bodies) == ["a"]


async def test_write_function_runs_inside_an_immediate_transaction(notes_db: Database) -> None:
    assert await notes_db.write(lambda conn: conn.in_transaction) is True


async def test_write_rolls_back_when_the_function_raises(notes_db: Database) -> None:
    def insert_then_fail(conn: Connection) -> None:
        conn.execute("INSERT INTO notes VALUES ('lost')")
        raise ValueError("boom")

    with pytest.raises(StorageError) as info:
        await notes_db.write(insert_then_fail)
    assert isinstance(info.value.__cause__, ValueError)
    assert await notes_db.read(_bodies) == []
    await notes_db.write(_insert("after"))  # the writer is still usable
    assert await notes_db.read(_bodies) == ["after"]


async def test_aria_errors_from_the_function_propagate_unchanged(notes_db: Database) -> None:
    error = NotFoundError("nope", hint="h")

    def fail(conn: Connection) -> None:
        conn.execute("INSERT INTO notes VALUES ('lost')")
        raise error

    with pytest.raises(NotFoundError) as info:
        await notes_db.write(fail)
    assert info.value is error
    with pytest.raises(NotFoundError):
        await notes_db.read(lambda conn: (_ for _ in ()).throw(error))
    assert await notes_db.read(_bodies) == []


async def test_sqlite_errors_become_storage_errors_with_hint_and_cause(notes_db: Database) -> None:
    with pytest.raises(StorageError) as info:
        await notes_db.write(lambda conn: conn.execute("INSERT INTO missing VALUES (1)"))
    assert isinstance(info.value.__cause__, driver().OperationalError)
    assert info.value.hint
    with pytest.raises(StorageError):
        await notes_db.read(lambda conn: conn.execute("INSERT INTO notes VALUES ('x')"))


async def test_write_that_commits_by_itself_is_reported(notes_db: Database) -> None:
    def sneaky(conn: Connection) -> None:
        conn.execute("COMMIT")

    with pytest.raises(StorageError, match="ended its own transaction"):
        await notes_db.write(sneaky)


async def test_writes_run_one_at_a_time_in_submission_order(notes_db: Database) -> None:
    async with asyncio.timeout(WAIT_S):
        await asyncio.gather(*(notes_db.write(_insert(str(i))) for i in range(50)))
    assert await notes_db.read(_bodies) == [str(i) for i in range(50)]


async def test_reads_do_not_wait_behind_a_long_write(notes_db: Database) -> None:
    started = threading.Event()
    may_finish = threading.Event()

    def long_write(conn: Connection) -> None:
        conn.execute("INSERT INTO notes VALUES ('slow')")
        started.set()
        # The write holds its transaction until the read below has returned: a read that
        # waited behind it would never return and the timeout would fail the test.
        assert may_finish.wait(WAIT_S)

    async with asyncio.timeout(WAIT_S):
        writing = asyncio.create_task(notes_db.write(long_write))
        assert await asyncio.to_thread(started.wait, WAIT_S)
        seen = await notes_db.read(_bodies)
        assert not writing.done()
        may_finish.set()
        await writing
    assert seen == []  # the uncommitted row is invisible
    assert await notes_db.read(_bodies) == ["slow"]


async def test_event_loop_keeps_running_during_a_long_write(notes_db: Database) -> None:
    started = threading.Event()
    may_finish = threading.Event()

    def long_write(conn: Connection) -> None:
        started.set()
        # Only a coroutine on the event loop releases the write: it can finish only if the
        # loop keeps running while the write is in progress.
        assert may_finish.wait(WAIT_S)

    async def release_after_loop_turns(turns: int) -> None:
        for _ in range(turns):
            await asyncio.sleep(0)
        may_finish.set()

    async with asyncio.timeout(WAIT_S):
        writing = asyncio.create_task(notes_db.write(long_write))
        assert await asyncio.to_thread(started.wait, WAIT_S)
        await release_after_loop_turns(10)
        await writing


async def test_read_sees_one_snapshot_even_when_a_write_commits_meanwhile(
    notes_db: Database,
) -> None:
    await notes_db.write(_insert("before"))
    first_done = threading.Event()
    may_continue = threading.Event()

    def two_reads(conn: Connection) -> tuple[list[str], list[str]]:
        first = _bodies(conn)
        first_done.set()
        assert may_continue.wait(WAIT_S)
        return first, _bodies(conn)

    async with asyncio.timeout(WAIT_S):
        reading = asyncio.create_task(notes_db.read(two_reads))
        assert await asyncio.to_thread(first_done.wait, WAIT_S)
        await notes_db.write(_insert("meanwhile"))  # not blocked by the open read
        may_continue.set()
        first, second = await reading
    assert first == second == ["before"]
    assert await notes_db.read(_bodies) == ["before", "meanwhile"]


async def test_write_cancelled_before_it_starts_never_runs(notes_db: Database) -> None:
    release = threading.Event()
    blocking_started = threading.Event()

    def blocker(conn: Connection) -> None:
        blocking_started.set()
        assert release.wait(WAIT_S)

    async with asyncio.timeout(WAIT_S):
        blocking = asyncio.create_task(notes_db.write(blocker))
        queued = asyncio.create_task(notes_db.write(_insert("cancelled")))
        assert await asyncio.to_thread(blocking_started.wait, WAIT_S)
        queued.cancel()
        # The job's future is cancelled by a callback that asyncio.wrap_future registered
        # before the task awaited it: once the task is done, the job is cancelled too, and
        # the writer thread, freed next, skips it.
        await asyncio.wait({queued})
        release.set()
        await blocking
        with pytest.raises(asyncio.CancelledError):
            await queued
    assert await notes_db.read(_bodies) == []


async def test_close_finishes_queued_writes_and_is_idempotent(db_path: Path) -> None:
    db = await Database.open(db_path, migrations=NOTES)
    writes = [asyncio.create_task(db.write(_insert(str(i)))) for i in range(20)]
    await asyncio.sleep(0)  # let the tasks queue their jobs
    async with asyncio.timeout(WAIT_S):
        await asyncio.gather(db.close(), db.close())
        await db.close()
        results = await asyncio.gather(*writes)
    assert results == list(range(1, 21))
    assert db.closed

    with pytest.raises(StorageError, match="closed"):
        await db.write(_insert("late"))
    with pytest.raises(StorageError, match="closed"):
        await db.read(_bodies)

    reopened = await Database.open(db_path, migrations=NOTES)
    try:
        assert await reopened.read(_bodies) == [str(i) for i in range(20)]
    finally:
        await reopened.close()


async def test_close_checkpoints_the_wal_and_releases_ownership(db_path: Path) -> None:
    db = await Database.open(db_path, migrations=NOTES)
    await db.write(_insert("x"))
    assert read_owner(db_path) is not None
    await db.close()
    assert read_owner(db_path) is None
    assert not db_path.with_name(db_path.name + "-wal").exists()


async def test_open_creates_private_parent_folders_and_file(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "aria.db"
    db = await Database.open(path)
    await db.close()
    for folder in (tmp_path / "a", tmp_path / "a" / "b"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert db.vec_available


async def test_second_database_on_the_same_file_in_one_process_is_refused(
    db: Database, db_path: Path
) -> None:
    with pytest.raises(DatabaseOwnedError) as info:
        await Database.open(db_path)
    assert info.value.pid == os.getpid()
    assert await db.read(lambda conn: 1) == 1  # the first one is unaffected


async def test_open_accepts_an_owner_lock_this_process_already_holds(db_path: Path) -> None:
    with OwnerLock(db_path) as lock:
        lock.set_port(8765)
        db = await Database.open(db_path)
        assert db.owner_lock is None
        await db.close()
        owner = read_owner(db_path)
        assert owner is not None
        assert (owner.pid, owner.port) == (os.getpid(), 8765)  # still held by its taker


async def test_open_writes_the_port_into_the_owner_lock(db_path: Path) -> None:
    db = await Database.open(db_path, port=4321)
    try:
        owner = read_owner(db_path)
        assert owner is not None
        assert (owner.pid, owner.port) == (os.getpid(), 4321)
    finally:
        await db.close()


async def test_open_on_a_file_that_is_not_a_database_raises_storage_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StorageError) as info:
        await Database.open(path)
    assert "damaged" in info.value.hint
    assert read_owner(path) is None


@pytest.mark.parametrize("cancel_after_s", [0.0, 0.001, 0.005, 0.02, 0.05])
async def test_cancelled_open_gives_back_ownership(db_path: Path, cancel_after_s: float) -> None:
    opening = asyncio.create_task(Database.open(db_path))
    await asyncio.sleep(cancel_after_s)
    opening.cancel()
    try:
        async with asyncio.timeout(WAIT_S):
            db = await opening
        await db.close()  # it finished before the cancel landed
    except asyncio.CancelledError:
        pass
    async with asyncio.timeout(WAIT_S):
        while True:  # clean-up of a cancelled open finishes on its threads
            try:
                db = await Database.open(db_path)
            except DatabaseOwnedError:
                await asyncio.sleep(0.01)
                continue
            break
    await db.close()
    assert read_owner(db_path) is None
