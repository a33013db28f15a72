"""``/mcp`` on the local API: the official SDK's client over streamable HTTP, both revisions.

The same token as every route is required; ``forget`` is confirmed out of band (the test
answers the ``action-confirm-request`` with its nonce, as the GUI would).
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from aria_desktop.core.memory.service import MemoryService
from aria_desktop.domain.commands import ConfirmAction
from aria_desktop.domain.events import ActionConfirmRequest
from tests.api.conftest import Api
from tests.fakes.ports import ScriptedChatModel

mcp = pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402


async def test_mcp_needs_the_api_token(api: Api) -> None:
    async with httpx.AsyncClient() as bare:
        response = await bare.post(f"{api.url}/mcp", json={})
    assert response.status_code == 401


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_remember_recall_and_confirmed_forget_over_http(api: Api, mode: str) -> None:
    assert api.memory_store is not None
    # The fixture's memory service is not installed on the orchestrator; its command is.
    MemoryService(store=api.memory_store, model=ScriptedChatModel()).install_forget_command(
        api.orchestrator
    )
    http = create_mcp_http_client(headers=api.headers())
    async with (
        http,
        Client(streamable_http_client(f"{api.url}/mcp", http_client=http), mode=mode) as client,
    ):
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"remember", "recall", "forget", "ask"} <= names
        saved = await client.call_tool("remember", {"content": "The car is a blue Volvo"})
        memory_id = json.loads(saved.content[0].text)["id"]  # type: ignore[union-attr]
        found = await client.call_tool("recall", {"query": "Volvo"})
        assert found.structured_content["result"][0]["id"] == memory_id

        sub = api.orchestrator.bus.subscribe()

        async def confirm() -> ActionConfirmRequest:
            async for event in sub:
                if isinstance(event, ActionConfirmRequest):
                    await api.orchestrator.handle(
                        ConfirmAction(request_id=event.request_id, nonce=event.nonce, approved=True)
                    )
                    return event
            raise AssertionError("no confirmation request")

        answering = asyncio.create_task(confirm())
        try:
            forgotten = await client.call_tool("forget", {"memory_id": memory_id})
            request = await asyncio.wait_for(answering, 10)
        finally:
            sub.close()
        assert not forgotten.is_error
        assert "requested by an MCP client" in request.reason
        found = await client.call_tool("recall", {"query": "Volvo"})
        assert found.structured_content["result"] == []


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_reading_an_unknown_memory_is_a_not_found_error_naming_it(
    api: Api, mode: str
) -> None:
    from mcp import MCPError

    http = create_mcp_http_client(headers=api.headers())
    async with (
        http,
        Client(streamable_http_client(f"{api.url}/mcp", http_client=http), mode=mode) as client,
    ):
        with pytest.raises(MCPError) as raised:
            await client.read_resource("memory://no-such-memory")
    # The SDK's not-found code (SEP-2164: invalid params; -32002 is retired), with the text.
    assert raised.value.error.code == -32602
    assert "no-such-memory" in raised.value.error.message
    assert "No memory" in raised.value.error.message


async def test_the_mcp_overview_is_empty_without_mcp_and_policy_changes_are_refused(
    api: Api,
) -> None:
    overview = await api.client.get("/api/v1/mcp/servers")
    assert overview.json() == {"servers": [], "tools": []}
    refused = await api.client.post("/api/v1/mcp/tools/x__y/policy", json={"policy": "always"})
    assert refused.status_code == 404
