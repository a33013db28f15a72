"""The everyday skills' fixtures: a whole ARIA built as ``aria daemon`` builds it, no model."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import keyring
import keyring.backends.fail
import pytest

from aria_desktop import __version__, keystore, log
from aria_desktop.adapters.skills.hassil_recognizer import HassilRecognizer
from aria_desktop.api.config import ApiConfig
from aria_desktop.api.runner import ApiServer
from aria_desktop.api.token import TokenFile
from aria_desktop.compose.app import App, build_app
from aria_desktop.domain.commands import StartTurn
from aria_desktop.domain.events import ErrorEvent, Event, LlmDelta, RunEnd, ThinkEnd
from aria_desktop.domain.lists import LIST_ALIASES
from aria_desktop.settings.loading import load_settings


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("CONFIG", "DATA", "STATE", "RUNTIME"):
        monkeypatch.setenv(f"ARIA_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.setattr(keystore, "_env_values", {})
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())  # type: ignore[no-untyped-call]
    yield
    keyring.set_keyring(previous)
    log.clear_registered_secrets()


@pytest.fixture(scope="session")
def recognizer() -> HassilRecognizer:
    """The real recogniser over HA's and ARIA's templates (compiled once per session)."""
    found = HassilRecognizer(list_names=lambda: [*LIST_ALIASES, "hardware"])
    found.warm(["en", "de"])
    return found


def no_model_settings(tmp_path: Path, **extra: str) -> object:
    """Settings with no model reachable at all (Ollama's URL points at a closed port)."""
    settings_file = tmp_path / "settings.toml"
    settings_file.write_text("", encoding="utf-8")
    return load_settings(
        settings_file,
        {
            "ARIA_LLM__OLLAMA__URL": "http://127.0.0.1:9",
            "ARIA_MEMORY__EMBEDDER": "none",
            "ARIA_MEMORY__AUTO_EXTRACT": "false",
            **extra,
        },
    )


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[App]:
    """ARIA as the daemon builds it, with no model to answer."""
    built = await build_app(no_model_settings(tmp_path))  # type: ignore[arg-type]
    try:
        yield built
    finally:
        await built.aclose()


@dataclass(frozen=True)
class Answered:
    """What a turn said and who answered it."""

    text: str
    backend: str
    model: str
    status: str
    error: str = ""


async def ask(app: App, text: str, source: str = "text", timeout_s: float = 15) -> Answered:
    """Run one turn through the orchestrator and collect its reply."""
    parts: list[str] = []
    backend = model = error = ""
    async with app.orchestrator.bus.subscribe() as sub:
        handle = await app.orchestrator.handle(StartTurn(text=text, source=source))
        async with asyncio.timeout(timeout_s):
            async for event in sub:
                if event.run_id != handle.run_id:
                    continue
                if isinstance(event, LlmDelta):
                    parts.append(event.text)
                elif isinstance(event, ThinkEnd):
                    backend, model = event.backend, event.model
                elif isinstance(event, ErrorEvent):
                    error = event.code
                elif isinstance(event, RunEnd):
                    return Answered("".join(parts), backend, model, event.status, error)
    raise AssertionError("unreachable")


P = "/api/v1"


@dataclass
class Served:
    """The app, its API server, an authorised client and the token."""

    app: App
    server: ApiServer
    client: httpx.AsyncClient
    token: str


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    """ARIA served on an ephemeral port, closed after the test."""
    app = await build_app(no_model_settings(tmp_path))  # type: ignore[arg-type]
    config = ApiConfig(port=0, rate_limit_per_s=10_000, rate_limit_burst=10_000)
    token_file = TokenFile(tmp_path / "config" / "api" / "token")
    server = ApiServer(app.assistant, config=config, token=token_file, version=__version__)
    await server.start()
    token = token_file.read()
    client = httpx.AsyncClient(
        base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=20.0
    )
    try:
        yield Served(app, server, client, token)
    finally:
        await client.aclose()
        await server.stop()
        await app.aclose()


__all__ = ["Answered", "Event", "P", "Served", "ask", "no_model_settings"]
