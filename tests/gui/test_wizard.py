"""The first run: welcome to finish, Ollama found by itself, voice said truly, a folder
picker, and Finish opening the chat window with something to try that works already."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl

from aria_desktop.compose.desktop_services import LocalSettingsService
from aria_desktop.gui.controllers.wizard import home_relative
from aria_desktop.gui.controllers.wizard_model import LOCAL_OLLAMA
from aria_desktop.gui.views.transcript import SUGGESTION_LINK
from aria_desktop.gui.views.wizard import (
    FINISH_PAGE,
    FIRST_TRY,
    MODEL_PAGE,
    PRIVACY_PAGE,
    VOICE_PAGE,
    WELCOME_PAGE,
)
from tests.fakes import FakeOllama
from tests.gui.conftest import wait_for
from tests.gui.test_settings_and_hotkeys import settings_file
from tests.gui.wizard_steps import go_to


@pytest.fixture
def local_ollama() -> Iterator[FakeOllama]:
    """The Ollama test server on Ollama's own address (where a fresh ARIA looks first)."""
    server = FakeOllama(models=["llama3.2:latest", "qwen3:8b", "gemma3:4b"])
    try:
        server.start(int(LOCAL_OLLAMA.rsplit(":", 1)[1]))
    except OSError:
        pytest.skip("something already listens on Ollama's port on this machine")
    try:
        yield server
    finally:
        server.stop()


def closed_address() -> str:
    """An address on this computer where nothing listens (a port just freed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_the_wizard_finds_ollama_on_this_computer_by_itself_and_lists_its_models(
    desktop_factory: Any, isolated_env: Path, local_ollama: FakeOllama, run: Any
) -> None:
    desktop = desktop_factory(None)  # a fresh user: no settings file at all
    wizard = desktop.wizard
    view = wizard.open()
    assert view.currentId() == WELCOME_PAGE
    run(wait_for(lambda: wizard.model_page.probed))
    assert local_ollama.requests_to("/api/tags")
    assert "Ollama on this computer has 3 models" in view.server_status.text()
    assert [view.model.itemText(i) for i in range(view.model.count())] == local_ollama.models
    assert view.ollama_choice.isChecked()
    go_to(view, MODEL_PAGE)
    view.model.setCurrentIndex(1)
    go_to(view, FINISH_PAGE)
    assert "qwen3:8b on Ollama" in view.summary.text()
    view.accept()
    data = settings_file(isolated_env)
    assert data["llm"]["ollama"]["model"] == "qwen3:8b"


def test_the_wizard_walks_from_welcome_to_finish_and_opens_the_chat_with_a_suggestion(
    desktop_factory: Any, stack: Any, isolated_env: Path, tmp_path: Path, run: Any
) -> None:
    LocalSettingsService().apply({"llm.ollama.url": closed_address()})
    desktop = desktop_factory(stack.assistant)
    wizard = desktop.wizard
    view = wizard.open()
    run(wait_for(lambda: wizard.model_page.probed))
    go_to(view, MODEL_PAGE)
    # No Ollama: said quietly (no error words), and "skip for now" is chosen for the user.
    assert "no Ollama on this computer yet" in view.server_status.text()
    assert view.skip_choice.isChecked()
    assert not view.url.isEnabled()
    go_to(view, VOICE_PAGE)
    assert view.voice_enabled.isChecked()  # voice is on by default, and the page says so
    assert view.voice_status.text().startswith("Voice is on")
    assert "Hey Jarvis" in view.voice_status.text()
    assert "Ctrl+Alt+V" in view.voice_status.text()
    go_to(view, PRIVACY_PAGE)
    folder = tmp_path / "Projects"
    folder.mkdir()
    wizard.choose_folder()
    dialog = wizard.folder_dialog
    assert dialog is not None
    assert dialog.isVisible()
    dialog.selectFile(str(folder))
    dialog.accept()
    assert view.file_roots.text() == f"~, {home_relative(str(folder))}"
    go_to(view, FINISH_PAGE)
    assert "No model yet" in view.summary.text()
    assert FIRST_TRY in view.first_try.text()
    view.accept()
    data = settings_file(isolated_env)
    assert data["gui"]["first_run_done"] is True
    assert data["voice"]["enabled"] is True
    assert data["tools"]["files"]["roots"] == ["~", home_relative(str(folder))]
    assert "model" not in data["llm"].get("ollama", {})  # skipped: the model left alone
    chat = desktop.chat_view
    assert chat.isVisible()
    assert FIRST_TRY in chat.transcript.plain_text()
    assert chat.transcript.suggestion == FIRST_TRY
    done: list[str] = []
    desktop.chat.turn_finished.connect(lambda _run, status: done.append(status))
    desktop.chat.ask_open_link(QUrl(SUGGESTION_LINK))  # the suggestion clicked
    run(wait_for(lambda: bool(done)))
    assert chat.transcript.plain_text().strip().startswith(f"You\n{FIRST_TRY}")


def test_claude_without_a_key_is_refused_on_the_model_page(desktop_factory: Any, run: Any) -> None:
    LocalSettingsService().apply({"llm.ollama.url": closed_address()})
    desktop = desktop_factory(None)
    wizard = desktop.wizard
    view = wizard.open()
    run(wait_for(lambda: wizard.model_page.probed))
    go_to(view, MODEL_PAGE)
    view.cloud_choice.setChecked(True)
    assert view.cloud_key.isEnabled()
    assert not view.model.isEnabled()
    view.next()
    assert view.currentId() == MODEL_PAGE
    assert "API key" in view.cloud_error.text()


def test_turning_voice_off_says_so_and_is_saved(
    desktop_factory: Any, isolated_env: Path, run: Any
) -> None:
    LocalSettingsService().apply({"llm.ollama.url": closed_address()})
    desktop = desktop_factory(None)
    view = desktop.wizard.open()
    run(wait_for(lambda: desktop.wizard.model_page.probed))
    go_to(view, VOICE_PAGE)
    view.voice_enabled.setChecked(False)
    assert view.voice_status.text().startswith("Voice is off")
    go_to(view, FINISH_PAGE)
    assert "Voice: off." in view.summary.text()
    view.accept()
    assert settings_file(isolated_env)["voice"]["enabled"] is False
