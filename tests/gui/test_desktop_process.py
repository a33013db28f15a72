"""`aria desktop` as a real process under its own Xvfb with the Ollama test server: the chat
opens (no tray host here, so the window is the fallback), a typed message streams its answer
on screen (read back with tesseract), and SIGTERM quits cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text
from tests.gui.conftest import REPO, start_xvfb

pytestmark = pytest.mark.slow


@pytest.fixture
def own_display() -> Iterator[str]:
    process, display = start_xvfb()
    try:
        yield display
    finally:
        process.terminate()
        process.wait(timeout=10)


def app_env(tmp_path: Path, display: str | None, ollama_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARIA_")}
    env.pop("QT_QPA_PLATFORM", None)
    env.pop("WAYLAND_DISPLAY", None)
    if display is None:
        env.pop("DISPLAY", None)
    else:
        env["DISPLAY"] = display
    for name in ("CONFIG", "DATA", "STATE", "RUNTIME"):
        env[f"ARIA_{name}_DIR"] = str(tmp_path / name.lower())
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["ARIA_LLM__OLLAMA__URL"] = ollama_url
    env["ARIA_LLM__CHAINS__CHAT"] = "ollama"
    env["ARIA_LLM__OLLAMA__MODEL"] = "llama3.2"  # one the test server lists
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    env["OMP_THREAD_LIMIT"] = "1"
    env["ARIA_API__PORT"] = "0"  # the tray app serves the API too: any free port
    env["ARIA_VOICE__ENABLED"] = "false"  # no voice models competing with tesseract
    return env


def xdotool(display: str, *args: str) -> str:
    result = subprocess.run(
        ["xdotool", *args],
        env={**os.environ, "DISPLAY": display},
        capture_output=True,
        text=True,
        timeout=10,
    )
    return result.stdout.strip()


def screen_text(display: str, path: Path) -> str:
    """What the screen says: the window area, grey, 2x upscaled, read by tesseract."""
    import mss
    from PIL import Image

    factory = getattr(mss, "MSS", None) or mss.mss
    with factory(display=display) as grabber:
        shot = grabber.grab(grabber.monitors[1])
    image = Image.frombytes("RGB", shot.size, shot.rgb).crop((0, 0, 980, 680)).convert("L")
    image.resize((image.width * 2, image.height * 2), Image.Resampling.LANCZOS).save(path)
    result = subprocess.run(
        ["tesseract", str(path), "-", "--psm", "3"],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "OMP_THREAD_LIMIT": "1"},
    )
    return " ".join(result.stdout.split())


def test_aria_desktop_streams_an_answer_on_screen(tmp_path: Path, own_display: str) -> None:
    with FakeOllama() as ollama:
        ollama.script(
            "/api/chat",
            ollama_text("The capital of France is Paris, on the Seine.", chunks=5, delay_s=1.0),
        )
        process = subprocess.Popen(
            [sys.executable, "-m", "aria_desktop", "desktop", "--no-wizard"],
            cwd=REPO,
            env=app_env(tmp_path, own_display, ollama.url),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            window = ""
            deadline = time.monotonic() + 30
            while not window and time.monotonic() < deadline:
                window = xdotool(own_display, "search", "--onlyvisible", "--name", "^ARIA")
                time.sleep(0.2)
            assert window, "the chat window did not open"
            window = window.splitlines()[0]
            first = ""
            deadline = time.monotonic() + 30
            while "Ready" not in first and time.monotonic() < deadline:
                first = screen_text(own_display, tmp_path / "before.png")  # until connected
            assert "no system tray" in first, first
            assert "Ready" in first, first
            xdotool(own_display, "windowfocus", "--sync", window)
            xdotool(own_display, "type", "--delay", "20", "What is the capital of France?")
            xdotool(own_display, "key", "Return")
            partial_seen = False
            text = ""
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                text = screen_text(own_display, tmp_path / "during.png")
                if "capital of France is" in text and "Seine" not in text:
                    partial_seen = True
                if "Seine" in text:
                    break
            assert "Paris" in text, text
            assert "Seine" in text, text
            assert partial_seen, "the answer did not appear piece by piece"
            assert "lama3.2" in text  # the badge under the reply (OCR may read "l" as "I")
            sent = ollama.requests_to("/api/chat")[0].json()["messages"][-1]
            assert sent == {"role": "user", "content": "What is the capital of France?"}
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                _out, err = process.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                _out, err = process.communicate()
        assert process.returncode == 0, err
        assert "Traceback" not in err


def test_aria_desktop_without_a_display_says_so(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "aria_desktop", "desktop"],
        cwd=REPO,
        env=app_env(tmp_path, None, "http://127.0.0.1:9"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "No graphical display was found" in result.stderr
    assert "Traceback" not in result.stderr


def test_attach_with_nothing_running_says_so_before_any_window(
    tmp_path: Path, own_display: str
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "aria_desktop", "desktop", "--attach"],
        cwd=REPO,
        env=app_env(tmp_path, own_display, "http://127.0.0.1:9"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "No ARIA is running to attach to" in result.stderr
    assert "aria daemon" in result.stderr
    assert "Traceback" not in result.stderr
