"""Reminders through a real ``aria daemon`` (child process): ``aria reminders`` goes through the
owner's API, a chat turn reads what the CLI set, and a reminder that came due while the daemon
was killed (``SIGKILL``) is delivered, marked late, when it starts again."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.daemon_proc import REPO, DaemonProcess
from tests.fakes import FakeOllama

pytestmark = pytest.mark.slow


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[DaemonProcess]:
    with FakeOllama() as ollama:
        proc = DaemonProcess(
            tmp_path,
            ollama.url,
            extra_env={
                "ARIA_MEMORY__EMBEDDER": "none",
                "ARIA_API__RATE_LIMIT_PER_S": "100000",
                "ARIA_API__RATE_LIMIT_BURST": "100000",
            },
        ).start()
        try:
            yield proc
        finally:
            proc.stop()


def _aria(daemon: DaemonProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aria_desktop", *args],
        env=daemon.env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _say(daemon: DaemonProcess, text: str) -> str:
    done = httpx.post(
        f"{daemon.url}/api/v1/chat",
        json={"message": text, "stream": False},
        headers=daemon.headers(),
        timeout=30,
    )
    assert done.status_code == 200, done.text
    return str(done.json()["text"])


def _listed(daemon: DaemonProcess) -> list[dict[str, Any]]:
    answer = httpx.get(f"{daemon.url}/api/v1/reminders", headers=daemon.headers(), timeout=10)
    assert answer.status_code == 200, answer.text
    return list(answer.json())


def test_aria_reminders_goes_through_the_owner(daemon: DaemonProcess) -> None:
    added = _aria(daemon, "reminders", "add", "call mom", "--at", "in 2 hours", "--json")
    assert added.returncode == 0, added.stderr
    assert "ARIA is not running" not in added.stderr
    reminder = json.loads(added.stdout)
    assert [r["id"] for r in _listed(daemon)] == [reminder["id"]]
    assert _say(daemon, "what are my reminders").startswith("You have one reminder: call mom ")
    shown = json.loads(_aria(daemon, "reminders", "list", "--json").stdout)
    assert [r["text"] for r in shown] == ["call mom"]
    cancelled = _aria(daemon, "reminders", "cancel", reminder["id"])
    assert cancelled.stdout.startswith(f"Cancelled: {reminder['id']}  reminder cancelled")
    assert _listed(daemon) == []
    missing = _aria(daemon, "reminders", "cancel", reminder["id"])
    assert missing.returncode != 0
    assert "There is no pending reminder" in missing.stderr


def test_a_reminder_due_while_the_daemon_was_killed_is_delivered_late_at_its_start(
    daemon: DaemonProcess,
) -> None:
    added = _aria(daemon, "reminders", "add", "water the plants", "--at", "in 2 hours", "--json")
    reminder = json.loads(added.stdout)
    daemon.stop(signal.SIGKILL)
    with sqlite3.connect(daemon.db_path) as db:  # while it was off, its time came
        db.execute(
            "UPDATE reminders SET due_at = ? WHERE id = ?", (time.time() - 600, reminder["id"])
        )
    daemon.start()
    deadline = time.monotonic() + 15
    while (state := {r["id"]: r for r in _listed(daemon)}[reminder["id"]])["state"] != "delivered":
        assert time.monotonic() < deadline, state  # the start's first pass delivers it
        time.sleep(0.05)
    assert state["late"] is True
    assert state["delivered_at"] > state["due_at"]


def test_schemathesis_finds_nothing_wrong_with_the_reminder_routes(
    daemon: DaemonProcess, tmp_path: Path
) -> None:
    from tests.api.test_schemathesis import _run_schemathesis

    config = tmp_path / "schemathesis.toml"
    config.write_text(
        'headers = { Authorization = "Bearer ${ARIA_TEST_TOKEN}" }\n', encoding="utf-8"
    )
    _run_schemathesis(daemon, config, "--include-path-regex", r"^/api/v1/reminders")
    assert "500" not in daemon.output()
