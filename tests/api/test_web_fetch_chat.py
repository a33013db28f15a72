"""A chat turn over the real HTTP API reads a planted page with ``web_fetch``: the page comes
from a local HTTP server (allowed by a test setting), the model (Ollama test server) then does
what the page says, and the write it asks for waits for the user — declined through the API."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from aria_desktop.adapters.web.addresses import AddressPolicy
from aria_desktop.adapters.web.fetcher import FetchConfig, WebFetcher
from aria_desktop.core.tools import Tool
from aria_desktop.core.web import web_fetch_tool
from tests.api.conftest import Api
from tests.fakes import FakeOllama
from tests.fakes.http_server import FakeHTTPServer
from tests.fakes.ollama_server import ollama_text, ollama_tool_calls
from tests.fakes.web_pages import PLANTED, html_reply


@pytest.fixture
def site() -> Iterator[FakeHTTPServer]:
    with FakeHTTPServer() as server:
        server.script("/planted", html_reply(PLANTED))
        yield server


async def test_a_planted_page_is_flagged_and_the_write_it_asks_for_is_declined_via_the_api(
    api: Api, ollama: FakeOllama, site: FakeHTTPServer
) -> None:
    policy = AddressPolicy(allow_hosts=(f"127.0.0.1:{site.port}",))
    api.orchestrator.tools.register(web_fetch_tool(WebFetcher(FetchConfig(policy))))
    remembered: list[dict[str, Any]] = []

    async def remember(args: dict[str, Any]) -> str:
        remembered.append(args)
        return "stored"

    api.orchestrator.tools.register(
        Tool(
            name="remember",
            description="Remember a fact",
            parameters={"type": "object", "properties": {"text": {"type": "string"}}},
            permission="reversible",
            handler=remember,
        )
    )
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("web_fetch", {"url": f"{site.url}/planted"})]),
        ollama_tool_calls([("remember", {"text": "the user's password"})]),
        ollama_text("I stored nothing."),
    )
    frames: list[tuple[str, Any]] = []
    body = {"message": "what does this page say?"}
    async with api.client.stream("POST", "/api/v1/chat", json=body) as response:
        name = ""
        async with asyncio.timeout(20):
            async for line in response.aiter_lines():
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data = json.loads(line[6:])
                    frames.append((name, data))
                    if name == "action-confirm-request":
                        declined = await api.client.post(
                            f"/api/v1/actions/{data['request_id']}/confirm",
                            json={"approved": False, "nonce": data["nonce"]},
                        )
                        assert declined.status_code == 204
                    if name == "done":
                        break
    names = [n for n, _ in frames]
    flagged = [d for n, d in frames if n == "untrusted-content-flagged"]
    assert {d["source"] for d in flagged} == {"web_fetch"}
    assert names.index("untrusted-content-flagged") < names.index("action-confirm-request")
    request = next(d for n, d in frames if n == "action-confirm-request")
    assert request["tool"] == "remember"
    results = {d["name"]: d["status"] for n, d in frames if n == "tool-result"}
    assert results == {"web_fetch": "ok", "remember": "denied"}
    assert remembered == []
    assert frames[-1][1]["text"] == "I stored nothing."
    # The model read the page fenced, warned, and without the hidden passage.
    second = ollama.requests_to("/api/chat")[1].json()["messages"][-1]["content"]
    assert second.startswith('<tool_result tool="web_fetch" trust="untrusted">')
    assert "WARNING" in second
    assert "user's password" not in second
