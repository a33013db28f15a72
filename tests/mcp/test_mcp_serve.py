"""``aria mcp serve`` driven by the official SDK's client over stdio, on both protocol revisions.

The server process is the real ``aria`` command with its own settings and database in
tmp_path; no owner runs, so it builds ARIA in-process. ``forget`` needs the user's confirmation
in ARIA: nobody answers here, so the request times out and the memory is kept.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def serve_params(tmp_path: Path) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARIA_", "ANTHROPIC_"))}
    env.update(
        ARIA_CONFIG_DIR=str(tmp_path / "config"),
        ARIA_DATA_DIR=str(tmp_path / "data"),
        ARIA_STATE_DIR=str(tmp_path / "state"),
        ARIA_RUNTIME_DIR=str(tmp_path / "run"),
        ARIA_AGENT__CONFIRM_TIMEOUT_S="1",
        ARIA_MEMORY__EMBEDDER="none",
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        PYTHONPATH=str(REPO),
    )
    return StdioServerParameters(
        command=sys.executable, args=["-m", "aria_desktop", "mcp", "serve"], env=env, cwd=REPO
    )


def _payload(result: object) -> object:
    text = result.content[0].text  # type: ignore[attr-defined]
    return json.loads(text)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_remember_recall_and_forget_over_stdio(
    serve_params: StdioServerParameters, mode: str
) -> None:
    # The SDK's client is entered and left in the test's own task (never in a fixture).
    async with Client(serve_params, mode=mode) as client:
        await _remember_recall_forget(client)


async def _remember_recall_forget(client: Client) -> None:
    expected = "2026-07-28" if client.protocol_version.startswith("2026") else "2025-11-25"
    assert client.protocol_version == expected
    tools = {tool.name for tool in (await client.list_tools()).tools}
    assert {"remember", "recall", "forget", "ask"} <= tools
    assert "screen_read" not in tools  # computer use is off
    saved = await client.call_tool("remember", {"content": "Dana's birthday is on 3 May"})
    assert not saved.is_error
    memory_id = _payload(saved)["id"]  # type: ignore[index]
    found = await client.call_tool("recall", {"query": "birthday Dana"})
    hits = found.structured_content["result"]
    assert [hit["id"] for hit in hits] == [memory_id]
    refused = await client.call_tool("forget", {"memory_id": memory_id})
    assert refused.is_error
    assert "did not confirm" in refused.content[0].text  # type: ignore[union-attr]
    again = await client.call_tool("recall", {"query": "birthday Dana"})
    assert again.structured_content["result"][0]["id"] == memory_id
    resources = await client.list_resources()
    assert "memory://all" in {str(r.uri) for r in resources.resources}


async def test_screen_read_is_offered_only_with_computer_use_on(
    serve_params: StdioServerParameters, display: str
) -> None:
    env = dict(serve_params.env or {}, ARIA_COMPUTER__ENABLED="true", DISPLAY=display)
    params = serve_params.model_copy(update={"env": env})
    async with Client(params) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert "screen_read" in tools
        read = await client.call_tool("screen_read", {})
        assert not read.is_error, read.content


async def test_recall_answers_from_the_knowledge_base_too(
    serve_params: StdioServerParameters, tmp_path: Path
) -> None:
    import subprocess

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "boiler.md").write_text(
        "# Boiler\n\n## Service\n\nThe boiler service code is 4471 and the engineer is Priya.\n"
    )
    added = subprocess.run(
        [sys.executable, "-m", "aria_desktop", "knowledge", "add", str(notes)],
        env=serve_params.env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert added.returncode == 0, added.stderr
    async with Client(serve_params) as client:
        found = await client.call_tool("recall", {"query": "boiler service code"})
    hits = found.structured_content["result"]
    documents = [hit for hit in hits if hit["source"] == "knowledge"]
    assert documents, hits
    assert documents[0]["document"].endswith("boiler.md")
    assert documents[0]["heading"] == "Boiler > Service"
    assert "4471" in documents[0]["text"]
