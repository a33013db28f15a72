"""``aria bench cli``: how long ``aria`` commands take from start to exit, as a user runs them.

Each command runs as a child process ``runs`` times after one untimed warm-up run, and the
median wall time is printed beside ``python -c pass`` measured in the same run, so the figures
mean something on a shared, noisy machine. Everything happens in a temporary ARIA home
(configuration, data, state, cache and runtime directories): the user's data is never read.

The children compile ARIA's modules once into a temporary bytecode cache (an installed package
has its bytecode), so the figures do not include compiling source files on every start even
where ``PYTHONDONTWRITEBYTECODE`` is set.

The start-up targets (ARCHITECTURE.md: start-up cost) are printed beside the figures. The
children's CPU time (user + system) is printed too: on a busy machine wall time grows with the
load, CPU time much less.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from aria_desktop.domain.audio import SAMPLE_WIDTH_BYTES, decode_wav, encode_wav
from aria_desktop.domain.errors import AriaError

__all__ = ["CLIP_S", "CommandTiming", "format_rows", "make_speech_clip", "run_cli_bench"]

CLIP_S = 2.0
"""Length of the clip ``aria transcribe`` is timed on, seconds."""
_CLIP_TEXT = "What is the weather tomorrow?"
_MEMORIES = (
    "I prefer dark themes in every application",
    "My sister lives in Lisbon and visits in May",
    "The cat is called Miso",
    "I drink my coffee without sugar",
)
_QUERY = "dark themes"
_COMMAND_TIMEOUT_S = 120.0
_DAEMON_START_TIMEOUT_S = 120.0
_DAEMON_STOP_TIMEOUT_S = 30.0


@dataclass(frozen=True, kw_only=True)
class CommandTiming:
    """The median wall time of one command, with its target.

    Attributes:
        label: the command as a person would type it.
        median_s: median wall time of the timed runs, seconds (None: not measured).
        cpu_s: median CPU time (user + system) of the timed runs, seconds.
        target_s: the start-up target, seconds (None: the reference row has none).
        note: why the command was not measured, or "".
    """

    label: str
    median_s: float | None
    cpu_s: float | None = None
    target_s: float | None = None
    note: str = ""


def _aria(*args: str) -> list[str]:
    """The argv of ``aria ARGS`` with this interpreter (works from a source checkout too)."""
    return [sys.executable, "-m", "aria_desktop", *args]


def _child_env(home: Path, port: int) -> dict[str, str]:
    """The environment of every child: a temporary ARIA home, its own API port, no voice."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
    for name in ("config", "data", "state", "cache", "runtime"):
        env[f"ARIA_{name.upper()}_DIR"] = str(home / name)
    env["ARIA_API__PORT"] = str(port)
    env["ARIA_VOICE__ENABLED"] = "false"  # the owner serves memory; it needs no microphone
    return env


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class _Times:
    """Wall and CPU time of one or more runs of a command, seconds."""

    wall_s: float
    cpu_s: float


