"""The owner's database: one writer thread, one reader thread, async API.

SQLite calls block, so none runs on the event loop. All writes go through ONE connection on
ONE dedicated thread, fed by a queue: this is what "one process owns the data" means inside the
owner, and it sidesteps the WAL-reset bug of SQLite < 3.51.3, which needs concurrent writers.
Reads use a second, read-only connection on its own thread; thanks to WAL they see the last
committed state and never wait behind a write in progress.

Each job's result comes back through a :class:`concurrent.futures.Future` wrapped with
:func:`asyncio.wrap_future`, so any event loop (plain asyncio or qasync) can await it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import os
import queue
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Final, NoReturn, TypeVar

from aria_desktop.adapters.storage.connection import (
    Connection,
    connect,
    driver_errors,
    load_vec,
    sqlite_info,
    storage_error,
)
from aria_desktop.adapters.storage.migrations import (
    MIGRATIONS,
    Migration,
    check_not_too_new,
    migrate,
    schema_version,
)
from aria_desktop.adapters.storage.owner_lock import OwnerLock, make_private_dirs
from aria_desktop.domain.errors import AriaError, DatabaseOwnedError, StorageError

_LOGGER = logging.getLogger(__name__)

T = TypeVar("T")

_JOIN_TIMEOUT_S = 10.0
"""How long ``close`` waits for a worker thread to exit after its last job, in seconds."""


def _reraise(exc: BaseException, action: str) -> NoReturn:
    """Re-raise ``exc``: AriaErrors and non-Exceptions unchanged, others as StorageError."""
    if isinstance(exc, AriaError) or not isinstance(exc, Exception):
        raise exc
    if isinstance(exc, driver_errors()):
        raise storage_error(exc, action) from exc
    raise StorageError(
        f"Could not {action}: {type(exc).__name__}: {exc}",
        hint="This is a bug in ARIA; please report it with the log.",
    ) from exc


def _in_transaction(
    conn: Connection, fn: Callable[[Connection], T], *, begin: str, action: str
) -> T:
    """Run ``fn(conn)`` between ``begin`` and ``COMMIT``; roll back when it raises.

    A job that ends the transaction itself is a bug (what it does after that escapes the
    atomicity its caller relies on), so it fails loudly instead of committing.

    Raises:
        AriaError: whatever ``fn`` raised, unchanged, when it is an ``AriaError``.
        StorageError: any other failure (the original is its ``__cause__``).
    """
    try:
        conn.execute(begin)
        try:
            result = fn(conn)
            if not conn.in_transaction:
                raise StorageError(
                    "A database job ended its own transaction.",
                    hint="This is a bug in ARIA; please report it with the log.",
                )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except BaseException as exc:
        _reraise(exc, action)
    return result


class _Worker:
    """A thread that runs submitted callables one at a time, in order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.SimpleQueue[tuple[concurrent.futures.Future[Any], Callable[[], Any]]] = (
            queue.SimpleQueue()
        )
        self._lock = threading.Lock()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[[], T], *, last: bool = False) -> concurrent.futures.Future[T]:
        """Queue ``fn``; with ``last``, nothing may be queued after it and the thread then ends."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._lock:
            if self._stopped:
                raise StorageError(
                    "The database is closed.",
                    hint="ARIA is shutting down; retry after it has restarted.",
                )
            self._stopped = last
            self._queue.put((future, fn))
        return future

    def _run(self) -> None:
        while True:
            future, fn = self._queue.get()
            if future.set_running_or_notify_cancel():
                try:
                    result = fn()
                except BaseException as exc:  # handed to the awaiting coroutine
                    future.set_exception(exc)
                else:
                    future.set_result(result)
            with self._lock:
                if self._stopped and self._queue.empty():
                    return

    def join(self, timeout_s: float) -> None:
        """Wait for the thread to end (after a ``last`` job)."""
        self._thread.join(timeout_s)
        if self._thread.is_alive():
            _LOGGER.warning("Database thread %s did not stop within %.1f s", self.name, timeout_s)


_OPEN_PATHS_LOCK = threading.Lock()
_OPEN_PATHS: set[Path] = set()
"""Database files open in this process: a second ``Database`` would be a second writer."""


def _claim_in_process(db_path: Path) -> None:
    with _OPEN_PATHS_LOCK:
        if db_path in _OPEN_PATHS:
            raise DatabaseOwnedError(
                f"The database {db_path} is already open in this process.",
                pid=os.getpid(),
                port=None,
                hint="This is a bug in ARIA: share the one Database object instead.",
            )
        _OPEN_PATHS.add(db_path)


def _release_in_process(db_path: Path) -> None:
    with _OPEN_PATHS_LOCK:
        _OPEN_PATHS.discard(db_path)


def _take_ownership(db_path: Path, port: int | None) -> OwnerLock | None:
    """Acquire the owner lock; None when this process already holds it another way.

    The composition root may take the lock itself before opening the database (to publish
    its API port early); that process is the owner already, so the database just opens.
    """
    owner_lock = OwnerLock(db_path)
    try:
        owner_lock.acquire(port)
    except DatabaseOwnedError as exc:
        if exc.pid != os.getpid():
            raise
        _LOGGER.debug("This process already holds the owner lock of %s", db_path)
        return None
    return owner_lock


def _undo_prepare(preparing: asyncio.Future[tuple[Path, OwnerLock | None]]) -> None:
    """Release what a cancelled ``Database.open`` claimed (quick: no disk flush involved)."""
    if preparing.cancelled() or preparing.exception() is not None:
        return
    db_path, owner_lock = preparing.result()
    if owner_lock is not None:
        owner_lock.release()
    _release_in_process(db_path)


class Database:
    """The owner's connection pair to one SQLite file. Create with :meth:`open`.

    Use :meth:`write` for anything that changes the database and :meth:`read` for queries;
    both take a function of the connection that runs on the right thread, inside one
    transaction. ``close`` (or ``async with``) drains queued work and closes everything.

    Attributes:
        path: the database file (absolute).
        schema_version: migrations applied (``PRAGMA user_version``) when it was opened.
        vec_available: whether sqlite-vec is loaded on both connections (vector search
            possible).
    """

    def __init__(
        self,
        *,
        path: Path,
        writer: _Worker,
        writer_conn: Connection,
        reader: _Worker,
        reader_conn: Connection,
        owner_lock: OwnerLock | None,
        schema_version: int,
        vec_available: bool,
    ) -> None:
        """Private: use :meth:`open`, which builds the threads and connections."""
        self.path: Final = path
        self.schema_version: Final = schema_version
        self.vec_available: Final = vec_available
        self._writer = writer
        self._writer_conn = writer_conn
        self._reader = reader
        self._reader_conn = reader_conn
        self._owner_lock = owner_lock
        self._close_task: asyncio.Task[None] | None = None

    @property
    def owner_lock(self) -> OwnerLock | None:
        """The owner lock this object took and releases on close.

        None when opened with ``take_lock=False`` or when this process already held the lock
        through its own :class:`OwnerLock` (then the caller releases that one).
        """
        return self._owner_lock

    @property
    def closed(self) -> bool:
        """Whether ``close`` has been called."""
        return self._close_task is not None

    @classmethod
    async def open(
        cls,
        path: Path | str,
        *,
        port: int | None = None,
        take_lock: bool = True,
        migrations: Sequence[Migration] = MIGRATIONS,
    ) -> Database:
        """Take ownership of ``path``, migrate it and start the writer and reader threads.

        Args:
            path: the database file; missing parent folders are created private (0700).
            port: this process's local API port, written into the owner lock file.
            take_lock: hold the owner lock while open. If this process already holds it (the
                composition root took it first), that counts as ownership and it is left to
                its holder. Only tools that must bypass ownership pass False.
            migrations: the schema steps (tests pass their own).

        Raises:
            DatabaseOwnedError: another live ARIA process owns the database.
            SchemaTooNewError: a newer ARIA wrote the database; nothing was written.
            StorageError: the file cannot be created, opened or migrated.
        """
        preparing = asyncio.ensure_future(
            asyncio.to_thread(cls._prepare, path, port, take_lock, migrations)
        )
        try:
            db_path, owner_lock = await asyncio.shield(preparing)
        except asyncio.CancelledError:
            # The thread finishes anyway: give back what it took once it has.
            preparing.add_done_callback(_undo_prepare)
            raise
        # Connections opened so far, per worker, so a failed or cancelled open closes them on
        # their own threads.
        opened: dict[str, list[Connection]] = {"writer": [], "reader": []}
        writer: _Worker | None = None
        reader: _Worker | None = None
        try:
            writer = _Worker("aria-db-writer")
            writer_conn, version, writer_vec = await asyncio.wrap_future(
                writer.submit(lambda: cls._open_writer(db_path, migrations, opened["writer"]))
            )
            reader = _Worker("aria-db-reader")
            reader_conn, reader_vec = await asyncio.wrap_future(
                reader.submit(lambda: cls._open_reader(db_path, opened["reader"]))
            )
            info = await asyncio.to_thread(sqlite_info)
        except BaseException:
            await asyncio.to_thread(cls._abandon, db_path, writer, reader, opened, owner_lock)
            raise
        _LOGGER.info(
            "Opened database %s (schema %d; SQLite %s via %s; FTS5 %s; sqlite-vec %s)",
            db_path,
            version,
            info.sqlite_version,
            info.driver,
            "yes" if info.fts5 else "no",
            info.vec_version or f"unavailable: {info.vec_error}",
        )
        return cls(
            path=db_path,
            writer=writer,
            writer_conn=writer_conn,
            reader=reader,
            reader_conn=reader_conn,
            owner_lock=owner_lock,
            schema_version=version,
            vec_available=writer_vec and reader_vec,
        )

    @staticmethod
    def _prepare(
        path: Path | str, port: int | None, take_lock: bool, migrations: Sequence[Migration]
    ) -> tuple[Path, OwnerLock | None]:
        db_path = Path(path).expanduser().absolute()
        _claim_in_process(db_path)
        owner_lock: OwnerLock | None = None
        try:
            make_private_dirs(db_path.parent)
            if take_lock:
                owner_lock = _take_ownership(db_path, port)
            # Refuse a newer schema before the writer connection switches the file to WAL:
            # an older ARIA must not change a single byte of it.
            if db_path.exists() and db_path.stat().st_size > 0:
                probe = connect(db_path, read_only=True)
                try:
                    check_not_too_new(schema_version(probe), migrations)
                except driver_errors() as exc:
                    raise storage_error(exc, "read the schema version of", db_path) from exc
                finally:
                    probe.close()
            else:
                # Chat history is private: create the file owner-only (SQLite gives its -wal
                # and -shm files the same mode).
                os.close(os.open(db_path, os.O_RDWR | os.O_CREAT, 0o600))
        except BaseException as exc:
            if owner_lock is not None:
                owner_lock.release()
            _release_in_process(db_path)
            if isinstance(exc, OSError):
                raise StorageError(
                    f"Could not create the database {db_path}: {exc}",
                    hint="Check the permissions of its folder or choose another data path.",
                ) from exc
            raise
        return db_path, owner_lock

    @staticmethod
    def _open_writer(
        db_path: Path, migrations: Sequence[Migration], opened: list[Connection]
    ) -> tuple[Connection, int, bool]:
        conn = connect(db_path)
        opened.append(conn)
        try:
            vec = load_vec(conn)
            migrate(conn, migrations)
            version = schema_version(conn)
        except BaseException as exc:
            _reraise(exc, f"migrate the database {db_path}")
        return conn, version, vec

    @staticmethod
    def _open_reader(db_path: Path, opened: list[Connection]) -> tuple[Connection, bool]:
        conn = connect(db_path, read_only=True)
        opened.append(conn)
        return conn, load_vec(conn)

    @staticmethod
    def _abandon(
        db_path: Path,
        writer: _Worker | None,
        reader: _Worker | None,
        opened: dict[str, list[Connection]],
        owner_lock: OwnerLock | None,
    ) -> None:
        """Undo a failed or cancelled open, closing each connection on its own thread."""

        def close_all(conns: list[Connection]) -> None:
            for conn in conns:
                try:
                    conn.close()
                except driver_errors() as exc:
                    _LOGGER.warning("Closing a connection failed: %s", exc)

        for key, worker in (("writer", writer), ("reader", reader)):
            if worker is not None:
                worker.submit(functools.partial(close_all, opened[key]), last=True)
                worker.join(_JOIN_TIMEOUT_S)
        if owner_lock is not None:
            owner_lock.release()
        _release_in_process(db_path)

    async def write(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(conn)`` on the writer thread inside ``BEGIN IMMEDIATE`` ... ``COMMIT``.

        When ``fn`` raises, the transaction is rolled back. The change is durable
        (``synchronous=FULL``) once this returns. If the awaiting task's cancellation reaches the
        queued job before ``fn`` starts, it never runs; once started it completes, committed or
        not.

        Raises:
            AriaError: whatever ``fn`` raised, unchanged, when it is an ``AriaError``.
            StorageError: any other failure (the original is its ``__cause__``).
        """
        return await asyncio.wrap_future(self._writer.submit(lambda: self._run_write(fn)))

    async def read(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(conn)`` on the reader thread inside one read transaction (a snapshot).

        ``fn`` sees the last committed state and never waits for a write in progress. The
        connection is read-only: writing through it fails.

        Raises:
            AriaError: whatever ``fn`` raised, unchanged, when it is an ``AriaError``.
            StorageError: any other failure (the original is its ``__cause__``).
        """
        return await asyncio.wrap_future(self._reader.submit(lambda: self._run_read(fn)))

    def _run_write(self, fn: Callable[[Connection], T]) -> T:
        return _in_transaction(
            self._writer_conn,
            fn,
            begin="BEGIN IMMEDIATE",
            action=f"write to the database {self.path}",
        )

    def _run_read(self, fn: Callable[[Connection], T]) -> T:
        return _in_transaction(
            self._reader_conn, fn, begin="BEGIN", action=f"read the database {self.path}"
        )

    async def close(self, *, optimize: bool = True) -> None:
        """Finish queued work, close both connections and give up ownership (idempotent).

        Args:
            optimize: run ``PRAGMA optimize`` on the writer first (keeps query plans good).
        """
        if self._close_task is None:
            self._close_task = asyncio.create_task(
                self._close(optimize=optimize), name="aria-db-close"
            )
        await asyncio.shield(self._close_task)

    async def _close(self, *, optimize: bool) -> None:
        # The reader closes first: the last connection on the file checkpoints the WAL and
        # removes it, which a read-only one closing last would not do (seen under load).
        try:
            try:
                await asyncio.wrap_future(self._reader.submit(self._close_reader, last=True))
            finally:
                writer_done = self._writer.submit(lambda: self._close_writer(optimize), last=True)
            await asyncio.wrap_future(writer_done)
        finally:
            await asyncio.to_thread(self._reader.join, _JOIN_TIMEOUT_S)
            await asyncio.to_thread(self._writer.join, _JOIN_TIMEOUT_S)
            if self._owner_lock is not None:
                await asyncio.to_thread(self._owner_lock.release)
            _release_in_process(self.path)
        _LOGGER.info("Closed database %s", self.path)

    def _close_reader(self) -> None:
        try:
            self._reader_conn.close()
        except driver_errors() as exc:
            _LOGGER.warning("Closing the read connection failed: %s", exc)

    def _close_writer(self, optimize: bool) -> None:
        conn = self._writer_conn
        try:
            if optimize:
                conn.execute("PRAGMA optimize")
        except driver_errors() as exc:
            _LOGGER.warning("PRAGMA optimize failed: %s", exc)
        try:
            conn.close()
        except driver_errors() as exc:
            _LOGGER.warning("Closing the write connection failed: %s", exc)

    async def __aenter__(self) -> Database:
        """Use the already opened database in an ``async with`` block."""
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Close on leaving the block."""
        await self.close()
