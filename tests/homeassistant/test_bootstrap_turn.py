"""The whole path as ``aria daemon`` builds it: ``compose.app.build_app`` with Home Assistant
configured, a model (Ollama test server) asking to unlock the front door, and the Home
Assistant test server behind the real adapter. The turn waits for the out-of-band answer; when
it is declined, Home Assistant receives nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backends.fail
import pytest

from aria_desktop import keystore, log
from aria_desktop.compose.app import build_app
from aria_desktop.domain.commands import ConfirmAction, StartTurn
from aria_desktop.domain.events import ActionConfirmRequest, ToolResultEvent
from aria_desktop.settings.loading import load_settings
from tests.fakes import FakeOllama
from tests.fakes.homeassistant_server import TOKEN, FakeHomeAssistant
from tests.fakes.ollama_server import ollama_text, ollama_tool_calls


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("CONFIG", "DATA", "STATE", "RUNTIME"):
        monkeypatch.setenv(f"ARIA_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.setattr(keystore, "_env_values", {})
    monkeypatch.setenv("ARIA_HOMEASSISTANT_TOKEN", TOKEN)
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())  # type: ignore[no-untyped-call]
    yield
    keyring.set_keyring(previous)
    log.clear_registered_secrets()


async def test_declined_unlock_through_the_composed_app_reaches_nothing(
    tmp_path: Path,
) -> None:
    with FakeOllama() as ollama, FakeHomeAssistant() as hass:
        settings_file = tmp_path / "settings.toml"
        settings_file.write_text("", encoding="utf-8")
        settings = load_settings(
            settings_file,
            {
                "ARIA_LLM__OLLAMA__URL": ollama.url,
                "ARIA_MEMORY__EMBEDDER": "none",
                "ARIA_MEMORY__AUTO_EXTRACT": "false",
                "ARIA_HOMEASSISTANT__URL": hass.url,
            },
        )
        call = {"domain": "lock", "service": "unlock", "entity_ids": ["lock.front_door"]}
        ollama.script(
            "/api/chat",
            ollama_tool_calls([("ha_call_service", call)]),
            ollama_text("I left the door locked."),
        )
        app = await build_app(settings)
        try:
            assert {"ha_states", "ha_call_service"} <= set(app.orchestrator.tools.names())
            hass.reset()
            async with app.orchestrator.bus.subscribe() as sub:
                handle = await app.orchestrator.handle(StartTurn(text="unlock the front door"))
                results = []
                async with asyncio.timeout(15):
                    async for event in sub:
                        if isinstance(event, ActionConfirmRequest):
                            assert hass.requests == []
                            await app.orchestrator.handle(
                                ConfirmAction(
                                    request_id=event.request_id, nonce=event.nonce, approved=False
                                )
                            )
                        elif isinstance(event, ToolResultEvent):
                            results.append(event)
                            break
            assert await handle.wait(timeout_s=15) == "complete"
        finally:
            await app.aclose()
    assert [r.status for r in results] == ["denied"]
    assert hass.requests == []
    assert hass.states["lock.front_door"]["state"] == "locked"


async def test_a_light_through_the_composed_app_runs_at_once(tmp_path: Path) -> None:
    """Discriminates the wiring: without the Home Assistant policy in ``build_app`` the
    (consequential) service tool would wait for a confirmation that never comes."""
    with FakeOllama() as ollama, FakeHomeAssistant() as hass:
        settings_file = tmp_path / "settings.toml"
        settings_file.write_text("", encoding="utf-8")
        settings = load_settings(
            settings_file,
            {
                "ARIA_LLM__OLLAMA__URL": ollama.url,
                "ARIA_MEMORY__EMBEDDER": "none",
                "ARIA_MEMORY__AUTO_EXTRACT": "false",
                "ARIA_HOMEASSISTANT__URL": hass.url,
                "ARIA_AGENT__CONFIRM_TIMEOUT_S": "2",
            },
        )
        call = {"domain": "light", "service": "turn_on", "entity_ids": ["light.kitchen_ceiling"]}
        ollama.script(
            "/api/chat", ollama_tool_calls([("ha_call_service", call)]), ollama_text("It is on.")
        )
        app = await build_app(settings)
        try:
            handle = await app.orchestrator.handle(StartTurn(text="kitchen light on"))
            assert await handle.wait(timeout_s=15) == "complete"
        finally:
            await app.aclose()
    assert hass.service_calls == [("light", "turn_on", {"entity_id": ["light.kitchen_ceiling"]})]
