"""The API also runs on qasync's Qt event loop (the tray app's loop), in a child process."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.api.daemon_proc import REPO
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text


def test_api_serves_chat_and_stops_cleanly_on_qasync() -> None:
    with FakeOllama() as ollama:
        ollama.script("/api/chat", ollama_text("Qt says hi."))
        result = subprocess.run(
            [sys.executable, "-m", "tests.api.qasync_server", ollama.url],
            cwd=REPO,
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines() == ["OK chat Qt says hi.", "OK stopped", "OK exit"]
