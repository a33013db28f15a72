"""Hold-to-talk over the local HTTP API: a remote button (or ``aria desktop --attach``) presses
and releases push-to-talk on a running owner with real voice models; the command spoken
between press and release is transcribed and answered."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from aria_desktop import paths
from aria_desktop.adapters.voice.audio import WavSink
from aria_desktop.api.client.api_client import ApiClient
from aria_desktop.api.token import TokenFile
from aria_desktop.compose.owner import start_owner
from aria_desktop.domain.commands import PushToTalk
from aria_desktop.domain.events import RunEnd
from aria_desktop.domain.voice_events import SttEnd, SttStart, TtsEnd
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
from tests.voice.conftest import SpeechMaker, piper, say_piper, speech_dir, steady_piper
from tests.voice.test_pipeline import LiveSource

__all__ = ["piper", "say_piper", "speech_dir", "steady_piper"]  # fixtures shared with tests/voice


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def settings(tmp_path: Path, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch) -> Settings:
    for name in ("CONFIG", "DATA", "STATE", "RUNTIME"):
        monkeypatch.setenv(f"ARIA_{name}_DIR", str(tmp_path / name.lower()))
    for key in list(os.environ):
        if key.startswith("ARIA_LLM"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    return Settings(
        llm=LLMSettings(ollama=OllamaSettings(url=ollama.url), chains={"chat": ("ollama",)}),
        storage=StorageSettings(database=str(tmp_path / "aria.db")),
        memory=MemorySettings(embedder="none", auto_extract=False),
        voice=VoiceSettings(enabled=True, follow_up_s=0.0, wake=WakeSettings(enabled=False)),
        api=ApiSettings(port=0),
    )


async def voice_ready(client: ApiClient) -> None:
    """Return once the owner's voice capability is available (its models load meanwhile)."""
    async with asyncio.timeout(90):
        while True:
            voice = next(c for c in await client.capabilities() if c.name == "voice")
            if voice.available and voice.enabled:
                return
            await asyncio.sleep(0.1)


@pytest.mark.slow
async def test_hold_to_talk_through_the_api(
    settings: Settings, ollama: FakeOllama, say_piper: SpeechMaker, tmp_path: Path
) -> None:
    ollama.script("/api/chat", ollama_text("Paris is the capital of France.", chunks=3))
    source = LiveSource()
    sink = WavSink(tmp_path / "reply.wav")
    owner = await start_owner(settings, voice_source_factory=lambda: source, voice_sink=sink)
    sub = owner.app.orchestrator.bus.subscribe()
    try:
        assert owner.server is not None
        token = TokenFile(paths.api_token_path()).read()
        async with ApiClient(owner.server.url, token) as client:
            await voice_ready(client)
            await client.execute(PushToTalk(action="press"))
            source.inject(say_piper("What is the capital of France?", lead_s=0.1))
            await asyncio.sleep(3.0)  # the button is held through the command and a pause
            await client.execute(PushToTalk(action="release"))
        seen = []
        async with asyncio.timeout(60):
            async for event in sub:
                seen.append(event)
                if isinstance(event, TtsEnd):
                    break
        start = next(e for e in seen if isinstance(e, SttStart))
        assert start.trigger == "push-to-talk"
        heard = next(e for e in seen if isinstance(e, SttEnd))
        assert "capital" in heard.text.lower()  # a question for the model, not a local command
        end = next(e for e in seen if isinstance(e, RunEnd))
        assert end.status == "complete"
        assert ollama.requests_to("/api/chat")[0].json()["messages"][-1]["content"] == heard.text
    finally:
        sub.close()
        await asyncio.wait_for(owner.stop(), timeout=30)
        await sink.aclose()


@pytest.mark.slow
async def test_dictation_through_the_api_types_what_was_said(
    settings: Settings, say_piper: SpeechMaker, tmp_path: Path, display: str
) -> None:
    """``purpose: dictate`` crosses the wire: the words are typed (on the display), not asked."""
    from aria_desktop.domain.voice_events import DictationEnd

    source = LiveSource()
    sink = WavSink(tmp_path / "reply.wav")
    owner = await start_owner(settings, voice_source_factory=lambda: source, voice_sink=sink)
    sub = owner.app.orchestrator.bus.subscribe()
    try:
        assert owner.server is not None
        token = TokenFile(paths.api_token_path()).read()
        async with ApiClient(owner.server.url, token) as client:
            await voice_ready(client)
            await client.execute(PushToTalk(action="press", purpose="dictate"))
            source.inject(say_piper("Thanks for the tea, see you on Sunday.", lead_s=0.1))
            await source.consumed()
            await client.execute(PushToTalk(action="release", purpose="dictate"))
        seen = []
        async with asyncio.timeout(60):
            async for event in sub:
                seen.append(event)
                if isinstance(event, DictationEnd):
                    break
        assert next(e for e in seen if isinstance(e, SttStart)).trigger == "dictation"
        ended = seen[-1]
        assert isinstance(ended, DictationEnd)
        assert ended.status == "typed", ended
        assert "sunday" in ended.text.lower()
        assert not any(e.type == "run-start" for e in seen), "typed, not asked"
    finally:
        sub.close()
        await asyncio.wait_for(owner.stop(), timeout=30)
        await sink.aclose()
