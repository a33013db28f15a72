"""The first run offers the GPU machine's speech recognition when one answers (a real
wyoming-faster-whisper here), says where speech goes, and writes the choice; where none
answers it says what would help, and changes nothing."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.compose.desktop_services import LocalSettingsService
from aria_desktop.domain.config import ServerCheck
from aria_desktop.gui.views.wizard import FINISH_PAGE, PRIVACY_PAGE, PRIVACY_VOICE, VOICE_PAGE
from tests.gui.conftest import wait_for
from tests.gui.test_render import assert_fully_visible, screenshot, settle
from tests.gui.test_settings_and_hotkeys import settings_file
from tests.gui.test_wizard import closed_address
from tests.gui.wizard_steps import go_to
from tests.voice.wyoming_servers import whisper_server_process


@pytest.fixture(scope="module")
def whisper_uri(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from whisper_server_process(tmp_path_factory.mktemp("wyoming-whisper"))


@pytest.mark.slow
def test_a_speech_server_that_answers_is_offered_ticked_and_saved(
    desktop_factory: Any, isolated_env: Path, whisper_uri: str, run: Any
) -> None:
    LocalSettingsService().apply(
        {"llm.ollama.url": closed_address(), "voice.stt.wyoming_uri": whisper_uri}
    )
    desktop = desktop_factory(None)
    wizard = desktop.wizard
    view = wizard.open()
    run(wait_for(lambda: wizard.model_page.probed))
    go_to(view, VOICE_PAGE)
    run(wait_for(lambda: wizard.speech_page.probed))
    assert view.speech_server.isVisible()
    assert view.speech_server.isChecked()
    assert view.speech_server.text() == "Use the speech recognition server on this computer"
    status = view.speech_status.text()
    assert "server runs on this computer (model)" in status  # the packaged model's folder
    assert "its own model whenever that server stops" in status
    go_to(view, FINISH_PAGE)
    assert "Voice: on, speech recognised on this computer." in view.summary.text()
    view.accept()
    stt = settings_file(isolated_env)["voice"]["stt"]
    assert (stt["engine"], stt["wyoming_uri"]) == ("wyoming", whisper_uri)


@pytest.mark.slow
def test_unticking_the_offered_server_keeps_speech_on_this_computer(
    desktop_factory: Any, isolated_env: Path, whisper_uri: str, run: Any
) -> None:
    LocalSettingsService().apply(
        {
            "llm.ollama.url": closed_address(),
            "voice.stt.engine": "wyoming",
            "voice.stt.wyoming_uri": whisper_uri,
        }
    )
    desktop = desktop_factory(None)
    wizard = desktop.wizard
    view = wizard.open()
    run(wait_for(lambda: wizard.model_page.probed))
    go_to(view, VOICE_PAGE)
    run(wait_for(lambda: wizard.speech_page.probed))
    view.speech_server.setChecked(False)
    view.back()
    go_to(view, VOICE_PAGE)  # looked again: the person's untick stays
    run(wait_for(lambda: wizard.speech_page.probed))
    assert not view.speech_server.isChecked()
    go_to(view, FINISH_PAGE)
    view.accept()
    assert settings_file(isolated_env)["voice"]["stt"]["engine"] == "local"


def test_with_no_speech_server_the_page_says_what_would_help_and_nothing_changes(
    desktop_factory: Any, isolated_env: Path, run: Any
) -> None:
    LocalSettingsService().apply({"llm.ollama.url": closed_address()})
    desktop = desktop_factory(None)
    wizard = desktop.wizard
    view = wizard.open()
    run(wait_for(lambda: wizard.model_page.probed))
    view.url.setText("http://198.51.100.7:11434")  # a model machine on the network, switched off
    view.ollama_choice.setChecked(True)
    go_to(view, VOICE_PAGE)
    run(wait_for(lambda: wizard.speech_page.probed, timeout_s=10))
    assert view.speech_server.isHidden()
    tip = view.speech_status.text()
    assert "if the computer at 198.51.100.7 ran a speech recognition server" in tip
    view.ollama_choice.setChecked(False)
    view.skip_choice.setChecked(True)
    go_to(view, PRIVACY_PAGE)
    assert view.privacy_voice.text() == PRIVACY_VOICE
    go_to(view, FINISH_PAGE)
    assert "Voice: on." in view.summary.text()
    view.accept()
    assert "stt" not in settings_file(isolated_env).get("voice", {})


def test_the_privacy_page_says_speech_goes_to_the_chosen_machine(
    desktop_factory: Any, run: Any
) -> None:
    LocalSettingsService().apply({"llm.ollama.url": closed_address()})
    desktop = desktop_factory(None)
    wizard = desktop.wizard
    view = wizard.open()
    run(wait_for(lambda: wizard.model_page.probed))
    go_to(view, VOICE_PAGE)
    run(wait_for(lambda: wizard.speech_page.probed))
    # as if the GPU machine had answered
    wizard.speech_page.found = ServerCheck(url="tcp://gpu.lan:10300", ok=True)
    view.speech_server.show()
    view.speech_server.setChecked(True)
    go_to(view, PRIVACY_PAGE)
    text = view.privacy_voice.text()
    assert "goes to the computer at gpu.lan to be recognised" in text
    assert "on this computer while that one is off" in text


def _network_address() -> str:
    """This machine's address on its network ("" when it has none): the source address a
    datagram to a documentation address would leave from (nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("198.51.100.1", 9))
        except OSError:
            return ""
        address = str(probe.getsockname()[0])
    return "" if address.startswith("127.") or address == "0.0.0.0" else address


@pytest.mark.slow
def test_voice_page_offering_a_speech_server_renders(
    desktop_factory: Any, tmp_path: Path, run: Any, theme: str
) -> None:
    """The offer as a person sees it: from another machine when this one has a network
    address (the way a GPU machine answers), else from this computer."""
    host = _network_address() or "127.0.0.1"
    server = whisper_server_process(tmp_path, host=host)
    uri = next(server)
    try:
        LocalSettingsService().apply(
            {"llm.ollama.url": closed_address(), "voice.stt.wyoming_uri": uri}
        )
        desktop = desktop_factory(None)
        wizard = desktop.wizard
        view = wizard.open()
        view.move(300, 60)
        run(wait_for(lambda: wizard.model_page.probed))
        go_to(view, VOICE_PAGE)
        run(wait_for(lambda: wizard.speech_page.probed))
        settle(run, view)
        screenshot("wizard-voice-speech-server", theme)
        assert_fully_visible(view, [view.devices, view.speech_server, view.speech_status])
        go_to(view, PRIVACY_PAGE)
        settle(run, view)
        screenshot("wizard-privacy-speech-server", theme)
        assert_fully_visible(view, [view.privacy_voice, view.file_roots])
    finally:
        server.close()
