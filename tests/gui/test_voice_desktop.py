"""Voice in the running desktop app: ``aria desktop``'s own connector (the owner path,
``owner.start_owner``: core, local API, automations, voice) with the Ollama test server, a real
SQLite file and the real voice models.

This machine has no sound card: without a microphone voice must be a clear "unavailable"
capability; with a WAV-file source injected, the tray's Push to talk runs a real voice turn.
"""

from __future__ import annotations

import asyncio
import dataclasses
import wave
from pathlib import Path
from typing import Any

import httpx
import pytest

from aria_desktop import paths
from aria_desktop.adapters.storage.owner_lock import read_owner
from aria_desktop.adapters.voice.audio import WavSink, WavSource
from aria_desktop.api.token import TokenFile
from aria_desktop.cli.desktop import local_connector
from aria_desktop.domain.commands import PushToTalk
from aria_desktop.domain.errors import VoiceUnavailableError
from aria_desktop.domain.events import Event
from aria_desktop.settings import (
    ApiSettings,
    LLMSettings,
    MemorySettings,
    OllamaSettings,
    Settings,
    StorageSettings,
    VoiceSettings,
    WakeSettings,
)
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text
from tests.gui.conftest import wait_for
from tests.voice.conftest import (  # noqa: F401  (session fixtures: Piper, test speech)
    piper,
    say_piper,
    speech_dir,
    steady_piper,
)

REPLY = "It is sunny and warm today. Enjoy the nice weather!"


@pytest.fixture
def settings_for(isolated_env: Path, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")

    def make(**voice: Any) -> Settings:
        return Settings(
            llm=LLMSettings(ollama=OllamaSettings(url=ollama.url), chains={"chat": ("ollama",)}),
            storage=StorageSettings(database=str(isolated_env / "aria.db")),
            memory=MemorySettings(embedder="none", auto_extract=False),
            voice=dataclasses.replace(VoiceSettings(), **voice),
            api=ApiSettings(port=0),  # the owner serves the API: any free port, never a clash
        )

    return make


def connect(desktop: Any, run: Any, connector: Any) -> None:
    run(desktop._connect(connector), timeout_s=30)
    assert desktop.context.connected, desktop.chat_view.status.text()


def voice_item_state(desktop: Any, run: Any, available: bool) -> None:
    async def refreshed() -> None:
        while desktop.actions.push_to_talk.isEnabled() != available:
            desktop.tray.refresh_capabilities()
            await asyncio.sleep(0.1)

    run(refreshed(), timeout_s=60)


def test_without_a_microphone_voice_is_an_unavailable_capability(
    desktop_factory: Any, settings_for: Any, run: Any
) -> None:
    settings = settings_for(input_device="no-such-microphone-on-this-machine")
    desktop = desktop_factory(None, use_tray=True)
    connect(desktop, run, local_connector(settings))
    voice = next(c for c in run(desktop.context.assistant.capabilities()) if c.name == "voice")
    assert not voice.available
    assert voice.reason.startswith("Unavailable: no microphone.")
    assert "microphone" in voice.reason[len("Unavailable: no microphone.") :]
    desktop.tray.refresh_capabilities()
    run(wait_for(lambda: "voice" in desktop.tray.capabilities))
    actions = desktop.actions
    for item in (actions.push_to_talk, actions.dictate, actions.mute):
        assert not item.isEnabled()
        assert item.toolTip() == voice.reason
        assert item.text().endswith("— Unavailable: no microphone")
    # The hotkey / tray path refuses with the reason instead of failing.
    notices: list[tuple[str, str]] = []
    desktop.tray.notify = lambda title, text, warning=False: notices.append((title, text))
    desktop.on_hotkey("push_to_talk", "press")
    desktop.on_hotkey("push_to_talk", "release")
    desktop.on_hotkey("dictate", "press")
    desktop.on_hotkey("dictate", "release")
    assert notices == [
        ("Push to talk is unavailable", voice.reason),
        ("Dictation is unavailable", voice.reason),
    ]
    assert desktop.connection is not None
    assert desktop.connection.assistant.orchestrator.state == "idle"


def test_voice_switched_off_says_so_and_how_to_turn_it_on(
    desktop_factory: Any, settings_for: Any, run: Any, isolated_env: Path
) -> None:
    desktop = desktop_factory(None, use_tray=True)
    connect(desktop, run, local_connector(settings_for(enabled=False)))
    desktop.tray.refresh_capabilities()
    run(wait_for(lambda: "voice" in desktop.tray.capabilities))
    voice = desktop.tray.capabilities["voice"]
    assert not voice.available
    push_to_talk = desktop.actions.push_to_talk
    assert not push_to_talk.isEnabled()
    assert push_to_talk.text().endswith("— Voice is switched off")
    tip = push_to_talk.toolTip()
    assert tip == voice.reason
    assert tip.startswith("Voice is switched off. ")
    assert "Settings → Voice" in tip
    assert "restart ARIA" in tip
    assert "`" not in tip
    assert "voice.enabled" not in tip
    # The hotkey explains instead of failing; the voice commands answer with the same words.
    notices: list[tuple[str, str]] = []
    desktop.tray.notify = lambda title, text, warning=False: notices.append((title, text))
    desktop.on_hotkey("push_to_talk", "press")
    desktop.on_hotkey("push_to_talk", "release")
    assert notices == [("Push to talk is unavailable", tip)]
    with pytest.raises(VoiceUnavailableError) as refused:
        run(desktop.context.assistant.execute(PushToTalk(action="toggle")))
    assert refused.value.message == "Voice is switched off."
    assert "aria config set voice.enabled true" in refused.value.hint  # the CLI's words
    # So does the local API the app serves (on a port of its own choosing).
    db_path = isolated_env / "aria.db"
    owner = read_owner(db_path)
    assert owner is not None
    assert owner.port
    url = f"http://127.0.0.1:{owner.port}"
    assert url in desktop.connection.label
    token = TokenFile(paths.api_token_path()).read()

    async def listen() -> httpx.Response:
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            return await client.post("/api/v1/listen", headers={"Authorization": f"Bearer {token}"})

    answer = run(listen())
    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "voice_unavailable"
    assert answer.json()["error"]["message"] == "Voice is switched off."
    # The app's quit path stops the owner: the API no longer listens, the data is released.
    run(desktop.shutdown(), timeout_s=30)
    assert read_owner(db_path) is None

    async def refused_connection() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=5) as client:
            with pytest.raises(httpx.ConnectError):
                await client.get("/api/v1/health")

    run(refused_connection())


