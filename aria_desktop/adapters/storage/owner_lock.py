"""One process owns the database: an OS lock on a file next to it.

The owner (daemon or tray app) holds an exclusive, non-blocking OS lock (``flock`` on POSIX,
``msvcrt.locking`` on Windows) on ``<database>.owner.lock`` and writes its pid, API port and
start time into it. The OS drops the lock when the process dies, however it dies, so a lock
file left by a crashed owner is simply taken over. The file itself is never deleted: deleting
a lock file races with a process that has opened but not yet locked it, and two processes
could then both believe they own the database. Release empties it instead.

Other processes (CLI, a second GUI) call :func:`read_owner` to find the owner's API port.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from aria_desktop.domain.errors import DatabaseOwnedError, StorageError

_LOGGER = logging.getLogger(__name__)

_RETRY_S = 1.0
"""How long to retry when the lock is held but its file does not name a live owner, seconds.

That happens for a moment while a new owner writes its details, or while another process
probes the lock with :func:`read_owner`.
"""

_RETRY_INTERVAL_S = 0.02
_WINDOWS_LOCK_OFFSET = 0x7FFF_FFFF
"""Windows locks a byte range and blocks reads of it: lock one byte far past the JSON."""


@dataclass(frozen=True, kw_only=True)
class OwnerInfo:
    """The process that owns the database.

    Attributes:
        pid: its process id (0 when it could not be read yet).
        port: its local API port, None when it serves no API (yet).
        started_at: when it took ownership, UNIX seconds.
    """

    pid: int
    port: int | None
    started_at: float


def lock_path_for(db_path: Path | str) -> Path:
    """The lock file that guards ``db_path``."""
    path = Path(db_path)
    return path.with_name(path.name + ".owner.lock")


def make_private_dirs(directory: Path) -> None:
    """Create ``directory`` and any missing parents readable by the user only (0700).

    ``Path.mkdir(parents=True, mode=...)`` applies the mode to the last folder only.
    """
    missing: list[Path] = []
    current = directory
    while not current.exists():
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)


if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int, *, shared: bool) -> bool:
        del shared  # msvcrt has exclusive locks only
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        finally:
            os.lseek(fd, 0, os.SEEK_SET)
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        finally:
            os.lseek(fd, 0, os.SEEK_SET)

    def _pid_alive(pid: int) -> bool:
        # os.kill(pid, 0) would send CTRL_C_EVENT on Windows; trust the OS lock alone.
        return pid > 0

else:
    import fcntl

    def _try_lock(fd: int, *, shared: bool) -> bool:
        mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

    def _pid_alive(pid: int) -> bool:
        if pid <= 0:
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def _read_info(fd: int) -> OwnerInfo | None:
    """Parse the owner details in the lock file; None when empty or half-written."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        raw = os.read(fd, 4096)
        data = json.loads(raw.decode("utf-8"))
        pid = int(data["pid"])
        port = data.get("port")
        return OwnerInfo(
            pid=pid,
            port=int(port) if port is not None else None,
            started_at=float(data.get("started_at", 0.0)),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _write_info(fd: int, info: OwnerInfo) -> None:
    payload = json.dumps({"pid": info.pid, "port": info.port, "started_at": info.started_at})
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, payload.encode("utf-8"))
    os.fsync(fd)


def _owned_error(info: OwnerInfo, db_path: Path) -> DatabaseOwnedError:
    if info.pid == os.getpid():
        hint = "This process already opened the database; reuse that Database object."
    elif info.port is not None:
        hint = (
            f"Quit that ARIA (pid {info.pid}) first, or talk to it through its local API "
            f"on port {info.port} instead of opening the database directly."
        )
    else:
        hint = f"Quit that ARIA (pid {info.pid}) first, or wait until it has started its API."
    return DatabaseOwnedError(
        f"The database {db_path} is owned by another ARIA process (pid {info.pid}).",
        pid=info.pid,
        port=info.port,
        hint=hint,
    )


