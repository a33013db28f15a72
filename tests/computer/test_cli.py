"""``aria screen`` and ``aria do`` as a user runs them (subprocesses, real display)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.computer.conftest import REPO, TargetApp
from tests.computer.test_agent import click_label, done, script
from tests.fakes import FakeOllama

# Outside the fast loop: `aria` subprocesses and a daemon against the real display.
pytestmark = pytest.mark.slow


def aria(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "ARIA_CONFIG_DIR": str(tmp_path / "cfg"),
        "ARIA_DATA_DIR": str(tmp_path / "data"),
        "ARIA_STATE_DIR": str(tmp_path / "state"),
        "ARIA_LLM__OLLAMA__URL": "http://127.0.0.1:9",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "aria_desktop", *args],
        cwd=REPO,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
    )


def test_screen_shot_find_and_ocr(tmp_path: Path, app: TargetApp) -> None:
    out = tmp_path / "shot.png"
    shot = aria(tmp_path, "screen", "shot", "--out", str(out))
    assert shot.returncode == 0, shot.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "1280x800 px" in shot.stderr
    found = aria(tmp_path, "screen", "find", "open   downloads", "--json")
    assert found.returncode == 0, found.stderr
    data = json.loads(found.stdout)
    assert data["status"] == "found"
    assert data["matches"][0]["text"] == "Open Downloads"
    missing = aria(tmp_path, "screen", "find", "Transmogrify")
    assert missing.returncode == 1
    assert "not on the screen" in missing.stderr
    ocr = aria(tmp_path, "screen", "ocr", "--json")
    elements = [e["text"] for e in json.loads(ocr.stdout)["elements"]]
    assert {"Send", "Delete", "Save Draft", "Subscribe to newsletter"} <= set(elements)


def test_screen_click_is_refused_while_control_is_off_and_dry_run_does_nothing(
    tmp_path: Path, app: TargetApp
) -> None:
    mark = app.mark()
    refused = aria(tmp_path, "screen", "click", "Save Draft")
    assert refused.returncode == 1
    assert "computer-off" in refused.stderr
    dry = aria(tmp_path, "screen", "click", "Save Draft", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["dry_run"] is True
    clicked = aria(tmp_path, "screen", "click", "Save Draft", env={"ARIA_COMPUTER__ENABLED": "1"})
    assert clicked.returncode == 0, clicked.stderr
    # Consequential: no terminal to ask, so it is denied.
    send = aria(tmp_path, "screen", "click", "Send", env={"ARIA_COMPUTER__ENABLED": "1"})
    assert send.returncode == 1
    assert "needs confirmation" in send.stderr
    app.wait_for("click", since=mark)
    assert app.clicks(mark) == ["save_draft"]
    audit = aria(tmp_path, "audit", "verify")
    assert audit.returncode == 0, audit.stdout


def test_screen_click_book_now_asks_by_meaning(tmp_path: Path, app: TargetApp) -> None:
    """The issue's travel-app click: "Book now" is judged by what it commits, not a word list."""
    app.command("banner", "banner-shown", text="Book now")
    env = {"ARIA_COMPUTER__ENABLED": "1"}
    booked = aria(tmp_path, "screen", "click", "Book now", "--json", env=env)
    assert booked.returncode == 1
    assert "needs confirmation" in booked.stderr
    assert json.loads(booked.stdout)["rule"] == "consequential:target"


def test_aria_do_runs_a_task_against_the_local_model(
    tmp_path: Path, app: TargetApp, ollama: FakeOllama
) -> None:
    bodies: list[dict[str, Any]] = script(ollama, [click_label("Cancel"), done("Cancelled.")])
    mark = app.mark()
    result = aria(
        tmp_path,
        "do",
        "cancel the form",
        env={"ARIA_LLM__OLLAMA__URL": ollama.url, "ARIA_COMPUTER__ENABLED": "true"},
    )
    assert result.returncode == 0, result.stderr
    assert "Cancelled." in result.stdout
    assert "complete · 1 actions" in result.stderr
    assert app.clicks(mark) == ["cancel"]
    assert len(bodies) == 2


def test_screen_click_goes_through_a_running_daemon(tmp_path: Path, app: TargetApp) -> None:
    """With a daemon owning ARIA's data, ``aria screen click`` uses its API (same policy)."""
    from tests.api.daemon_proc import DaemonProcess

    root = tmp_path / "daemon"
    root.mkdir()
    with FakeOllama() as ollama:
        daemon = DaemonProcess(
            root,
            ollama.url,
            extra_env={"ARIA_COMPUTER__ENABLED": "true", "ARIA_AGENT__CONFIRM_TIMEOUT_S": "2"},
        ).start(timeout_s=30)
        try:
            same_aria = {k: v for k, v in daemon.env.items() if k.startswith("ARIA_")}
            mark = app.mark()
            clicked = aria(tmp_path, "screen", "click", "Save Draft", "--json", env=same_aria)
            assert clicked.returncode == 0, clicked.stderr
            assert json.loads(clicked.stdout)["status"] == "ok"
            # Consequential: the daemon asks; this CLI has no terminal to ask, so it says no.
            send = aria(tmp_path, "screen", "click", "Send", env=same_aria)
            assert send.returncode == 1
            assert "needs confirmation" in send.stderr
            app.wait_for("click", since=mark)
            assert app.clicks(mark) == ["save_draft"]
        finally:
            daemon.stop()
    assert "Traceback" not in daemon.output()
