"""Helpers shared by benchmark suites: statistics, the scripted test servers and Xvfb."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import statistics
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from aria_desktop.domain.errors import AriaError

__all__ = [
    "BENCH_MODEL",
    "percentile",
    "scripted_ollama_env",
    "scripted_ollama_server",
    "start_xvfb",
    "summary",
    "vocabulary",
]

_REPO = Path(__file__).resolve().parents[2]

#: The model name every suite asks the scripted Ollama server for (it answers any name).
BENCH_MODEL = "bench-model"


def vocabulary(rng: random.Random, size: int = 20_000) -> list[str]:
    """Made-up words (a real index's spread of rare terms, without a word list to ship)."""
    syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile (0..1) of ``values`` by nearest rank."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def summary(values: Sequence[float]) -> str:
    """``median / p90`` of ``values`` formatted in milliseconds."""
    return f"median {statistics.median(values):7.2f} ms   p90 {percentile(values, 0.9):7.2f} ms"


@contextlib.asynccontextmanager
async def scripted_ollama_server(
    reply: str, chunks: int, delay_ms: float = 0.0
) -> AsyncIterator[str]:
    """Run the Ollama test server (``tests/fakes``) in a child process; yields its base URL."""
    script = _REPO / "tests" / "fakes" / "ollama_server.py"
    if not script.exists():
        raise AriaError(
            "This benchmark needs the test servers in tests/fakes.",
            hint="Run it from a source checkout (the one bash packaging/setup.sh installs).",
        )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "import sys; from tests.fakes.ollama_server import main; sys.exit(main(sys.argv[1:]))",
        "--port",
        "0",
        "--reply",
        reply,
        "--chunks",
        str(chunks),
        "--delay-ms",
        str(delay_ms),
        cwd=_REPO,
        stdout=subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        async with asyncio.timeout(20):
            while True:
                line = (await process.stdout.readline()).decode()
                if not line:
                    raise AriaError("The Ollama test server did not start.")
                if line.startswith("READY "):
                    port = int(line.split()[1])
                    break
        yield f"http://127.0.0.1:{port}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5):
                await process.wait()


def scripted_ollama_env(url: str) -> dict[str, str]:
    """Settings overrides that send every chat turn to the scripted Ollama server at ``url``.

    The suites that run ARIA whole all chat the same way, so they share this one setup and add
    only what their measurement needs.
    """
    return {
        "ARIA_LLM__OLLAMA__URL": url,
        "ARIA_LLM__OLLAMA__MODEL": BENCH_MODEL,
        "ARIA_LLM__CHAINS__CHAT": "ollama",
    }


def start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    """Start a private 1280x800 Xvfb server; returns it and its display name (``:N``).

    Xvfb picks a free display number itself (``-displayfd``) and writes it once it accepts
    clients, so reading it back both names the display and waits until it is ready. The
    caller sets ``DISPLAY`` and terminates the process.
    """
    read_fd, write_fd = os.pipe()
    process = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()
    return process, f":{number}"
