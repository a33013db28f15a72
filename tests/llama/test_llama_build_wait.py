"""How the real-model tests learn the outcome of CI's background llama-server build.

No server needed: these check ``wait_for_build`` on a build folder laid out the way
packaging/build_llama_server.sh leaves it.
"""

from __future__ import annotations

import fcntl
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.llama.server import Unavailable, wait_for_build


def finished_build(folder: Path, status: str, *, binary: bool = True) -> None:
    (folder / "bin").mkdir()
    if binary:
        (folder / "bin" / "llama-server").write_text("#!/bin/sh\n")
    (folder / "build.log").write_text("cmake output\n")
    (folder / "status").write_text(status + "\n")


def test_a_finished_build_gives_its_binary(tmp_path: Path) -> None:
    finished_build(tmp_path, "0")
    assert wait_for_build(tmp_path) == tmp_path / "bin" / "llama-server"


@pytest.mark.parametrize(("status", "binary"), [("1", True), ("0", False)])
def test_a_failed_build_names_its_log(tmp_path: Path, status: str, binary: bool) -> None:
    finished_build(tmp_path, status, binary=binary)
    with pytest.raises(Unavailable, match=str(tmp_path / "build.log")):
        wait_for_build(tmp_path)


def test_waits_for_the_build_holding_the_lock_to_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The build holds the lock exclusively until it has written its status. The waiter is let
    # into its flock call (which blocks) before the status exists: one that read the status
    # before taking the lock, or took none, would report a failed build (or never get there).
    real_flock = fcntl.flock
    waiting = threading.Event()

    def flock(fd: Any, operation: int) -> None:
        if threading.current_thread() is not threading.main_thread():
            waiting.set()
        real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", flock)
    result: list[Path | Exception] = []
    with open(tmp_path / "build.lock", "a+b") as lock:
        real_flock(lock, fcntl.LOCK_EX)
        waiter = threading.Thread(target=lambda: result.append(_wait(tmp_path)))
        waiter.start()
        assert waiting.wait(timeout=10)
        finished_build(tmp_path, "0")
    waiter.join(timeout=10)
    assert result == [tmp_path / "bin" / "llama-server"]


def _wait(folder: Path) -> Path | Exception:
    try:
        return wait_for_build(folder)
    except Unavailable as exc:
        return exc
