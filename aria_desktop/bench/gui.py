"""``aria bench gui``: event-loop stalls while a reply streams, and start-up time.

1. Stall: the real desktop (chat window shown) on qasync's loop, ARIA in-process as
   ``aria desktop`` runs it (the owner: core, local HTTP API, automations), the Ollama
   test server streaming a long reply at about 500 tokens/s (one token per chunk). A probe
   sleeps 5 ms at a time and records how late each wake-up is. The same probe over an idle
   loop for the same time is the reference measured in this run.
2. Start-up: ``aria desktop`` as a new process until it logs that the tray icon (or, without a
   tray host, the chat window) is shown; the bare-Qt floor (a process that only shows a
   QLabel) is the reference. Connecting to ARIA happens after that, in the background.

Needs a display: ``DISPLAY`` (X11), else Xvfb when installed (with trayer as its system tray
when that is installed too), else Qt's offscreen platform.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from aria_desktop.bench._util import (
    percentile,
    scripted_ollama_env,
    scripted_ollama_server,
    start_xvfb,
)
from aria_desktop.settings import load_settings

__all__ = ["run_gui_bench"]

_PROBE_S = 0.005
_READY_MARKER = "ARIA desktop shown:"


@contextlib.contextmanager
def _display() -> Iterator[str]:
    """A display for Qt: the user's, a private Xvfb, or the offscreen platform."""
    if os.environ.get("DISPLAY"):
        yield f"X11 {os.environ['DISPLAY']}"
        return
    import shutil

    if shutil.which("Xvfb") is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        yield "offscreen (no X server)"
        return
    process, display = start_xvfb()
    os.environ["DISPLAY"] = display
    tray = _start_tray_host(display)
    try:
        host = " + trayer (XEmbed system tray)" if tray is not None else " (no tray host)"
        yield f"Xvfb {display} (1280x800){host}"
    finally:
        os.environ.pop("DISPLAY", None)
        for child in (tray, process):
            if child is not None:
                child.terminate()
                try:
                    child.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait(timeout=10)


