"""``aria bench computer``: seeing, reading and clicking, measured on the real target app.

Runs the PySide6 target app from ``tests/computer`` (a source checkout is needed) on the
current display, or on a private Xvfb display when there is none, and measures:

* screenshot: grab + PNG encode of the whole screen (reference: the raw mss grab);
* full-screen OCR (1280x800 under Xvfb): ARIA's settings (grayscale, 2x, sparse-text mode;
  reference: Tesseract's defaults, 1x page mode, on the same screen);
* find-and-click end to end: screenshot + OCR + grounding + policy + re-verification + real
  click, until the app reports the click;
* grounding accuracy over every caption of the target app: the phrase is found exactly once
  and its centre lies inside the widget the app reports (for both OCR settings).

Then the same on Wayland when sway is installed: a private headless sway (one 1280x800 output;
started as the unprivileged ``aria-wayland`` user when run as root, as the tests do) with the
target app as a native Wayland client, captured with grim and clicked through the virtual
pointer. A Wayland client cannot report its widgets' screen positions, so accuracy there is
whether each click lands on the widget named.

Prints figures; asserts nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aria_desktop.bench._util import start_xvfb, summary
from aria_desktop.domain.computer import Rect, ScreenText
from aria_desktop.domain.errors import AriaError

__all__ = ["run_computer_bench"]

_REPO = Path(__file__).resolve().parents[2]
_TARGET = _REPO / "tests" / "computer" / "target_app.py"
_CLICKABLE = ("Preview", "Cancel", "Save Draft", "Open Downloads")


@contextlib.contextmanager
def _display() -> Iterator[str]:
    """The current display, or a private Xvfb one for the duration of the benchmark."""
    if os.environ.get("DISPLAY"):
        yield os.environ["DISPLAY"]
        return
    if shutil.which("Xvfb") is None:
        raise AriaError(
            "No display to benchmark on.",
            hint="Run inside a desktop session, or install Xvfb (sudo apt-get install xvfb).",
        )
    proc, display = start_xvfb()
    os.environ["DISPLAY"] = display
    saved_auth = os.environ.pop("XAUTHORITY", None)
    try:
        yield os.environ["DISPLAY"]
    finally:
        os.environ.pop("DISPLAY", None)
        if saved_auth is not None:
            os.environ["XAUTHORITY"] = saved_auth
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)


class _App:
    """The target app in a child process; its JSON event lines are collected."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        if not _TARGET.exists():
            raise AriaError(
                "This benchmark needs the target app in tests/computer.",
                hint="Run it from a source checkout (the one bash packaging/setup.sh installs).",
            )
        env = env or {**os.environ, "QT_QPA_PLATFORM": "xcb"}
        self.proc = subprocess.Popen(
            [sys.executable, str(_TARGET)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=_REPO,
        )
        self.events: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.ready = self.wait_for("ready", 0, timeout_s=30)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with contextlib.suppress(ValueError), self._cond:
                self.events.append(json.loads(line))
                self._cond.notify_all()

    def mark(self) -> int:
        with self._cond:
            return len(self.events)

    def wait_for(self, name: str, since: int, *, timeout_s: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while True:
                for event in self.events[since:]:
                    if event.get("event") == name:
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AriaError(f"The target app did not report {name!r}.")
                self._cond.wait(left)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _accuracy(controller: Any, text: ScreenText, widgets: dict[str, list[int]]) -> tuple[int, int]:
    labels: tuple[str, ...] = importlib.import_module("tests.computer.target_labels").ALL_LABELS
    hits = 0
    for label in labels:
        grounding = controller.ground(text, label)
        x, y, w, h = widgets[label]
        if grounding.best is not None and Rect(x, y, w, h).contains(grounding.best.center):
            hits += 1
    return hits, len(labels)


async def run_computer_bench(*, rounds: int = 10) -> None:
    """Measure and print; ``rounds`` repetitions per figure (OCR: half as many)."""
    sys.path.insert(0, str(_REPO))
    with _display() as display, tempfile.TemporaryDirectory(prefix="aria-bench-") as tmp:
        os.environ.setdefault("ARIA_DATA_DIR", str(Path(tmp) / "data"))
        app = _App()
        try:
            await _measure(app, f"X11 display {display}", Path(tmp), rounds)
        finally:
            app.close()
    await _measure_wayland(rounds)


async def _measure_wayland(rounds: int) -> None:
    """The same figures on a private headless sway (skipped, with the reason, without it)."""
    if shutil.which("sway") is None:
        print("Wayland (sway): not measured, sway is not installed")
        return
    wayland = importlib.import_module("tests.computer.wayland")
    saved = {k: os.environ.get(k) for k in ("DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK")}
    with tempfile.TemporaryDirectory(prefix="aria-bench-") as tmp:
        try:
            with wayland.sway_session(Path(tmp), outputs=1) as session:
                os.environ.pop("DISPLAY", None)
                os.environ.update(
                    WAYLAND_DISPLAY=str(session.wayland_socket), SWAYSOCK=str(session.ipc_socket)
                )
                app = _App(session.env)
                try:
                    await _measure(app, "Wayland (headless sway)", Path(tmp), rounds)
                finally:
                    app.close()
        except BaseException as exc:  # pytest.fail from the session's set-up, among others
            if isinstance(exc, KeyboardInterrupt | asyncio.CancelledError):
                raise
            print(f"Wayland (sway): not measured: {exc}")
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


async def _measure(app: _App, where: str, tmp: Path, rounds: int) -> None:
    from aria_desktop.adapters.computer.controller import DesktopController
    from aria_desktop.adapters.computer.ocr import TesseractOcr, tesseract_version
    from aria_desktop.adapters.storage.audit_file import AuditFile
    from aria_desktop.compose.tools import build_computer
    from aria_desktop.core.audit import AuditLog
    from aria_desktop.settings import ComputerSettings, Settings

    controller = DesktopController(ocr=TesseractOcr(upscale=2.0, psm=11))
    naive = DesktopController(ocr=TesseractOcr(upscale=1.0, psm=3))
    bounds = controller.screen_bounds()
    print(
        f"aria bench computer — {where}, {bounds.width}x{bounds.height} px, "
        f"Tesseract {tesseract_version()}, {rounds} rounds"
    )

    grab_ms, shot_ms = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        await asyncio.to_thread(controller.screen.grab, bounds)
        grab_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        await asyncio.to_thread(controller.capture, 0)
        shot_ms.append((time.perf_counter() - started) * 1000)
    print(f"  screenshot (grab + PNG):      {summary(shot_ms)}")
    print(f"    reference: raw grab         {summary(grab_ms)}")

    ocr_rounds = max(3, rounds // 2)
    aria_ms, naive_ms = [], []
    text = naive_text = None
    for _ in range(ocr_rounds):
        started = time.perf_counter()
        text = await asyncio.to_thread(controller.read, None)
        aria_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        naive_text = await asyncio.to_thread(naive.read, None)
        naive_ms.append((time.perf_counter() - started) * 1000)
    assert text is not None
    assert naive_text is not None
    ratio = statistics.median(aria_ms) / statistics.median(naive_ms)
    print(f"  full-screen OCR (2x, sparse): {summary(aria_ms)}   (target < 1500 ms)")
    print(f"    reference: Tesseract 1x     {summary(naive_ms)}   (ARIA/reference {ratio:.2f}x)")

    if not where.startswith("Wayland"):  # positions a Wayland client cannot know
        widgets = app.ready["widgets"]
        hits, total = _accuracy(controller, text, widgets)
        naive_hits, _ = _accuracy(naive, naive_text, widgets)
        print(
            f"  grounding accuracy:           {hits}/{total} = {100 * hits / total:.0f}%   "
            "(target 100%)"
        )
        print(
            f"    reference: Tesseract 1x     {naive_hits}/{total} = "
            f"{100 * naive_hits / total:.0f}%"
        )

    settings = dataclasses.replace(
        Settings(),
        computer=ComputerSettings(
            enabled=True, max_actions_per_s=100.0, thumbnail_retention_days=1
        ),
    )
    audit = AuditLog(AuditFile(tmp / "audit" / "log.jsonl", tmp / "state" / "checkpoint"))
    computer = build_computer(settings, audit=audit, controller=controller)
    click_ms = []
    landed = 0
    for i in range(rounds):
        label = _CLICKABLE[i % len(_CLICKABLE)]
        mark = app.mark()
        started = time.perf_counter()
        outcome = await computer.click_text(label)
        if outcome.status == "ok":
            await asyncio.to_thread(app.wait_for, "click", mark)
            landed += 1
        click_ms.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0.05)
    print(f"  find-and-click end to end:    {summary(click_ms)}   ({landed}/{rounds} landed)")
