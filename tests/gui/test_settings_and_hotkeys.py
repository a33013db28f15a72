"""Settings dialog validation and saving, autostart, API token, wizard; hotkey parsing and
global hotkeys under Xvfb; the PySide6 None-refcount canary."""

from __future__ import annotations

import asyncio
import os
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLabel, QLineEdit

from aria_desktop.api.token import TokenFile
from aria_desktop.compose.desktop_services import LocalSettingsService, autostart_path
from aria_desktop.gui.hotkeys import GlobalHotkeys, session_problem
from aria_desktop.gui.keyspec import HotkeySpecError, parse_hotkey
from aria_desktop.gui.views.wizard import FINISH_PAGE, MODEL_PAGE
from tests.fakes import FakeOllama
from tests.gui.conftest import wait_for
from tests.gui.wizard_steps import go_to


def settings_file(env: Path) -> dict[str, Any]:
    path = env / "config" / "settings.toml"
    return tomllib.loads(path.read_text()) if path.exists() else {}


def test_qlabel_settext_canary_20000_calls(qapp: Any) -> None:
    # PySide6 6.12 on Python 3.11 over-releases None on void calls and aborts after ~5,000.
    label = QLabel()
    for i in range(20_000):
        label.setText(str(i))
    assert label.text() == "19999"


def test_invalid_values_are_refused_in_the_form_with_the_reason(
    desktop_factory: Any, isolated_env: Path
) -> None:
    desktop = desktop_factory(None)
    controller = desktop.settings
    view = controller.open()
    view.ollama_url.setText("ftp://gpu:11434")
    view.hotkey_edits["gui.hotkey_stop"].setKeySequence(QKeySequence("Ctrl+Alt+Space"))
    assert controller.save() is False
    assert view.isVisible()
    assert not view.errors["llm.ollama.url"].isHidden()  # shown (its tab may be behind)
    assert "http" in view.errors["llm.ollama.url"].text()
    assert "already used" in view.errors["gui.hotkey_stop"].text()
    assert "Not saved" in view.form_error.text()
    assert settings_file(isolated_env) == {}  # nothing written
    # Untick every backend: refused too.
    for i in range(view.chain.count()):
        view.chain.item(i).setCheckState(view.chain.item(i).checkState().Unchecked)
    view.ollama_url.setText("http://gpu.local:11434")
    view.hotkey_edits["gui.hotkey_stop"].setKeySequence(QKeySequence("Ctrl+Alt+X"))
    assert controller.save() is False
    assert "at least one backend" in view.errors["llm.chains"].text()


def test_valid_changes_are_saved_and_start_at_login_writes_the_autostart_entry(
    desktop_factory: Any, isolated_env: Path
) -> None:
    desktop = desktop_factory(None)
    controller = desktop.settings
    view = controller.open()
    view.ollama_url.setText("http://gpu.local:11434")
    view.model.setCurrentText("qwen3:8b")
    view.hotkey_edits["gui.hotkey_quick_ask"].setKeySequence(QKeySequence("Ctrl+Shift+A"))
    view.fallback_on["capability"].setChecked(False)
    view.start_at_login.setChecked(True)
    # Claude first.
    item = view.chain.takeItem(1)
    view.chain.insertItem(0, item)
    assert controller.save() is True
    assert not view.isVisible()
    data = settings_file(isolated_env)
    assert data["llm"]["ollama"] == {"url": "http://gpu.local:11434", "model": "qwen3:8b"}
    assert data["llm"]["chains"] == {"chat": ["anthropic", "ollama"]}
    assert data["llm"]["fallback_on"] == ["error", "context_overflow"]
    assert data["gui"]["hotkey_quick_ask"] == "Ctrl+Shift+A"
    entry = autostart_path()
    assert entry == isolated_env / "xdg" / "autostart" / "aria-desktop.desktop"
    text = entry.read_text()
    assert "Type=Application" in text
    assert "Exec=" in text
    assert " desktop" in text
    # Turning it off removes the entry.
    view = controller.open()
    assert view.start_at_login.isChecked()
    view.start_at_login.setChecked(False)
    assert controller.save() is True
    assert not entry.exists()


def test_speech_model_and_language_are_offered_and_checked_together(
    desktop_factory: Any, isolated_env: Path
) -> None:
    desktop = desktop_factory(None)
    controller = desktop.settings
    view = controller.open()
    model = view.generic["voice.stt.model"]
    language = view.generic["voice.stt.language"]
    assert isinstance(model, QLineEdit)
    assert isinstance(language, QLineEdit)
    offered = model.completer().model()
    assert [offered.index(i, 0).data() for i in range(offered.rowCount())] == ["tiny.en", "base"]
    assert language.completer().model().rowCount() == 100  # Whisper's language codes
    assert language.placeholderText() == "automatic"
    # Folder…: a window-modal picker (no nested event loop) fills the field.
    folder = isolated_env / "whisper-small"
    folder.mkdir()
    dialog = controller.choose_folder("voice.stt.model")
    assert dialog.isVisible()
    dialog.fileSelected.emit(str(folder))
    dialog.reject()
    assert model.text() == str(folder)
    # German needs the multilingual model: refused with tiny.en, saved with base.
    model.setText("tiny.en")
    language.setText("de")
    assert controller.save() is False
    assert "English-only model tiny.en" in view.errors["voice.stt.language"].text()
    model.setText("base")
    assert controller.save() is True
    assert settings_file(isolated_env)["voice"]["stt"] == {"model": "base", "language": "de"}
    # And back to English in one go (the two only make sense together).
    view = controller.open()
    model.setText("tiny.en")
    language.setText("")
    assert controller.save() is True, view.form_error.text()
    assert settings_file(isolated_env)["voice"]["stt"] == {"model": "tiny.en", "language": ""}