def _start_tray_host(display: str) -> subprocess.Popen[bytes] | None:
    """A real system tray on the private Xvfb (trayer), or None without trayer/python-xlib.

    Start-up is then timed to the tray icon, as on a desktop, not to the no-tray window.
    Returns once trayer owns the ``_NET_SYSTEM_TRAY_S0`` selection (bounded, 10 s).
    """
    import importlib.util
    import shutil

    if shutil.which("trayer") is None or importlib.util.find_spec("Xlib") is None:
        return None
    from Xlib import display as xdisplay

    process = subprocess.Popen(
        ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request"],
        env={**os.environ, "DISPLAY": display},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    connection = xdisplay.Display(display)
    try:
        selection = connection.intern_atom("_NET_SYSTEM_TRAY_S0")
        deadline = time.monotonic() + 10
        while getattr(connection.get_selection_owner(selection), "id", 0) == 0:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                process.wait(timeout=10)
                return None
            time.sleep(0.02)
    finally:
        connection.close()
    return process


async def _probe(lateness: list[float], stop: asyncio.Event, duration_s: float | None) -> None:
    """Append the lateness of each 5 ms sleep (ms) until ``stop`` or ``duration_s``."""
    end = time.perf_counter() + duration_s if duration_s is not None else float("inf")
    while not stop.is_set() and time.perf_counter() < end:
        before = time.perf_counter()
        await asyncio.sleep(_PROBE_S)
        lateness.append(max(0.0, (time.perf_counter() - before - _PROBE_S) * 1000))


async def _stream_and_probe(url: str, tokens: int) -> tuple[list[float], list[float], float]:
    """Stream one reply into the chat window while probing; then probe an idle loop."""
    from aria_desktop.compose.desktop_services import LocalSettingsService
    from aria_desktop.compose.owner import start_owner
    from aria_desktop.gui.app import Desktop, DesktopOptions
    from aria_desktop.paths import resource_path

    settings_file = Path(os.environ["ARIA_CONFIG_DIR"]) / "settings.toml"
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text("", encoding="utf-8")
    settings = load_settings(
        settings_file,
        env={
            **scripted_ollama_env(url),
            "ARIA_API__PORT": "0",
            "ARIA_VOICE__ENABLED": "false",
        },
    )
    owner = await start_owner(settings)  # as `aria desktop` runs: core, local API, automations
    desktop = Desktop(
        LocalSettingsService(),
        DesktopOptions(
            icons_dir=resource_path("icons"), use_tray=False, show_wizard=False, hotkeys=False
        ),
    )
    try:
        desktop.context.attach(owner.assistant)
        desktop.show_shell()
        await asyncio.sleep(0.5)
        done = asyncio.Event()
        desktop.chat.turn_finished.connect(lambda _run, _status: done.set())
        streaming: list[float] = []
        started = time.perf_counter()
        desktop.chat.send("Tell me a long story.")
        probe = asyncio.create_task(_probe(streaming, done, None), name="aria-bench-probe")
        await asyncio.wait_for(done.wait(), timeout=180)
        stream_s = time.perf_counter() - started
        await probe
        idle: list[float] = []
        await _probe(idle, asyncio.Event(), stream_s)
        return streaming, idle, tokens / stream_s
    finally:
        await desktop.shutdown()
        await owner.stop()


def _startup_once(env: dict[str, str]) -> tuple[float, float]:
    """Seconds until ``aria desktop`` shows its shell, and the app's own figure (ms)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "aria_desktop", "-v", "desktop", "--no-wizard", "--no-hotkeys"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    own_ms = float("nan")
    shown = float("nan")
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if _READY_MARKER in line:
                shown = time.perf_counter() - started
                with contextlib.suppress(ValueError, IndexError):
                    own_ms = float(line.rsplit("after", 1)[1].split()[0])
                break
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return shown, own_ms


def _qt_floor_once(env: dict[str, str]) -> float:
    """Seconds for a process that only imports Qt and shows a label (the reference)."""
    code = (
        "from PySide6.QtWidgets import QApplication, QLabel\n"
        "app = QApplication([]); label = QLabel('ARIA'); label.show(); app.processEvents()\n"
    )
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True, timeout=60
    )
    return time.perf_counter() - started


def run_gui_bench(*, tokens: int, rate_hz: float, startups: int) -> None:
    """Print the worst loop stall while streaming and the start-up time."""
    from aria_desktop.gui.app import create_application

    with tempfile.TemporaryDirectory(prefix="aria-bench-gui-") as tmp, _display() as display:
        for name in ("CONFIG", "DATA", "STATE", "RUNTIME"):
            os.environ[f"ARIA_{name}_DIR"] = str(Path(tmp) / name.lower())
        print(f"display: {display}")
        # Prose in paragraphs of 40 words (as a model writes), one word per streamed chunk.
        words = [f"w{i}" + ("\n\n" if i % 40 == 39 else " ") for i in range(tokens)]
        reply = "".join(words).strip()

        async def stall() -> tuple[list[float], list[float], float]:
            async with scripted_ollama_server(reply, tokens, 1000.0 / rate_hz) as url:
                return await _stream_and_probe(url, tokens)

        _app, loop = create_application()
        try:
            streaming, idle, achieved = loop.run_until_complete(stall())
        finally:
            loop.close()
            asyncio.set_event_loop(None)
        print(
            f"\nEvent loop while a reply streams into the chat window ({tokens} tokens, "
            f"target {rate_hz:.0f}/s, achieved {achieved:.0f}/s); lateness of a 5 ms probe:"
        )
        for label, values in (("streaming", streaming), ("idle ref ", idle)):
            print(
                f"  {label}: worst {max(values):6.2f} ms   p99 {percentile(values, 0.99):6.2f} ms"
                f"   median {statistics.median(values):5.2f} ms   ({len(values)} probes)"
            )
        print(f"  worst stall while streaming: {max(streaming):.1f} ms (target < 16 ms)")

        async def startup() -> tuple[list[float], list[float], list[float]]:
            async with scripted_ollama_server("Hello.", 2) as url:
                env = {
                    **os.environ,
                    "ARIA_LLM__OLLAMA__URL": url,
                    "ARIA_LLM__CHAINS__CHAT": "ollama",
                }
                env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
                shown: list[float] = []
                own: list[float] = []
                floor: list[float] = []
                for _ in range(startups):
                    seconds, own_ms = await asyncio.to_thread(_startup_once, env)
                    shown.append(seconds)
                    own.append(own_ms)
                    floor.append(await asyncio.to_thread(_qt_floor_once, env))
                return shown, own, floor

        shown, own, floor = asyncio.run(startup())
        median_shown = statistics.median(shown)
        median_floor = statistics.median(floor)
        print(
            f"\nStart-up of `aria desktop` to the tray icon shown ({startups} runs; the chat "
            "window when there is no tray host):"
        )
        print(
            f"  process start -> shown: median {median_shown * 1000:6.0f} ms   "
            f"worst {max(shown) * 1000:6.0f} ms (target < 1500 ms)"
        )
        print(f"  app's own figure (from `aria` entry): median {statistics.median(own):6.0f} ms")
        print(
            f"  bare Qt reference (import + show a label + exit): median "
            f"{median_floor * 1000:6.0f} ms   ratio {median_shown / median_floor:4.2f}x"
        )
        print("  (ARIA itself — database, model backends — is built after this, in the background)")