def _children_cpu_s() -> float:
    """CPU time (user + system) of this process's finished children so far, seconds."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def _run(argv: Sequence[str], env: Mapping[str, str]) -> _Times:
    """Run one command to its end; its wall and CPU time.

    Raises:
        AriaError: the command failed (its error output is in the message).
    """
    cpu_before = _children_cpu_s()
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *argv, env=dict(env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        async with asyncio.timeout(_COMMAND_TIMEOUT_S):
            _, stderr = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        raise AriaError(f"`{' '.join(argv)}` did not finish in {_COMMAND_TIMEOUT_S:g} s.") from None
    elapsed = time.perf_counter() - started
    if process.returncode != 0:
        raise AriaError(
            f"`{' '.join(argv)}` failed (exit {process.returncode}): "
            f"{stderr.decode(errors='replace').strip()[-500:]}"
        )
    return _Times(wall_s=elapsed, cpu_s=_children_cpu_s() - cpu_before)


async def _median(argv: Sequence[str], env: Mapping[str, str], runs: int) -> _Times:
    """Median wall and CPU time of ``runs`` timed runs after one untimed warm-up run."""
    await _run(argv, env)
    times = [await _run(argv, env) for _ in range(runs)]
    return _Times(
        wall_s=statistics.median(t.wall_s for t in times),
        cpu_s=statistics.median(t.cpu_s for t in times),
    )


def _pad_to(pcm: bytes, sample_rate_hz: int, seconds: float) -> bytes:
    """``pcm`` (mono 16-bit) cut or padded with silence to exactly ``seconds``."""
    size = round(seconds * sample_rate_hz) * SAMPLE_WIDTH_BYTES
    return pcm[:size].ljust(size, b"\0")


async def _piper_speech(text: str) -> tuple[bytes, int]:
    """``text`` spoken by the packaged Piper voice: (mono 16-bit PCM, rate)."""
    from aria_desktop.adapters.voice.piper_tts import PiperTTS

    tts = PiperTTS()
    try:
        pieces = [audio async for audio in tts.synthesize(text)]
    finally:
        await tts.aclose()
    if not pieces:
        raise AriaError("Piper produced no audio.")
    return b"".join(p.pcm for p in pieces), pieces[0].sample_rate_hz


async def _espeak_speech(text: str, workdir: Path) -> tuple[bytes, int]:
    """``text`` spoken by espeak-ng: (mono 16-bit PCM, rate)."""
    out = workdir / "espeak.wav"
    process = await asyncio.create_subprocess_exec(
        "espeak-ng", "-v", "en-us", "-w", str(out), text, stderr=subprocess.PIPE
    )
    _, stderr = await process.communicate()
    if process.returncode != 0:
        raise AriaError(f"espeak-ng failed: {stderr.decode(errors='replace').strip()}")
    clip = decode_wav(await asyncio.to_thread(out.read_bytes), name="espeak-ng's output")
    if clip.channels != 1:
        raise AriaError("espeak-ng wrote a stereo file.")
    return clip.pcm, clip.sample_rate_hz


async def make_speech_clip(path: Path, *, seconds: float = CLIP_S) -> str:
    """Write a spoken command of exactly ``seconds`` to ``path``; returns the voice used.

    The packaged Piper voice speaks it when it is installed, else espeak-ng.

    Raises:
        AriaError: neither Piper nor espeak-ng can speak here (with what to install).
    """
    problems: list[str] = []
    try:
        pcm, rate = await _piper_speech(_CLIP_TEXT)
        voice = "Piper"
    except AriaError as exc:
        problems.append(f"Piper: {exc.message}")
        if shutil.which("espeak-ng") is None:
            raise AriaError(
                "No voice to make the test clip with: "
                + "; ".join([*problems, "espeak-ng: not installed"]),
                hint="pip install 'aria-desktop[voice]' (Piper and its packaged voice), or "
                "sudo apt-get install espeak-ng.",
            ) from exc
        pcm, rate = await _espeak_speech(_CLIP_TEXT, path.parent)
        voice = "espeak-ng"
    await asyncio.to_thread(path.write_bytes, encode_wav(_pad_to(pcm, rate, seconds), rate, 1))
    return voice


@contextlib.asynccontextmanager
async def _daemon(env: Mapping[str, str]) -> AsyncIterator[None]:
    """``aria daemon`` running in the temporary home until the block ends (then stopped)."""
    process = await asyncio.create_subprocess_exec(
        *_aria("daemon"), env=dict(env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert process.stderr is not None
    try:
        async with asyncio.timeout(_DAEMON_START_TIMEOUT_S):
            while True:  # it says "ARIA <version> running ..." once the API serves
                line = (await process.stderr.readline()).decode(errors="replace")
                if not line:
                    raise AriaError(f"`aria daemon` exited (status {await process.wait()}).")
                if " running (pid " in line:
                    break
        yield
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                async with asyncio.timeout(_DAEMON_STOP_TIMEOUT_S):
                    await process.communicate()
            except TimeoutError:
                process.kill()
                await process.wait()


async def _row(
    label: str,
    argv: Sequence[str],
    env: Mapping[str, str],
    runs: int,
    *,
    target_s: float | None = None,
    note: str = "",
) -> CommandTiming:
    """Time ``argv`` and describe it as one report row."""
    times = await _median(argv, env, runs)
    return CommandTiming(
        label=label, median_s=times.wall_s, cpu_s=times.cpu_s, target_s=target_s, note=note
    )


async def _timed_rows(home: Path, env: Mapping[str, str], runs: int) -> list[CommandTiming]:
    """Measure every command in the temporary home ``home``."""
    rows = [
        await _row("python -c pass", [sys.executable, "-c", "pass"], env, runs),
        await _row("aria --help", _aria("--help"), env, runs, target_s=0.3),
    ]
    clip = home / "clip.wav"
    label = f"aria transcribe ({CLIP_S:g} s clip)"
    try:
        voice = await make_speech_clip(clip)
    except AriaError as exc:
        rows.append(CommandTiming(label=label, median_s=None, target_s=1.2, note=exc.message))
    else:
        transcribe = _aria("transcribe", str(clip))
        rows.append(await _row(label, transcribe, env, runs, target_s=1.2, note=f"clip by {voice}"))
    for text in _MEMORIES:
        await _run(_aria("memory", "add", text), env)
    search = _aria("memory", "search", _QUERY)
    rows.append(await _row("aria memory search (no owner)", search, env, runs, target_s=0.8))
    async with _daemon(env):
        rows.append(
            await _row("aria memory search (through owner)", search, env, runs, target_s=0.3)
        )
    return rows


def format_rows(rows: Sequence[CommandTiming], runs: int) -> list[str]:
    """The report: one line per command with its median, CPU time, target and verdict."""
    base = rows[0].median_s or 0.0
    lines = [
        f"aria bench cli: median wall time of {runs} run(s) per command, after one warm-up run",
        f"  {'command':38} {'median':>8}  {'cpu':>7}  {'target':>8}  {'over python':>11}  verdict",
    ]
    for row in rows:
        if row.median_s is None:
            lines.append(
                f"  {row.label:38} {'-':>8}  {'':>7}  {'':>8}  {'':>11}  skipped: {row.note}"
            )
            continue
        cpu = f"{row.cpu_s:5.2f} s" if row.cpu_s is not None else ""
        target = f"<= {row.target_s:g} s" if row.target_s is not None else ""
        over = f"+{row.median_s - base:.3f} s" if row is not rows[0] else ""
        verdict = ""
        if row.target_s is not None:
            verdict = "meets target" if row.median_s <= row.target_s else "OVER target"
        if row.note:
            verdict += f" ({row.note})"
        lines.append(
            f"  {row.label:38} {row.median_s:6.3f} s  {cpu:>7}  {target:>8}  {over:>11}  "
            f"{verdict}".rstrip()
        )
    return lines


async def run_cli_bench(*, runs: int = 5) -> list[CommandTiming]:
    """Time the commands (see module docstring), print the report and return the rows."""
    if runs < 1:
        raise AriaError("--runs must be at least 1.")
    with tempfile.TemporaryDirectory(prefix="aria-bench-cli-") as tmp:
        home = Path(tmp)
        env = _child_env(home, _free_port())
        rows = await _timed_rows(home, env, runs)
    for line in format_rows(rows, runs):
        print(line, flush=True)
    return rows