def test_test_connection_fills_the_model_picker(
    desktop_factory: Any, isolated_env: Path, ollama: FakeOllama, run: Any
) -> None:
    desktop = desktop_factory(None)
    controller = desktop.settings
    view = controller.open()
    view.ollama_url.setText(ollama.url)
    view.test_button.click()
    run(wait_for(lambda: "Connected" in view.test_result.text()))
    assert [view.model.itemText(i) for i in range(view.model.count())] == [
        "llama3.2:latest",
        "qwen3:8b",
    ]
    view.ollama_url.setText("http://127.0.0.1:9")  # nothing listens there
    view.test_button.click()
    run(
        wait_for(
            lambda: view.test_button.isEnabled() and "Connected" not in view.test_result.text()
        )
    )
    assert view.test_result.text()
    assert "Traceback" not in view.test_result.text()


def test_api_token_is_shown_on_request_and_rotates(
    desktop_factory: Any, isolated_env: Path
) -> None:
    desktop = desktop_factory(None)
    controller = desktop.settings
    view = controller.open()
    token = view.api_token.text()
    assert len(token) >= 32
    assert view.api_token.echoMode() == QLineEdit.EchoMode.Password
    view.show_token_button.click()
    assert view.api_token.echoMode() == QLineEdit.EchoMode.Normal
    controller.rotate_token()
    assert view.api_token.text() != token
    token_file = isolated_env / "config" / "api" / "token"  # the API's own token file
    assert token_file.read_text().strip() == view.api_token.text()
    assert oct(token_file.stat().st_mode & 0o777) == "0o600"
    api_token = TokenFile(token_file)  # what the HTTP API checks requests against
    assert api_token.matches(view.api_token.text().encode())
    assert not api_token.matches(token.encode())


def test_wizard_finds_ollama_and_saves_the_choices(
    desktop_factory: Any, isolated_env: Path, ollama: FakeOllama, run: Any
) -> None:
    desktop = desktop_factory(None)
    LocalSettingsService().apply({"llm.ollama.url": ollama.url})
    wizard = desktop.wizard
    assert not wizard.completed()
    view = wizard.open()
    run(wait_for(lambda: wizard.server_ok))
    assert "has 2 models" in view.server_status.text()
    go_to(view, MODEL_PAGE)
    assert view.ollama_choice.isChecked()
    view.model.setCurrentText("qwen3:8b")
    go_to(view, FINISH_PAGE)
    view.hotkeys["gui.hotkey_push_to_talk"].setKeySequence(QKeySequence("Ctrl+Alt+P"))
    view.accept()
    data = settings_file(isolated_env)
    assert data["llm"]["ollama"]["model"] == "qwen3:8b"
    assert data["llm"]["chains"]["chat"] == ["ollama", "anthropic"]  # Claude stays the fallback
    assert data["gui"]["hotkey_push_to_talk"] == "Ctrl+Alt+P"
    assert wizard.completed()


@pytest.mark.parametrize(
    ("text", "pynput"),
    [
        ("Ctrl+Alt+Space", "<ctrl>+<alt>+<space>"),
        ("Meta+Shift+K", "<shift>+<cmd>+k"),
        ("Ctrl+Alt+F5", "<ctrl>+<alt>+<f5>"),
        ("F9", "<f9>"),
    ],
)
def test_hotkey_text_is_parsed(text: str, pynput: str) -> None:
    spec = parse_hotkey(text)
    assert spec is not None
    assert spec.pynput == pynput
    assert parse_hotkey("") is None


@pytest.mark.parametrize("text", ["A", "Ctrl+Alt", "Ctrl+A+B", "Ctrl+Alt+Banana"])
def test_unusable_hotkeys_are_refused(text: str) -> None:
    with pytest.raises(HotkeySpecError):
        parse_hotkey(text)


def test_hotkeys_explain_when_the_session_cannot_grab_keys() -> None:
    assert "Wayland" in (session_problem({"WAYLAND_DISPLAY": "wayland-0"}) or "")
    assert "tray menu" in (session_problem({}) or "")
    assert session_problem({"DISPLAY": ":0"}) is None


def test_global_hotkeys_reach_the_loop(qloop: asyncio.AbstractEventLoop, run: Any) -> None:
    seen: list[tuple[str, str]] = []
    hotkeys = GlobalHotkeys(qloop, lambda action, kind: seen.append((action, kind)))
    try:
        assert hotkeys.start(
            {
                "quick_ask": parse_hotkey("Ctrl+Alt+Space"),
                "push_to_talk": parse_hotkey("Ctrl+Alt+V"),
            }
        ), hotkeys.status
        env = {**os.environ}
        subprocess.run(["xdotool", "key", "ctrl+alt+space"], env=env, check=True, timeout=10)
        run(wait_for(lambda: ("quick_ask", "press") in seen))
        subprocess.run(["xdotool", "keydown", "ctrl+alt+v"], env=env, check=True, timeout=10)
        run(wait_for(lambda: ("push_to_talk", "press") in seen))
        assert ("push_to_talk", "release") not in seen  # still held
        subprocess.run(["xdotool", "keyup", "ctrl+alt+v"], env=env, check=True, timeout=10)
        run(wait_for(lambda: ("push_to_talk", "release") in seen))
    finally:
        listener = hotkeys._listener
        hotkeys.stop()
        # pynput notices stop() at the next X event; give it one so its thread ends here.
        subprocess.run(["xdotool", "key", "shift"], check=False, timeout=10)
        if listener is not None:
            listener.join(timeout=5)
