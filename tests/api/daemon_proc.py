"""``aria daemon`` in a child process, with its own data folders, against a test Ollama."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from aria_desktop.adapters.storage.owner_lock import read_owner
from aria_desktop.api.token import TokenFile

REPO = Path(__file__).resolve().parents[2]


class DaemonProcess:
    """Start with :meth:`start`; the API's URL and token are then known."""

    def __init__(self, root: Path, ollama_url: str, *, extra_env: dict[str, str] | None = None):
        self.root = root
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("ARIA_")},
            "ARIA_CONFIG_DIR": str(root / "config"),
            "ARIA_DATA_DIR": str(root / "data"),
            "ARIA_STATE_DIR": str(root / "state"),
            "ARIA_RUNTIME_DIR": str(root / "runtime"),
            "ARIA_LLM__OLLAMA__URL": ollama_url,
            "ARIA_LLM__OLLAMA__MODEL": "llama3.2",
            "ARIA_LLM__CHAINS__CHAT": "ollama",
            "ARIA_LLM__RETRY__MAX_ATTEMPTS": "1",
            "ARIA_API__PORT": "0",
            # Voice models load only where a test asks for voice (test_voice_routes).
            "ARIA_VOICE__ENABLED": "false",
            "PYTHONPATH": str(REPO),
            **(extra_env or {}),
        }
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    @property
    def db_path(self) -> Path:
        return self.root / "data" / "aria.db"

    @property
    def token(self) -> str:
        return TokenFile(self.root / "config" / "api" / "token").read()

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def start(self, timeout_s: float = 60.0) -> DaemonProcess:
        log = (self.root / "daemon.out").open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "aria_desktop", "daemon"],
            cwd=REPO,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daemon exited: {(self.root / 'daemon.out').read_text()}")
            owner = read_owner(self.db_path)
            if owner is not None and owner.port:
                self.url = f"http://127.0.0.1:{owner.port}"
                try:
                    if httpx.get(f"{self.url}/api/v1/health", timeout=1).status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
            time.sleep(0.05)
        raise RuntimeError("daemon did not start")

    def stop(self, sig: int = signal.SIGTERM, timeout_s: float = 20.0) -> int:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout_s)

    def output(self) -> str:
        return (self.root / "daemon.out").read_text(errors="replace")
