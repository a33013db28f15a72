"""One process owns the database: the owner lock across real processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from aria_desktop.adapters.storage.owner_lock import OwnerInfo, OwnerLock, lock_path_for, read_owner
from aria_desktop.domain.errors import DatabaseOwnedError
from tests.storage._subprocess import read_line, spawn

pytestmark = [
    pytest.mark.timeout(30),
    pytest.mark.skipif(os.name != "posix", reason="uses SIGKILL"),
]

WAIT_S = 10.0

HOLDER = """
import sys
from aria_desktop.adapters.storage.owner_lock import OwnerLock
lock = OwnerLock(sys.argv[1])
lock.acquire(int(sys.argv[2]))
print("locked", flush=True)
sys.stdin.read()  # hold until the parent closes stdin (or kills us)
lock.release()
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    proc = spawn("-c", HOLDER, str(tmp_path / "aria.db"), "8765")
    try:
        assert read_line(proc, WAIT_S) == "locked"
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(WAIT_S)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_second_owner_in_another_process_is_refused_with_its_pid_and_port(
    tmp_path: Path, holder: subprocess.Popen[bytes]
) -> None:
    with pytest.raises(DatabaseOwnedError) as info:
        OwnerLock(tmp_path / "aria.db").acquire(1111)
    assert (info.value.pid, info.value.port) == (holder.pid, 8765)
    assert str(holder.pid) in info.value.hint
    assert "8765" in info.value.hint
    assert info.value.code == "database_owned"


def test_read_owner_names_the_live_owner(tmp_path: Path, holder: subprocess.Popen[bytes]) -> None:
    owner = read_owner(tmp_path / "aria.db")
    assert owner is not None
    assert (owner.pid, owner.port) == (holder.pid, 8765)
    assert owner.started_at > 0
    # probing did not disturb the owner: a would-be owner is still refused
    with pytest.raises(DatabaseOwnedError):
        OwnerLock(tmp_path / "aria.db").acquire()


def test_stale_lock_of_a_killed_owner_is_taken_over(
    tmp_path: Path, holder: subprocess.Popen[bytes]
) -> None:
    db_path = tmp_path / "aria.db"
    holder.send_signal(signal.SIGKILL)
    holder.wait(WAIT_S)
    stale = json.loads(lock_path_for(db_path).read_text())
    assert stale["pid"] == holder.pid  # the dead owner's details are still in the file

    assert read_owner(db_path) is None  # ...but nobody owns the database
    lock = OwnerLock(db_path)
    info = lock.acquire(2222)
    try:
        assert (info.pid, info.port) == (os.getpid(), 2222)
        assert read_owner(db_path) == info
    finally:
        lock.release()


def test_owner_that_releases_normally_lets_the_next_one_in(
    tmp_path: Path, holder: subprocess.Popen[bytes]
) -> None:
    assert holder.stdin is not None
    holder.stdin.close()
    assert holder.wait(WAIT_S) == 0
    assert read_owner(tmp_path / "aria.db") is None
    with OwnerLock(tmp_path / "aria.db") as lock:
        assert lock.held


def test_release_empties_the_file_and_is_idempotent(tmp_path: Path) -> None:
    lock = OwnerLock(tmp_path / "aria.db")
    lock.acquire(7)
    assert read_owner(tmp_path / "aria.db") == lock.info
    lock.release()
    lock.release()
    assert not lock.held
    assert lock.lock_path.exists()  # never deleted (that would race with a new owner)
    assert lock.lock_path.read_text() == ""
    assert read_owner(tmp_path / "aria.db") is None


def test_set_port_publishes_a_port_known_only_after_binding(tmp_path: Path) -> None:
    with OwnerLock(tmp_path / "aria.db", clock=lambda: 123.0) as lock:
        lock.set_port(50123)
        assert read_owner(tmp_path / "aria.db") == OwnerInfo(
            pid=os.getpid(), port=50123, started_at=123.0
        )


def test_acquiring_twice_with_one_object_is_a_programming_error(tmp_path: Path) -> None:
    with OwnerLock(tmp_path / "aria.db") as lock, pytest.raises(RuntimeError):
        lock.acquire()


def test_second_lock_object_in_the_same_process_is_refused(tmp_path: Path) -> None:
    with OwnerLock(tmp_path / "aria.db"):
        with pytest.raises(DatabaseOwnedError) as info:
            OwnerLock(tmp_path / "aria.db").acquire()
        assert info.value.pid == os.getpid()


def test_read_owner_without_a_lock_file_is_none(tmp_path: Path) -> None:
    assert read_owner(tmp_path / "never-opened.db") is None


def test_lock_file_is_private(tmp_path: Path) -> None:
    with OwnerLock(tmp_path / "aria.db") as lock:
        assert lock.lock_path.stat().st_mode & 0o077 == 0