class OwnerLock:
    """Exclusive ownership of one database file for the life of this process (or ``release``).

    Args:
        db_path: the database file; the lock file sits next to it.
        clock: wall-clock source for ``started_at`` (UNIX seconds).
    """

    def __init__(self, db_path: Path | str, *, clock: Callable[[], float] = time.time) -> None:
        self._db_path = Path(db_path)
        self._lock_path = lock_path_for(self._db_path)
        self._fd: int | None = None
        self._info: OwnerInfo | None = None
        self._clock = clock

    @property
    def lock_path(self) -> Path:
        """The lock file."""
        return self._lock_path

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None

    @property
    def info(self) -> OwnerInfo | None:
        """What this object wrote into the lock file, None when not held."""
        return self._info

    def acquire(self, port: int | None = None) -> OwnerInfo:
        """Take ownership, or fail fast if a live process owns the database.

        Args:
            port: this process's local API port, for other processes to reach it (None if none
                yet; see :meth:`set_port`).

        Returns:
            The details written into the lock file.

        Raises:
            DatabaseOwnedError: another live process holds the lock.
            StorageError: the lock file cannot be created or written.
            RuntimeError: this object already holds the lock.
        """
        if self._fd is not None:
            raise RuntimeError("OwnerLock.acquire called twice")
        try:
            make_private_dirs(self._lock_path.parent)
            fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise StorageError(
                f"Could not create the lock file {self._lock_path}: {exc}",
                hint="Check that the data directory exists and that you may write to it.",
            ) from exc
        try:
            self._lock_or_raise(fd)
            previous = _read_info(fd)
            if previous is not None and previous.pid != os.getpid():
                _LOGGER.info(
                    "Taking over the database from dead process %d (stale lock file)",
                    previous.pid,
                )
            info = OwnerInfo(pid=os.getpid(), port=port, started_at=self._clock())
            _write_info(fd, info)
        except BaseException as exc:
            os.close(fd)
            if isinstance(exc, OSError):
                raise StorageError(
                    f"Could not write the lock file {self._lock_path}: {exc}",
                    hint="Check free disk space and permissions of the data directory.",
                ) from exc
            raise
        self._fd = fd
        self._info = info
        _LOGGER.debug("Acquired %s (pid %d, port %s)", self._lock_path, info.pid, port)
        return info

    def _lock_or_raise(self, fd: int) -> None:
        deadline = time.monotonic() + _RETRY_S
        while True:
            if _try_lock(fd, shared=False):
                return
            info = _read_info(fd)
            if info is not None and _pid_alive(info.pid):
                raise _owned_error(info, self._db_path)
            if time.monotonic() >= deadline:
                raise _owned_error(
                    info or OwnerInfo(pid=0, port=None, started_at=0.0), self._db_path
                )
            time.sleep(_RETRY_INTERVAL_S)

    def set_port(self, port: int | None) -> None:
        """Publish the API port once it is known (e.g. after binding port 0)."""
        if self._fd is None or self._info is None:
            raise RuntimeError("OwnerLock.set_port called without holding the lock")
        info = OwnerInfo(pid=self._info.pid, port=port, started_at=self._info.started_at)
        try:
            _write_info(self._fd, info)
        except OSError as exc:
            raise StorageError(
                f"Could not update the lock file {self._lock_path}: {exc}",
                hint="Check free disk space and permissions of the data directory.",
            ) from exc
        self._info = info

    def release(self) -> None:
        """Give up ownership (idempotent); the file is emptied, not deleted."""
        fd, self._fd, self._info = self._fd, None, None
        if fd is None:
            return
        try:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            _unlock(fd)
        except OSError as exc:
            _LOGGER.warning("Could not unlock %s: %s", self._lock_path, exc)
        finally:
            os.close(fd)
        _LOGGER.debug("Released %s", self._lock_path)

    def __enter__(self) -> OwnerLock:
        """Acquire without a port (use :meth:`acquire` directly to pass one)."""
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Release on leaving the block."""
        self.release()


def read_owner(db_path: Path | str) -> OwnerInfo | None:
    """The live process owning ``db_path``, or None when nobody owns it.

    Never blocks the owner: it probes with a shared lock, which it drops at once.
    """
    lock_path = lock_path_for(db_path)
    try:
        fd = os.open(lock_path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        _LOGGER.warning("Could not read the owner lock %s: %s", lock_path, exc)
        return None
    try:
        if _try_lock(fd, shared=True):
            _unlock(fd)
            return None
        deadline = time.monotonic() + _RETRY_S
        while True:
            info = _read_info(fd)
            if info is not None or time.monotonic() >= deadline:
                break
            time.sleep(_RETRY_INTERVAL_S)
        if info is None:
            _LOGGER.warning("The owner lock %s is held but names no process", lock_path)
            return OwnerInfo(pid=0, port=None, started_at=0.0)
        return info
    finally:
        os.close(fd)
