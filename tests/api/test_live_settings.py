"""Settings applied live on a running owner (``start_owner``: real API socket, real SQLite, the
settings file on disk, two Ollama test servers with different models): ``PATCH /settings``
and ``aria config set`` reach the next turn without a restart, a turn in flight finishes on the
old model, the "model" status follows, and the warm-up loads the model at start, after a
model change and after a wake from sleep."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from aria_desktop import paths
from aria_desktop.adapters.voice.audio import WavSink
from aria_desktop.api.token import TokenFile
from aria_desktop.compose.owner import Owner, start_owner
from aria_desktop.core.bus import Subscription
from aria_desktop.domain.commands import PushToTalk
from aria_desktop.domain.events import Event, LlmDelta
from aria_desktop.domain.settings_events import ModelStatus, SettingsApplied
from aria_desktop.domain.voice_events import SttEnd, VoiceLoadEnd
from aria_desktop.settings import load_settings, set_values
from tests.fakes import FakeOllama
from tests.fakes.http_server import Await, Send
from tests.fakes.ollama_server import chat_line, done_line, ollama_stream, ollama_text
from tests.voice.conftest import SpeechMaker, piper, say_piper, speech_dir, steady_piper
from tests.voice.test_pipeline import LiveSource

__all__ = ["piper", "say_piper", "speech_dir", "steady_piper"]  # fixtures shared with tests/voice

OLD, NEW = "llama3.2:latest", "qwen3:8b"


@pytest.fixture
def servers() -> Iterator[tuple[FakeOllama, FakeOllama]]:
    with FakeOllama(models=[OLD]) as old, FakeOllama(models=[NEW]) as new:
        yield old, new


@pytest.fixture
async def owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, servers: tuple[FakeOllama, FakeOllama]
) -> AsyncIterator[Owner]:
    for name in ("CONFIG", "DATA", "STATE", "RUNTIME"):
        monkeypatch.setenv(f"ARIA_{name}_DIR", str(tmp_path / name.lower()))
    for key in list(os.environ):
        if key.startswith("ARIA_LLM") or key.startswith("ARIA_VOICE"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    set_values(
        [
            ("llm.ollama.url", servers[0].url),
            ("llm.ollama.model", OLD),
            ("llm.chains.chat", "ollama"),
            ("storage.database", str(tmp_path / "aria.db")),
            ("memory.embedder", "none"),
            ("memory.auto_extract", "false"),
            ("knowledge.enabled", "false"),
            ("voice.enabled", "false"),
            ("api.port", "0"),
        ]
    )
    running = await start_owner(load_settings())
    try:
        yield running
    finally:
        await asyncio.wait_for(running.stop(), timeout=30)


def _client(owner: Owner) -> httpx.AsyncClient:
    token = TokenFile(paths.api_token_path()).read()
    return httpx.AsyncClient(
        base_url=owner.server.url, timeout=30, headers={"Authorization": f"Bearer {token}"}
    )


async def _next(sub: Subscription, kind: type[Event]) -> Event:
    async with asyncio.timeout(20):
        async for event in sub:
            if isinstance(event, kind):
                return event
    raise AssertionError(f"no {kind.__name__}")


async def _warmed(owner: Owner) -> None:
    assert owner.live is not None
    await asyncio.wait_for(owner.live.warm_up.settled(), timeout=20)


async def _model_capability(client: httpx.AsyncClient) -> dict[str, object]:
    listed = (await client.get("/api/v1/capabilities")).json()
    return next(c for c in listed if c["name"] == "model")


async def test_the_model_loads_at_start_with_keep_alive(
    owner: Owner, servers: tuple[FakeOllama, FakeOllama]
) -> None:
    await _warmed(owner)
    loads = servers[0].requests_to("/api/generate")
    assert loads[0].json() == {"model": OLD, "stream": False, "keep_alive": "10m"}
    assert servers[0].requests_to("/api/chat") == []  # a load, not a chat turn
    async with _client(owner) as client:
        model = await _model_capability(client)
    assert model["available"] is True
    assert f"model {OLD} (ollama) loaded in" in str(model["reason"])


async def test_patch_applies_to_the_next_turn_while_the_turn_in_flight_ends_on_the_old(
    owner: Owner, servers: tuple[FakeOllama, FakeOllama]
) -> None:
    old_server, new_server = servers
    release = threading.Event()
    old_server.script(
        "/api/chat",
        ollama_stream(
            [
                Send(chat_line(OLD, "Old model ")),
                Await(release),
                Send(chat_line(OLD, "answering.")),
                Send(done_line(OLD)),
            ]
        ),
    )
    new_server.script("/api/chat", ollama_text("New model answering.", model=NEW))
    old_router = owner.app.router.current
    old_backend = old_router.backend("ollama")
    sub = owner.assistant.subscribe()
    async with _client(owner) as client:
        first = asyncio.create_task(
            client.post("/api/v1/chat", json={"message": "Who are you?", "stream": False})
        )
        await _next(sub, LlmDelta)  # the old model is mid-reply, held by the test server
        patched = await client.patch(
            "/api/v1/settings",
            json={"changes": {"llm.ollama.url": new_server.url, "llm.ollama.model": NEW}},
        )
        assert patched.status_code == 200
        assert patched.json()["restart_required"] is False
        applied = await _next(sub, SettingsApplied)
        assert isinstance(applied, SettingsApplied)
        assert (applied.sections, applied.backend, applied.model) == (("llm",), "ollama", NEW)
        assert applied.locality == "local"
        release.set()  # acknowledged: the reply in flight may go on
        reply = (await first).json()
        assert (reply["status"], reply["model"]) == ("complete", OLD)
        assert reply["text"] == "Old model answering."
        second = await client.post("/api/v1/chat", json={"message": "And now?", "stream": False})
        assert (second.json()["model"], second.json()["text"]) == (NEW, "New model answering.")
        await _warmed(owner)
        model = await _model_capability(client)
    sub.close()
    assert f"model {NEW} (ollama) loaded in" in str(model["reason"])
    assert [r.json()["model"] for r in new_server.requests_to("/api/generate")] == [NEW]
    assert len(old_server.requests_to("/api/chat")) == 1
    # The replaced router is closed once the turns that used it ended: no HTTP client left.
    turns = [t for t in asyncio.all_tasks() if t.get_name().startswith("aria-turn-")]
    if turns:
        await asyncio.wait(turns, timeout=10)
    await owner.app.router.closed()
    assert owner.app.router.in_use() == 0
    assert old_backend is not None
    assert old_backend._client.is_closed  # type: ignore[attr-defined]


async def test_aria_config_set_on_a_running_owner_applies(
    owner: Owner, servers: tuple[FakeOllama, FakeOllama]
) -> None:
    from aria_desktop.cli import main

    _old_server, new_server = servers
    sub = owner.assistant.subscribe()
    code = await asyncio.to_thread(main, ["config", "set", "llm.ollama.url", new_server.url])
    assert code == 0
    applied = await _next(sub, SettingsApplied)
    assert isinstance(applied, SettingsApplied)
    assert applied.sections == ("llm",)
    code = await asyncio.to_thread(main, ["config", "set", "llm.ollama.model", NEW])
    assert code == 0
    applied = await _next(sub, SettingsApplied)
    sub.close()
    assert isinstance(applied, SettingsApplied)
    assert applied.model == NEW
    new_server.script("/api/chat", ollama_text("Hi from qwen.", model=NEW))
    async with _client(owner) as client:
        reply = await client.post("/api/v1/chat", json={"message": "Hi", "stream": False})
    assert (reply.json()["model"], reply.json()["text"]) == (NEW, "Hi from qwen.")


async def test_a_change_that_needs_a_restart_says_so(owner: Owner) -> None:
    async with _client(owner) as client:
        patched = await client.patch("/api/v1/settings", json={"changes": {"agent.max_steps": 3}})
    assert patched.json()["restart_required"] is True


async def test_a_missing_model_is_a_clear_status_not_a_crash(
    owner: Owner, servers: tuple[FakeOllama, FakeOllama]
) -> None:
    await _warmed(owner)
    sub = owner.assistant.subscribe()
    async with _client(owner) as client:
        patched = await client.patch(
            "/api/v1/settings", json={"changes": {"llm.ollama.model": "mistral:7b"}}
        )
        assert patched.status_code == 200
        failed = await _next(sub, ModelStatus)
        while isinstance(failed, ModelStatus) and failed.status == "loading":
            failed = await _next(sub, ModelStatus)
        model = await _model_capability(client)
    sub.close()
    assert isinstance(failed, ModelStatus)
    assert (failed.status, failed.model, failed.trigger) == ("failed", "mistral:7b", "settings")
    assert "ollama pull mistral:7b" in failed.hint
    assert model["available"] is False
    assert "ollama pull mistral:7b" in str(model["reason"])


@pytest.mark.slow
async def test_a_voice_setting_reaches_the_next_utterance_without_a_restart(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    servers: tuple[FakeOllama, FakeOllama],
    say_piper: SpeechMaker,
) -> None:
    for name in ("CONFIG", "DATA", "STATE", "RUNTIME"):
        monkeypatch.setenv(f"ARIA_{name}_DIR", str(tmp_path / name.lower()))
    for key in list(os.environ):
        if key.startswith("ARIA_LLM") or key.startswith("ARIA_VOICE"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    set_values(
        [
            ("llm.ollama.url", servers[0].url),
            ("llm.ollama.model", OLD),
            ("llm.chains.chat", "ollama"),
            ("storage.database", str(tmp_path / "aria.db")),
            ("memory.embedder", "none"),
            ("memory.auto_extract", "false"),
            ("knowledge.enabled", "false"),
            ("voice.enabled", "true"),
            ("voice.wake.enabled", "false"),
            ("voice.follow_up_s", "0"),
            ("api.port", "0"),
        ]
    )
    source, sink = LiveSource(), WavSink(tmp_path / "reply.wav")
    owner = await start_owner(load_settings(), voice_source_factory=lambda: source, voice_sink=sink)
    sub = owner.assistant.subscribe()
    try:
        pipeline = owner.app.voice
        assert pipeline is not None
        await pipeline.wait_ready(timeout_s=90)
        old_stt = pipeline.speech.stt
        async with _client(owner) as client:
            patched = await client.patch(
                "/api/v1/settings", json={"changes": {"voice.stt.beam_size": 1}}
            )
        assert patched.json()["restart_required"] is False
        applied = await _next(sub, SettingsApplied)
        assert isinstance(applied, SettingsApplied)
        assert applied.sections == ("voice",)
        loaded = await _next(sub, VoiceLoadEnd)  # the new engine loads beside the old one
        assert isinstance(loaded, VoiceLoadEnd)
        assert (loaded.component, loaded.ok) == ("stt", True)
        await source.frames_later(2)  # the next frame takes the new parts over
        new_stt = pipeline.speech.stt
        assert new_stt is not old_stt
        assert new_stt._beam_size == 1  # type: ignore[union-attr]
        servers[0].script("/api/chat", ollama_text("Ten minutes, starting now.", model=OLD))
        await owner.assistant.execute(PushToTalk(action="listen"))
        source.inject(say_piper("Set a timer for ten minutes.", lead_s=0.1))
        heard = await _next(sub, SttEnd)
        assert isinstance(heard, SttEnd)
        assert "timer" in heard.text.lower()
        assert pipeline.speech.stt is new_stt
        assert source.opened == 1  # the pipeline was never restarted
    finally:
        sub.close()
        await asyncio.wait_for(owner.stop(), timeout=30)
        await sink.aclose()
