"""`aria desktop` against a REAL system tray host: trayer (freedesktop XEmbed tray) on its own
Xvfb, the Ollama test server behind it.

The app is driven only the way a user drives it: X pointer and keyboard events (xdotool) and
what the screen shows (tesseract, pixels). It proves: the app picks the tray (not the
no-tray fallback window) and its icon is really docked in the host; the icon follows the
assistant's state; the tray menu's *Open chat* opens the chat with the composer focused; a
typed question's answer streams onto the screen and is stored (local HTTP API while running,
the SQLite file after quitting); the tooltip names the state and the backend; a left click
toggles the chat; the menu's *Quit* ends the process cleanly and takes the icon out of the
tray. The no-tray-host path is covered by test_desktop_process.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest

from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text
from tests.gui.conftest import ARTIFACTS, REPO, TRAY_HOST, start_tray_host, start_xvfb
from tests.gui.test_desktop_process import app_env, screen_text, xdotool

pytestmark = pytest.mark.slow

ANSWER = "The capital of France is Paris, on the Seine."
QUESTION = "What is the capital of France?"


@pytest.fixture
def tray_display() -> Iterator[str]:
    """A private Xvfb with a real tray host running on it (both stopped after the test)."""
    if shutil.which(TRAY_HOST[0]) is None:
        pytest.skip(f"{TRAY_HOST[0]} is not installed (packaging/setup.sh test installs it)")
    xvfb, display = start_xvfb()
    host: subprocess.Popen[bytes] | None = None
    try:
        host = start_tray_host(display)
        yield display
    finally:
        for process in (host, xvfb):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)


class LogLines:
    """The app's log (stderr), read on a thread so the pipe never fills; searchable, bounded."""

    def __init__(self, stream: IO[str]) -> None:
        self._lines: list[str] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._lock:
                self._lines.append(line)

    @property
    def text(self) -> str:
        with self._lock:
            return "".join(self._lines)

    def wait_for(self, pattern: str, timeout_s: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            match = re.search(pattern, self.text)
            if match:
                return match
            time.sleep(0.05)
        raise AssertionError(f"no log line matching {pattern!r} in:\n{self.text}")

    def join(self, timeout_s: float) -> None:
        self._thread.join(timeout_s)


@dataclass(frozen=True)
class XWindow:
    """A window of the app as the X server sees it (root coordinates, pixels)."""

    id: int
    name: str
    x: int
    y: int
    width: int
    height: int
    top_level_id: int
    """The window's top-level ancestor (a child of the root; the window itself if top-level)."""
    top_level_class: tuple[str, ...]
    """That ancestor's WM_CLASS (instance, class)."""

    @property
    def embedded(self) -> bool:
        """Reparented into another client's window (XEmbed docking does that)."""
        return self.top_level_id != self.id

    @property
    def centre(self) -> tuple[int, int]:
        return self.x + self.width // 2, self.y + self.height // 2


def app_windows(display: str, pid: int) -> list[XWindow]:
    """The viewable windows whose ``_NET_WM_PID`` is ``pid``, wherever they sit in the tree."""
    from Xlib import X, error
    from Xlib import display as xdisplay

    connection = xdisplay.Display(display)
    try:
        pid_atom = connection.intern_atom("_NET_WM_PID")
        name_atom = connection.intern_atom("_NET_WM_NAME")
        utf8 = connection.intern_atom("UTF8_STRING")
        root = connection.screen().root
        found = []
        stack = [(child, child) for child in root.query_tree().children]
        while stack:
            window, top = stack.pop()
            try:
                stack.extend((child, top) for child in window.query_tree().children)
                owner = window.get_full_property(pid_atom, X.AnyPropertyType)
                if owner is None or int(owner.value[0]) != pid:
                    continue
                if window.get_attributes().map_state != X.IsViewable:
                    continue
                name = window.get_full_property(name_atom, utf8)
                geometry = window.get_geometry()
                origin = root.translate_coords(window, 0, 0)
                found.append(
                    XWindow(
                        id=window.id,
                        name=bytes(name.value).decode() if name is not None else "",
                        x=origin.x,
                        y=origin.y,
                        width=geometry.width,
                        height=geometry.height,
                        top_level_id=top.id,
                        top_level_class=tuple(top.get_wm_class() or ()),
                    )
                )
            except error.XError:
                continue  # the window went away while we looked
        return found
    finally:
        connection.close()


def tray_icon(display: str, pid: int) -> XWindow | None:
    """The app's window docked inside another client's window (the tray host's)."""
    return next((w for w in app_windows(display, pid) if w.embedded), None)


def chat_window(display: str, pid: int) -> XWindow | None:
    """The app's visible chat window (its title names where ARIA runs once connected)."""
    return next(
        (w for w in app_windows(display, pid) if not w.embedded and w.name.startswith("ARIA — ")),
        None,
    )


def contains(outer: tuple[int, int, int, int], inner: tuple[int, int, int, int]) -> bool:
    """Whether rectangle ``inner`` (x, y, width, height) lies inside ``outer``."""
    return (
        inner[0] >= outer[0]
        and inner[1] >= outer[1]
        and inner[0] + inner[2] <= outer[0] + outer[2]
        and inner[1] + inner[3] <= outer[1] + outer[3]
    )


def poll(what: str, probe: Callable[[], Any], timeout_s: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def grab(display: str, left: int, top: int, width: int, height: int) -> Any:
    """The screen region as a PIL image."""
    import mss
    from PIL import Image

    factory = getattr(mss, "MSS", None) or mss.mss
    with factory(display=display) as grabber:
        shot = grabber.grab({"left": left, "top": top, "width": width, "height": height})
    return Image.frombytes("RGB", shot.size, shot.rgb)


def icon_pixels(display: str, icon: XWindow) -> bytes:
    return bytes(grab(display, icon.x, icon.y, icon.width, icon.height).tobytes())


def steady_icon(display: str, icon: XWindow) -> bytes:
    """The icon's pixels once two reads a moment apart agree (b"" while it is being redrawn)."""
    first = icon_pixels(display, icon)
    time.sleep(0.3)
    return first if first and icon_pixels(display, icon) == first else b""


def pixel_distance(a: bytes, b: bytes) -> float:
    """Mean absolute difference per colour channel (0 = the same picture, 255 = inverted).

    The icon is drawn over the tray host's background with anti-aliased edges: a redraw of
    the same icon can differ by a few levels at its rim, never by a whole picture.
    """
    if len(a) != len(b) or not a:
        return 255.0
    return sum(abs(x - y) for x, y in zip(a, b, strict=True)) / len(a)


def looks_like(shown: bytes, same: bytes, other: bytes) -> bool:
    """``shown`` is the picture ``same``, not ``other`` (far closer to the first)."""
    near = pixel_distance(shown, same)
    return near < 4.0 and near * 4 < pixel_distance(shown, other)


def find_phrase(display: str, region: tuple[int, int, int, int], phrase: str) -> tuple[int, int]:
    """Screen position (centre) of ``phrase`` inside ``region`` as tesseract reads it, or (0, 0).

    The region is greyed and upscaled 2x (menu text is small); word boxes come from
    tesseract's TSV output and are mapped back to screen pixels.
    """
    from PIL import Image

    left, top, width, height = region
    image = grab(display, left, top, width, height).convert("L")
    image = image.resize((width * 2, height * 2), Image.Resampling.LANCZOS)
    path = ARTIFACTS / f".ocr-region-{os.getpid()}.png"  # one per process (pytest -n)
    ARTIFACTS.mkdir(exist_ok=True)
    image.save(path)
    result = subprocess.run(
        ["tesseract", str(path), "-", "--psm", "4", "tsv"],
        capture_output=True,
        text=True,
        timeout=30,
        env={"OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"},
    )
    path.unlink(missing_ok=True)
    words = [row.split("\t") for row in result.stdout.splitlines()[1:]]
    words = [row for row in words if len(row) == 12 and row[11].strip()]
    wanted = [part.lower() for part in phrase.split()]
    for start in range(len(words) - len(wanted) + 1):
        run = words[start : start + len(wanted)]
        line_ids = {tuple(row[2:5]) for row in run}
        texts = [re.sub(r"\W", "", row[11]).lower() for row in run]
        if len(line_ids) == 1 and texts == wanted:
            x0 = min(int(row[6]) for row in run)
            y0 = min(int(row[7]) for row in run)
            x1 = max(int(row[6]) + int(row[8]) for row in run)
            y1 = max(int(row[7]) + int(row[9]) for row in run)
            return left + (x0 + x1) // 4, top + (y0 + y1) // 4
    return 0, 0


def click(display: str, x: int, y: int, button: int = 1) -> None:
    xdotool(display, "mousemove", str(x), str(y))
    xdotool(display, "click", str(button))


def choose_from_tray_menu(
    display: str, icon: XWindow, item: str, artifact: str | None = None
) -> None:
    """Right-click the tray icon and click ``item`` in the menu that opens (found by OCR)."""
    click(display, *icon.centre, button=3)
    # The menu opens at the pointer, kept on screen: left of and under the icon.
    left = max(0, icon.x - 640)
    region = (left, icon.y, min(1280, icon.x + icon.width + 640) - left, 400)
    found: list[tuple[int, int]] = []

    def menu_item() -> bool:
        found[:] = [find_phrase(display, region, item)]
        return found[0] != (0, 0)

    poll(f"{item!r} in the tray menu", menu_item)
    if artifact is not None:
        ARTIFACTS.mkdir(exist_ok=True)
        grab(display, 0, 0, 1280, 800).save(ARTIFACTS / artifact)
    click(display, *found[0])


def screen_says(display: str, tmp_path: Path, word: str) -> str:
    """The chat window's text once it contains ``word`` ("" before)."""
    text = screen_text(display, tmp_path / "screen.png")
    return text if word in text else ""


def launch(
    tmp_path: Path, display: str, ollama_url: str, *, debug: bool = False
) -> tuple[subprocess.Popen[str], LogLines]:
    """``aria desktop`` (info log on stderr; ``debug``: debug log, e.g. each tray activation,
    so a test can wait for the app to have handled a click) under ``tmp_path``."""
    env = app_env(tmp_path, display, ollama_url)
    if debug:
        env["ARIA_LOG__LEVEL"] = "DEBUG"
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)  # the XEmbed tray, not a D-Bus (SNI) one
    process = subprocess.Popen(
        [sys.executable, "-m", "aria_desktop", "-v", "desktop", "--no-wizard", "--no-hotkeys"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    return process, LogLines(process.stderr)


def request_close(display: str, window_id: int) -> None:
    """Ask a window to close the way a window manager's close button does (WM_DELETE_WINDOW)."""
    from Xlib import X
    from Xlib import display as xdisplay
    from Xlib.protocol import event

    connection = xdisplay.Display(display)
    try:
        window = connection.create_resource_object("window", window_id)
        protocols = connection.intern_atom("WM_PROTOCOLS")
        delete = connection.intern_atom("WM_DELETE_WINDOW")
        message = event.ClientMessage(
            window=window, client_type=protocols, data=(32, [delete, X.CurrentTime, 0, 0, 0])
        )
        window.send_event(message, event_mask=X.NoEventMask)
        connection.sync()  # a round trip: the server has handled the request before we hang up
    finally:
        connection.close()


def api_get(port: int, token: str, path: str) -> Any:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1{path}", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_tray_host_open_chat_from_the_tray_menu_and_stream_an_answer(
    tmp_path: Path, tray_display: str
) -> None:
    display = tray_display
    with FakeOllama() as ollama:
        ollama.script("/api/chat", ollama_text(ANSWER, chunks=5, delay_s=1.0))
        launched = time.monotonic()
        process, log = launch(tmp_path, display, ollama.url, debug=True)
        try:
            shown = log.wait_for(r"ARIA desktop shown: (.+?) after (\d+) ms", timeout_s=30)
            assert shown.group(1) == "tray icon", log.text

            # Docked: the icon window sits inside the tray host's window, visible, not 0x0.
            icon = poll("the icon docked in the tray", lambda: tray_icon(display, process.pid), 30)
            docked_ms = (time.monotonic() - launched) * 1000
            assert icon.top_level_class == ("panel", "trayer"), icon
            assert min(icon.width, icon.height) >= 16, icon
            screen = (0, 0, 1280, 800)
            assert contains(screen, (icon.x, icon.y, icon.width, icon.height)), icon
            log.wait_for(r"ARIA desktop connected", timeout_s=30)
            port = int(log.wait_for(r"Local API listening on 127\.0\.0\.1:(\d+)", 5).group(1))
            assert chat_window(display, process.pid) is None  # the tray, not the fallback window
            # The reference is the idle icon itself: on a loaded machine the offline icon of
            # the start was still drawn for a while after "connected" (the event is waited on).
            log.wait_for(r"Tray icon shows idle", timeout_s=30)
            idle = poll("the idle icon drawn", lambda: steady_icon(display, icon))
            assert len(set(idle)) > 3, "the tray icon is blank"

            choose_from_tray_menu(display, icon, "Open chat", "desktop-tray-menu.png")
            window = poll("the chat window", lambda: chat_window(display, process.pid))
            assert window.width >= 600, window
            assert window.height >= 400, window
            first = poll("the chat window ready", lambda: screen_says(display, tmp_path, "Ready"))
            assert "no system tray" not in first, first

            # No explicit focus: opening the chat from the tray must put the cursor in the
            # composer, as a user would expect.
            xdotool(display, "type", "--delay", "20", QUESTION)
            xdotool(display, "key", "Return")
            partial_seen = False
            thinking = b""
            text = ""
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if not thinking:
                    now = icon_pixels(display, icon)
                    thinking = now if pixel_distance(now, idle) > 8.0 else b""
                text = screen_text(display, tmp_path / "during.png")
                if "capital of France is" in text and "Seine" not in text:
                    partial_seen = True
                if "Seine" in text:
                    break
            assert "Paris" in text, text
            assert "Seine" in text, text
            assert partial_seen, "the answer did not appear piece by piece"
            assert "lama3.2" in text, text  # the badge (OCR may read its "l" as "I")
            assert thinking, "the tray icon did not change while ARIA was thinking"
            # The turn ends, then the icon is redrawn: on a loaded machine (CI builds
            # llama-server beside the tests) that took over 10 s once; the event is waited on.
            try:
                poll(
                    "the idle icon again",
                    lambda: looks_like(icon_pixels(display, icon), idle, thinking),
                    30,
                )
            except AssertionError:
                from PIL import Image

                ARTIFACTS.mkdir(exist_ok=True)
                drawn = icon_pixels(display, icon)
                size = (icon.width, icon.height)
                for name, picture in (("idle", idle), ("thinking", thinking), ("drawn", drawn)):
                    Image.frombytes("RGB", size, picture).save(ARTIFACTS / f"tray-icon-{name}.png")
                distances = (pixel_distance(drawn, idle), pixel_distance(drawn, thinking))
                raise AssertionError(
                    f"the idle icon was not drawn again (distance to idle, thinking: {distances}; "
                    f"pictures in {ARTIFACTS}/tray-icon-*.png)\n{log.text[-4000:]}"
                ) from None

            # Stored, and served by the app (the desktop owns the data and the API).
            token = (tmp_path / "config" / "api" / "token").read_text().strip()
            conversations = api_get(port, token, "/conversations")
            assert len(conversations) == 1, conversations
            detail = api_get(port, token, f"/conversations/{conversations[0]['id']}")
            sent = [(m["role"], m["content"], m["status"]) for m in detail["messages"]]
            assert sent == [("user", QUESTION, "complete"), ("assistant", ANSWER, "complete")]

            # The tooltip: state and the backend that answered.
            xdotool(display, "mousemove", str(icon.x + 2), str(icon.y + 2))
            tip_left = max(0, icon.x - 400)
            tip_region = (tip_left, icon.y + icon.height - 4, 1280 - tip_left, 80)
            poll("the tooltip", lambda: find_phrase(display, tip_region, "local ollama") != (0, 0))
            assert find_phrase(display, tip_region, "Ready") != (0, 0)
            ARTIFACTS.mkdir(exist_ok=True)
            grab(display, 0, 0, 1280, 800).save(ARTIFACTS / "desktop-tray-host.png")

            # Left click toggles the chat window.
            click(display, *icon.centre)
            poll(
                "the chat hidden by a left click", lambda: chat_window(display, process.pid) is None
            )
            click(display, *icon.centre)
            poll("the chat shown by a left click", lambda: chat_window(display, process.pid))
            click(display, *icon.centre)
            poll("the chat hidden again", lambda: chat_window(display, process.pid) is None)
            # Input pacing, not synchronisation: a user's next gesture comes after Qt's
            # double-click interval (400 ms, on the X server's event timestamps), or the
            # double-click below would pair with the click above.
            time.sleep(0.6)
            # A double-click reaches the app as Trigger then DoubleClick: it must end open.
            # The app logs each activation as it handles it; after the DoubleClick no further
            # toggle can come, so the window state from then on is the final one.
            double_clicks = log.text.count("Tray icon activated: DoubleClick")
            xdotool(display, "click", "--repeat", "2", "--delay", "80", "1")
            poll(
                "the double-click handled",
                lambda: log.text.count("Tray icon activated: DoubleClick") > double_clicks,
            )
            poll("the chat open after a double-click", lambda: chat_window(display, process.pid))
            assert chat_window(display, process.pid) is not None, "a double-click hid the chat"

            choose_from_tray_menu(display, icon, "Quit ARIA")
            process.wait(timeout=30)
            log.join(10)
            assert process.returncode == 0, log.text
            assert "Quit requested" in log.text
            assert tray_icon(display, process.pid) is None
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)
        assert "Traceback" not in log.text, log.text
    with sqlite3.connect(tmp_path / "data" / "aria.db") as db:
        rows = db.execute(
            "SELECT role, content, status, model FROM messages ORDER BY id"
        ).fetchall()
    assert rows == [
        ("user", QUESTION, "complete", ""),
        ("assistant", ANSWER, "complete", "llama3.2"),
    ]
    print(
        f"tray icon shown after {shown.group(2)} ms (app log); "
        f"docked in the tray {docked_ms:.0f} ms after launching the process"
    )


def test_a_tray_host_started_after_the_app_takes_it_into_the_tray(tmp_path: Path) -> None:
    """Login race: ARIA (autostart) starts before the panel that hosts the tray."""
    if shutil.which(TRAY_HOST[0]) is None:
        pytest.skip(f"{TRAY_HOST[0]} is not installed (packaging/setup.sh test installs it)")
    xvfb, display = start_xvfb()
    host: subprocess.Popen[bytes] | None = None
    process: subprocess.Popen[str] | None = None
    try:
        process, log = launch(tmp_path, display, "http://127.0.0.1:9", debug=True)
        shown = log.wait_for(r"ARIA desktop shown: (.+?) after", timeout_s=30)
        assert shown.group(1) == "chat window (no tray host)", log.text
        log.wait_for(r"ARIA desktop connected", timeout_s=30)
        window = poll("the fallback chat window", lambda: chat_window(display, process.pid))
        assert "no system tray" in poll(
            "the no-tray notice", lambda: screen_says(display, tmp_path, "no system tray")
        )

        host = start_tray_host(display)
        appeared = time.monotonic()
        icon = poll("the icon docked in the late tray", lambda: tray_icon(display, process.pid))
        adopted_ms = (time.monotonic() - appeared) * 1000
        assert icon.top_level_class == ("panel", "trayer"), icon
        log.wait_for(r"A system tray appeared", timeout_s=5)
        poll(
            "the no-tray notice gone",
            lambda: "no system tray" not in screen_says(display, tmp_path, "Ready"),
        )

        # Closing the window (as a window manager asks) now keeps ARIA running in the tray.
        request_close(display, window.id)
        try:
            poll("the chat hidden", lambda: chat_window(display, process.pid) is None)
        except AssertionError:
            windows = app_windows(display, process.pid)
            raise AssertionError(
                f"closed window {window.id}, the app's windows now: {windows}\n{log.text[-3000:]}"
            ) from None
        # Hidden is the close handler's other branch: with a tray it hides instead of quitting.
        assert "Quit requested" not in log.text, log.text
        assert process.poll() is None, log.text
        assert tray_icon(display, process.pid) is not None
        click(display, *icon.centre)
        poll("the chat reopened from the tray", lambda: chat_window(display, process.pid))

        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        log.join(10)
        assert process.returncode == 0, log.text
        assert "Traceback" not in log.text, log.text
        print(f"late tray host adopted {adopted_ms:.0f} ms after it took the tray selection")
    finally:
        for proc in (process, host, xvfb):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)


def test_doctor_finds_the_tray_host(tray_display: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from aria_desktop.doctor.desktop import check_system_tray

    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    result = check_system_tray(tray_display)
    assert (result.status, result.detail) == ("OK", f"XEmbed tray host on display {tray_display}")


def test_doctor_says_what_happens_without_a_tray_host(
    xvfb_display: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aria_desktop.doctor.desktop import check_system_tray

    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    result = check_system_tray(xvfb_display)  # the session's Xvfb: no tray host
    assert result.status == "WARN"
    assert result.detail == f"no system tray on display {xvfb_display}"
    assert "the chat window opens instead" in result.fix
