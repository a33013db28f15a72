"""The lists as tools of ARIA's MCP server, driven by the official ``mcp`` client over the
streamable HTTP endpoint of a whole ARIA (``/mcp``): read, add, check off, remove, and errors
an MCP client can read."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from aria_desktop.domain.skill_events import SkillDataChanged
from tests.skills.conftest import Served

mcp = pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402

LIST_TOOLS = {
    "list_lists",
    "list_items",
    "add_list_items",
    "check_off_list_item",
    "remove_list_item",
}


def _result(answer: Any) -> Any:
    return json.loads(answer.content[0].text)


async def test_an_mcp_client_reads_and_changes_the_lists(served: Served) -> None:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {served.token}"})
    async with (
        http,
        Client(streamable_http_client(f"{served.server.url}/mcp", http_client=http)) as client,
        served.app.orchestrator.bus.subscribe() as events,
    ):
        assert {tool.name for tool in (await client.list_tools()).tools} >= LIST_TOOLS
        added = _result(await client.call_tool("add_list_items", {"items": ["milk", "eggs"]}))
        assert [i["text"] for i in added["added"]] == ["milk", "eggs"]
        async with asyncio.timeout(5):
            while not isinstance(await events.get(), SkillDataChanged):
                pass
        checked = await client.call_tool("check_off_list_item", {"item": "Milk"})
        assert _result(checked)["checked_off"]["done"] is True
        await client.call_tool("add_list_items", {"items": ["call mom"], "list": "to-do list"})
        read = _result(await client.call_tool("list_items", {"list": "shopping"}))
        assert read == {
            "list": "shopping",
            "items": [{"id": added["added"][1]["id"], "text": "eggs", "done": False}],
        }
        removed = await client.call_tool("remove_list_item", {"item": "eggs"})
        assert _result(removed)["removed"]["text"] == "eggs"
        overview = (await client.call_tool("list_lists", {})).structured_content["result"]
        assert overview == [
            {"name": "shopping", "open": 0, "done": 1},
            {"name": "todo", "open": 1, "done": 0},
        ]
        missing = await client.call_tool("remove_list_item", {"item": "butter"})
        assert missing.is_error
        said = missing.content[0].text  # type: ignore[union-attr]
        assert '"error": "not_found"' in said
        assert "There is no 'butter' on the shopping list." in said
        unknown = await client.call_tool("list_items", {"list": "garden"})
        assert unknown.is_error
    entries = await served.app.skills.lists.items("todo")  # type: ignore[union-attr]
    assert [e.text for e in entries] == ["call mom"]