@pytest.mark.slow
def test_push_to_talk_from_the_tray_runs_a_voice_turn(
    desktop_factory: Any,
    settings_for: Any,
    ollama: FakeOllama,
    say_piper: Any,  # noqa: F811
    run: Any,
    tmp_path: Path,
) -> None:
    # Push-to-talk only (no wake word), the configured local Whisper and Piper, loaded by the
    # pipeline itself in the background; a WAV file stands in for the microphone.
    settings = settings_for(wake=WakeSettings(enabled=False), follow_up_s=0.0)
    command = say_piper("What is the weather like today?", lead_s=2.5)
    reply_wav = tmp_path / "reply.wav"
    connector = local_connector(
        settings,
        voice_source_factory=lambda: WavSource(command, realtime=True, trailing_silence_s=4.0),
        voice_sink=WavSink(reply_wav),
    )
    ollama.script("/api/chat", ollama_text(REPLY, chunks=6))
    desktop = desktop_factory(None, use_tray=True)
    connect(desktop, run, connector)
    assistant = desktop.context.assistant
    # Connected without waiting for the models: loading never delays the app (with the model
    # files in the page cache, loading may already be done by now).
    voice = next(c for c in run(assistant.capabilities()) if c.name == "voice")
    assert voice.available or voice.reason == "voice models are still loading", voice
    events: list[Event] = []
    desktop.bridge.event_received.connect(events.append)
    shown: list[str] = []
    desktop.tray.state_shown.connect(shown.append)
    voice_item_state(desktop, run, available=True)  # VAD loaded, the "microphone" is open
    assert desktop.actions.mute.isEnabled()
    desktop.actions.push_to_talk.trigger()  # toggle: listen now, silence ends the command
    run(wait_for(lambda: any(e.type == "tts-end" for e in events), timeout_s=60), timeout_s=70)
    run(wait_for(lambda: desktop.tray.state == "idle", timeout_s=10))
    types = [e.type for e in events if e.type != "audio-level"]
    stt_start = next(e for e in events if e.type == "stt-start")
    assert stt_start.trigger == "push-to-talk"  # type: ignore[attr-defined]
    stt_end = next(e for e in events if e.type == "stt-end")
    assert "weather" in stt_end.text.lower()  # type: ignore[attr-defined]
    run_start = next(e for e in events if e.type == "run-start")
    assert run_start.source == "voice"  # type: ignore[attr-defined]
    tts_end = next(e for e in events if e.type == "tts-end")
    assert tts_end.status == "complete"  # type: ignore[attr-defined]
    assert types.index("stt-start") < types.index("run-start") < types.index("tts-start")
    after = shown[shown.index("listening") :]
    assert after == ["listening", "thinking", "speaking", "idle"], shown
    sent = ollama.requests_to("/api/chat")[0].json()["messages"][-1]["content"]
    assert "weather" in sent.lower()
    # The app's quit path stops voice and closes the reply (the sink's WAV is complete).
    run(desktop.shutdown(), timeout_s=30)
    with wave.open(str(reply_wav), "rb") as reader:
        assert reader.getnframes() / reader.getframerate() > 1.5


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("hold", ["press", "release"]), ("toggle", ["toggle"])],
)
def test_push_to_talk_hotkey_follows_the_hold_or_toggle_setting(
    desktop_factory: Any, stack: Any, run: Any, mode: str, expected: list[str]
) -> None:
    from aria_desktop.compose.desktop_services import LocalSettingsService
    from aria_desktop.domain.chat import CapabilityStatus
    from aria_desktop.domain.commands import PushToTalk

    received: list[str] = []

    async def handle(command: PushToTalk) -> None:
        received.append(command.action)

    stack.orchestrator.register_command(PushToTalk, handle)
    stack.orchestrator.register_capability(
        "voice", lambda: CapabilityStatus(name="voice", available=True)
    )
    LocalSettingsService().apply(
        {"voice.push_to_talk": mode, "gui.hotkey_push_to_talk": "Ctrl+Alt+T"}
    )
    desktop = desktop_factory(stack.assistant, use_tray=True)
    run(wait_for(lambda: desktop.actions.push_to_talk.isEnabled()))
    assert desktop.hotkey_bindings()["push_to_talk"] == "Ctrl+Alt+T"
    desktop.on_hotkey("push_to_talk", "press")
    desktop.on_hotkey("push_to_talk", "release")
    # Every command the two key edges sent, handled: nothing more can arrive after these.
    sent = {t for t in desktop.tasks._tasks if t.get_name() == "aria-gui-ptt"}
    assert len(sent) == len(expected)
    run(asyncio.wait(sent))
    assert received == expected
