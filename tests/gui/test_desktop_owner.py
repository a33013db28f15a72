"""`aria desktop` is an owner like the daemon (ARCHITECTURE.md: owner).

In-process it also serves the local HTTP API (health, chat against the Ollama test server), and
`--attach` drives a running `aria daemon` through the real API client."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from aria_desktop.adapters.storage.owner_lock import read_owner
from aria_desktop.api.token import TokenFile
from tests.api.daemon_proc import DaemonProcess
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text
from tests.gui.conftest import REPO
from tests.gui.test_desktop_process import app_env, own_display, screen_text, xdotool

__all__ = ["own_display"]  # fixture

pytestmark = pytest.mark.slow


def _window_named(display: str, pattern: str, timeout_s: float = 40.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = xdotool(display, "search", "--onlyvisible", "--name", pattern)
        if found:
            return xdotool(display, "getwindowname", found.splitlines()[0])
        time.sleep(0.2)
    return ""


def _stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGTERM)
    try:
        _out, err = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        _out, err = process.communicate()
    return err


def test_aria_desktop_serves_the_local_api(tmp_path: Path, own_display: str) -> None:
    with FakeOllama() as ollama:
        ollama.script("/api/chat", ollama_text("Served by the tray app."))
        env = app_env(tmp_path, own_display, ollama.url)
        process = subprocess.Popen(
            [sys.executable, "-m", "aria_desktop", "desktop", "--no-wizard", "--no-hotkeys"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        db_path = tmp_path / "data" / "aria.db"
        try:
            title = _window_named(own_display, "running in this app")
            assert "API on http://127.0.0.1:" in title, title
            owner = read_owner(db_path)
            assert owner is not None
            assert owner.port is not None
            url = f"http://127.0.0.1:{owner.port}"
            assert url in title
            health = httpx.get(f"{url}/api/v1/health", timeout=10)
            assert health.status_code == 200
            assert health.json()["status"] == "ok"
            token = TokenFile(tmp_path / "config" / "api" / "token").read()
            reply = httpx.post(
                f"{url}/api/v1/chat",
                json={"message": "Who answers?", "stream": False},
                headers={"Authorization": f"Bearer {token}"},
                timeout=30,
            )
            assert reply.status_code == 200, reply.text
            assert reply.json()["text"] == "Served by the tray app."
            assert reply.json()["model"] == "llama3.2"
        finally:
            err = _stop(process)
        assert process.returncode == 0, err
        assert "Traceback" not in err
        assert read_owner(db_path) is None  # the tray app released the data on quit


def test_aria_desktop_attach_lists_the_daemons_conversations(
    tmp_path: Path, own_display: str
) -> None:
    with FakeOllama() as ollama:
        daemon = DaemonProcess(tmp_path, ollama.url).start()
        try:
            with httpx.Client(base_url=daemon.url, headers=daemon.headers()) as client:
                created = client.post(
                    "/api/v1/conversations", json={"title": "Garden watering schedule"}
                )
                assert created.status_code == 201
            env = {**app_env(tmp_path, own_display, ollama.url), **daemon.env}
            env["DISPLAY"] = own_display
            process = subprocess.Popen(
                [sys.executable, "-m", "aria_desktop", "desktop", "--attach", "--no-wizard"],
                cwd=REPO,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            title = text = ""
            try:
                title = _window_named(own_display, "attached to")
                deadline = time.monotonic() + 30
                while title and "Garden watering" not in text and time.monotonic() < deadline:
                    text = screen_text(own_display, tmp_path / "attached.png")
            finally:
                err = _stop(process)
            # Without a window, say why: the app's exit status and what it wrote.
            assert title, f"no window (exit {process.returncode}): {err[-3000:]}"
            assert daemon.url in title, title
            assert "Garden watering" in text, text
            assert process.returncode == 0, err
            assert "Traceback" not in err
            # The daemon still owns the data and still answers.
            owner = read_owner(daemon.db_path)
            assert owner is not None
            assert daemon.process is not None
            assert owner.pid == daemon.process.pid
        finally:
            daemon.stop()
