"""Crash safety: SIGKILL a writer at random moments; nothing it saw committed may be lost."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from pathlib import Path

import pytest

from aria_desktop.adapters.storage.connection import connect
from tests.storage._subprocess import read_line, spawn

pytestmark = pytest.mark.skipif(os.name != "posix", reason="uses SIGKILL")

ROUNDS = 50
KILL_DELAY_S = (0.020, 0.300)
"""Random delay between the child reporting ``ready`` and SIGKILL, seconds."""
WAIT_S = 15.0


class _Child:
    """One crash_writer process, started early and released with ``go``."""

    def __init__(self, db_path: Path) -> None:
        self.proc = spawn("-m", "tests.storage.crash_writer", str(db_path))
        self._output = b""
        self._drain: threading.Thread | None = None

    def go(self) -> None:
        assert read_line(self.proc, WAIT_S) == "loaded"
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"go\n")
        self.proc.stdin.flush()
        assert read_line(self.proc, WAIT_S) == "ready"
        # Keep reading so a full pipe never slows the writer down.
        self._drain = threading.Thread(target=self._read_rest, daemon=True)
        self._drain.start()

    def _read_rest(self) -> None:
        assert self.proc.stdout is not None
        self._output = self.proc.stdout.read()

    def kill(self) -> list[int]:
        """SIGKILL the child; return the ids it reported committed (complete lines only)."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(WAIT_S)
        assert self._drain is not None
        self._drain.join(WAIT_S)
        assert not self._drain.is_alive()
        self.close()
        committed = []
        for line in self._output.decode().splitlines(keepends=True):
            if line.startswith("committed ") and line.endswith("\n"):
                committed.append(int(line.split()[1]))
        return committed

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(WAIT_S)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def _check(db_path: Path, committed: list[int]) -> int:
    """Assert integrity and that every committed id is present; return the message count."""
    conn = connect(db_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        present = {row[0] for row in conn.execute("SELECT id FROM messages")}
        missing = sorted(set(committed) - present)
        assert not missing, f"committed messages lost after SIGKILL: {missing[:10]}"
        return len(present)
    finally:
        conn.close()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_sigkilled_writer_never_loses_a_committed_message(tmp_path: Path) -> None:
    db_path = tmp_path / "crash.db"
    seed = int(os.environ.get("ARIA_CRASH_SEED", time.time_ns()))
    rng = random.Random(seed)
    rounds_with_commits = 0
    all_committed: list[int] = []
    child = _Child(db_path)
    try:
        for round_no in range(ROUNDS):
            child.go()
            # Start the next child now: its interpreter start-up overlaps this round.
            following = _Child(db_path) if round_no + 1 < ROUNDS else None
            time.sleep(rng.uniform(*KILL_DELAY_S))
            committed = child.kill()
            child = following  # type: ignore[assignment]
            assert committed == sorted(committed), f"seed {seed}"
            count = _check(db_path, committed)
            assert count >= len(all_committed) + len(committed), f"seed {seed}"
            all_committed += committed
            rounds_with_commits += bool(committed)
    finally:
        if child is not None:
            child.close()
    # The test must actually have killed busy writers, not idle ones.
    assert rounds_with_commits >= ROUNDS * 0.8, f"seed {seed}"
    assert len(all_committed) >= ROUNDS * 5, f"seed {seed}"
