"""The owner process (``aria daemon``) watches folders and rescans at start."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.daemon_proc import REPO, DaemonProcess
from tests.fakes import FakeOllama
from tests.knowledge.corpus import write_corpus

_WAIT_S = 30.0


def _cli(daemon: DaemonProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aria_desktop", *args],
        cwd=REPO,
        env=daemon.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _wait_for_hits(daemon: DaemonProcess, query: str, done: Callable[[list[Any]], bool]) -> None:
    """Search through the daemon's API until ``done(hits)`` (bounded; the watcher is async)."""
    deadline = time.monotonic() + _WAIT_S
    with httpx.Client(base_url=daemon.url, headers=daemon.headers(), timeout=10) as client:
        while True:
            hits = client.post("/api/v1/knowledge/search", json={"query": query}).json()
            if done(hits):
                return
            assert time.monotonic() < deadline, hits
            time.sleep(0.1)


@pytest.mark.slow
def test_the_daemon_watches_folders_and_rescans_at_start(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "docs")
    with FakeOllama() as ollama:
        daemon = DaemonProcess(
            tmp_path, ollama.url, extra_env={"ARIA_MEMORY__EMBEDDER": "none"}
        ).start()
        try:
            added = _cli(daemon, "knowledge", "add", str(corpus), "--watch")
            assert added.returncode == 0, added.stderr
            assert "4 files indexed" in added.stdout
            (corpus / "bikes.md").write_text("# Bikes\n\nThe bike lock code is 4711.\n")
            _wait_for_hits(daemon, "bike lock code", lambda hits: bool(hits))
        finally:
            assert daemon.stop() == 0
        (corpus / "bikes.md").unlink()
        (corpus / "garden.md").write_text("# Garden\n\nPlant tulip bulbs in October.\n")
        daemon.start()
        try:
            _wait_for_hits(daemon, "tulip bulbs", lambda hits: bool(hits))
            _wait_for_hits(daemon, "bike lock code", lambda hits: not hits)
            status = _cli(daemon, "knowledge", "status")
            assert f"watching {corpus}" in status.stdout
        finally:
            daemon.stop()
