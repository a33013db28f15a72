"""The owner in-process (what ``aria daemon`` and the tray app run): ``start_owner`` then one
``Owner.stop`` that ends the automations, voice, the API and the data, with voice switched off
answering in plain words. Real SQLite file, real API socket, the Ollama test server."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import httpx
import pytest

from aria_desktop import paths
from aria_desktop.adapters.storage.owner_lock import read_owner
from aria_desktop.api.token import TokenFile
from aria_desktop.compose.owner import VOICE_OFF, VOICE_OFF_HINT, VOICE_OFF_TIP, start_owner
from aria_desktop.domain.commands import Speak
from aria_desktop.domain.errors import VoiceUnavailableError
from aria_desktop.settings import (
    ApiSettings,
    AutomationRule,
    AutomationsSettings,
    LLMSettings,
    MemorySettings,
    OllamaSettings,
    Settings,
    StorageSettings,
    VoiceSettings,
)
from tests.fakes import FakeOllama


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
        voice=VoiceSettings(enabled=False),
        api=ApiSettings(port=0),
        automations=AutomationsSettings(
            enabled=True,
            rules={"morning": AutomationRule(prompt="Good morning", schedule="0 8 * * *")},
        ),
    )


def _aria_tasks() -> set[str]:
    return {
        task.get_name()
        for task in asyncio.all_tasks()
        if task.get_name().startswith("aria-") and not task.done()
    }


async def test_the_owner_loads_the_embedding_model_in_the_background(
    settings: Settings,
) -> None:
    from dataclasses import replace

    from aria_desktop.adapters.memory.embedding import LocalEmbedder

    owner = await start_owner(replace(settings, memory=MemorySettings(embedder="local")))
    try:
        embedder = owner.app.embedder
        assert isinstance(embedder, LocalEmbedder)
        async with asyncio.timeout(30):  # loaded without any memory being searched or added
            while not embedder.loaded:
                await asyncio.sleep(0.02)
    finally:
        await asyncio.wait_for(owner.stop(), timeout=30)


async def test_one_stop_ends_automations_voice_api_and_data(settings: Settings) -> None:
    owner = await start_owner(settings)
    db_path = Path(settings.storage.database)
    url = owner.server.url
    try:
        assert "aria-automation-scheduler" in _aria_tasks()
        assert "aria-api-server" in _aria_tasks()
        running = read_owner(db_path)
        assert running is not None
        assert running.port == owner.server.port != 8731  # any free port (api.port = 0)
        token = TokenFile(paths.api_token_path()).read()
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            health = await client.get("/api/v1/health")
            assert health.status_code == 200
            # Voice switched off: the API and the in-process Assistant say so, and how to fix it.
            spoken = await client.post(
                "/api/v1/speak",
                json={"text": "hello"},
                headers={"Authorization": f"Bearer {token}"},
            )
        assert spoken.status_code == 503
        error = spoken.json()["error"]
        assert (error["code"], error["message"], error["hint"]) == (
            "voice_unavailable",
            VOICE_OFF,
            VOICE_OFF_HINT,
        )
        with pytest.raises(VoiceUnavailableError, match="switched off"):
            await owner.assistant.execute(Speak(text="hello", play=False))
        voice = next(c for c in await owner.assistant.capabilities() if c.name == "voice")
        assert voice.reason == f"{VOICE_OFF} {VOICE_OFF_TIP}"  # a window's words: no command
    finally:
        await asyncio.wait_for(owner.stop(), timeout=30)
    assert _aria_tasks() == set()  # scheduler, API server, background work: all ended
    assert read_owner(db_path) is None  # the database is closed, the owner lock released
    async with httpx.AsyncClient(base_url=url, timeout=5) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get("/api/v1/health")
    await asyncio.wait_for(owner.stop(), timeout=5)  # a second stop does nothing
