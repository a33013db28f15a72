"""The owner runs on a settings file with mistakes, and says so: ``GET /api/v1/state`` carries
each problem, the API client reads them, a hand edit that breaks the file is reported and not
applied, and each new problem is logged once as a warning.

A real owner (``start_owner``: API socket, SQLite, the settings file on disk); no model is
needed.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from aria_desktop import paths
from aria_desktop.api.token import TokenFile
from aria_desktop.compose.assistant import connect_client
from aria_desktop.compose.owner import Owner, start_owner
from aria_desktop.settings import load_settings_with_problems

_FILE = """\
[llm]
chains.chat = ["ollama"]

[api]
port = 0

[storage]
database = "{database}"

[memory]
embedder = "none"

[knowledge]
enabled = false

[voice]
enabled = false
enabeld = true
push_to_talk = "hodl"
"""


@pytest.fixture
async def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Owner]:
    for name in ("CONFIG", "DATA", "STATE", "RUNTIME"):
        monkeypatch.setenv(f"ARIA_{name}_DIR", str(tmp_path / name.lower()))
    for key in list(os.environ):
        if key.startswith(("ARIA_LLM", "ARIA_VOICE", "ARIA_API", "ARIA_STORAGE")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    path = paths.settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_FILE.format(database=tmp_path / "aria.db"), encoding="utf-8")
    loaded = load_settings_with_problems()
    assert loaded.settings.voice.push_to_talk == "hold"  # the bad value took its default
    running = await start_owner(loaded.settings)
    try:
        yield running
    finally:
        await asyncio.wait_for(running.stop(), timeout=30)


async def test_state_carries_the_settings_problems_to_the_api_and_its_client(
    owner: Owner, caplog: pytest.LogCaptureFixture
) -> None:
    token = TokenFile(paths.api_token_path()).read()
    async with httpx.AsyncClient(
        base_url=owner.server.url, headers={"Authorization": f"Bearer {token}"}, timeout=10
    ) as http:
        body = (await http.get("/api/v1/state")).json()
    keys = [(p["key"], p["line"], p["column"]) for p in body["settings_problems"]]
    assert keys == [("voice.enabeld", 18, 1), ("voice.push_to_talk", 19, 1)]
    first = body["settings_problems"][0]
    assert first["file"] == str(paths.settings_file())
    assert "did you mean voice.enabled?" in first["message"]

    client = await connect_client(owner.server.url)
    try:
        assert [p.key for p in client.settings_problems] == ["voice.enabeld", "voice.push_to_talk"]

        # A hand edit that breaks the file: reported, logged once, the running settings stay.
        assert owner.live is not None
        paths.settings_file().write_text("[voice\nenabled = true\n", encoding="utf-8")
        running = owner.app.settings
        with caplog.at_level(logging.WARNING, logger="aria_desktop.compose.live_settings"):
            assert await owner.live.reload() is None
            assert await owner.live.reload() is None
        assert owner.app.settings is running
        await client.refresh_state()
        (problem,) = client.settings_problems
        assert (problem.key, problem.line, problem.column) == ("", 1, 7)
        logged = [r.getMessage() for r in caplog.records if "Settings problem" in r.getMessage()]
        assert len(logged) == 1
        assert "cannot be read" in logged[0]
    finally:
        await client.aclose()
