"""Timers outlive the process: ``aria daemon`` killed with SIGKILL, started again.

A real daemon in a child process with its own data folders and no model. A timer started over
the API is in the database before the API answers; after ``kill -9`` and a new start it runs
on with the same end, and one that ended while the daemon was dead is announced as missed.
``aria timers`` reaches the running daemon through its API.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.api.daemon_proc import REPO, DaemonProcess

pytestmark = pytest.mark.slow

_NO_MODEL = "http://127.0.0.1:9"


def _start(root: Path) -> DaemonProcess:
    return DaemonProcess(root, _NO_MODEL).start(timeout_s=60)


def test_timers_survive_kill_9_and_one_that_ended_meanwhile_is_announced_missed(
    tmp_path: Path,
) -> None:
    daemon = _start(tmp_path)
    try:
        api = httpx.Client(base_url=daemon.url, headers=daemon.headers(), timeout=20)
        pasta = api.post("/api/v1/timers", json={"duration": "10m", "name": "pasta"}).json()
        egg = api.post("/api/v1/timers", json={"seconds": 1, "name": "egg"}).json()
    finally:
        assert daemon.stop(signal.SIGKILL) == -signal.SIGKILL  # no chance to clean up
    wait_s = egg["ends_at"] - time.time()
    if wait_s > 0:
        time.sleep(wait_s + 0.1)  # the egg timer's known end, while nothing runs

    again = _start(tmp_path)
    try:
        api = httpx.Client(base_url=again.url, headers=again.headers(), timeout=20)
        running = api.get("/api/v1/timers").json()
        assert [(t["id"], t["name"], t["state"]) for t in running] == [
            (pasta["id"], "pasta", "running")
        ]
        assert running[0]["ends_at"] == pytest.approx(pasta["ends_at"], abs=1e-3)
        cli = subprocess.run(
            [sys.executable, "-m", "aria_desktop", "timers", "--json"],
            cwd=REPO,
            env=again.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert [t["name"] for t in json.loads(cli.stdout)] == ["pasta"]
        log = tmp_path / "state" / "aria.log"
        told = f"Timer {egg['id']} ended while ARIA was not running"
        deadline = time.monotonic() + 20  # told at start (the scheduler's first step)
        while told not in log.read_text(errors="replace"):
            assert time.monotonic() < deadline, log.read_text(errors="replace")[-3000:]
            time.sleep(0.05)
    finally:
        assert again.stop() == 0
    with sqlite3.connect(again.db_path) as db:
        row = db.execute(
            "SELECT state, announced, finished_at FROM timers WHERE id = ?", (egg["id"],)
        ).fetchone()
    assert row == ("finished", 1, pytest.approx(egg["ends_at"]))


def test_schemathesis_finds_nothing_wrong_with_the_timer_routes(tmp_path: Path) -> None:
    from tests.api.test_schemathesis import _run_schemathesis

    daemon = _start(tmp_path)
    try:
        config = tmp_path / "schemathesis.toml"
        config.write_text(
            'headers = { Authorization = "Bearer ${ARIA_TEST_TOKEN}" }\n', encoding="utf-8"
        )
        _run_schemathesis(daemon, config, "--include-path-regex", r"^/api/v1/timers")
        assert "500" not in daemon.output()
    finally:
        daemon.stop()
