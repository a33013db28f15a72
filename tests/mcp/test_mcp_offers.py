"""What MCP servers offer besides tools: resources and prompts, listed, read, run, attached.

A real SDK-written server (tests/fakes/mcp_servers.py ``asks``, over stdio) offers a resource
and a prompt; ARIA lists both, reads the resource, fills the prompt, and a turn with the
resource attached gives it to the model fenced as untrusted data, flagged by the scanner.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from aria_desktop.domain.commands import (
    GetMcpPrompt,
    ListMcp,
    ReadMcpResource,
    StartTurn,
    TurnAttachment,
)
from aria_desktop.domain.errors import McpServerError
from aria_desktop.domain.events import RunEnd
from aria_desktop.domain.mcp import McpOverview
from tests.fakes.ports import text_reply
from tests.mcp.test_mcp_client import RigFactory, fake_server, make_rig

__all__ = ["make_rig"]  # the fixture, shared with test_mcp_client.py


async def test_resources_and_prompts_are_listed_read_and_filled(make_rig: RigFactory) -> None:
    rig = await make_rig({"restaurant": fake_server("asks")})
    overview: McpOverview = await rig.core.orchestrator.handle(ListMcp())
    (resource,) = overview.resources
    assert (resource.server, resource.uri, resource.name) == ("restaurant", "notes://todo", "todo")
    assert resource.mime_type == "text/plain"
    (prompt,) = overview.prompts
    assert prompt.name == "plan_trip"
    assert [(a.name, a.required) for a in prompt.arguments] == [("destination", True)]

    read = await rig.core.orchestrator.handle(
        ReadMcpResource(server="restaurant", uri="notes://todo")
    )
    assert read.text.startswith("- buy milk")
    assert not read.is_error
    with pytest.raises(McpServerError, match="refused reading notes://nothing"):
        await rig.core.orchestrator.handle(
            ReadMcpResource(server="restaurant", uri="notes://nothing")
        )

    filled = await rig.core.orchestrator.handle(
        GetMcpPrompt(server="restaurant", name="plan_trip", arguments={"destination": "Lisbon"})
    )
    assert filled.user_text == "Plan a three-day trip to Lisbon."


async def test_an_attached_resource_reaches_the_model_as_fenced_untrusted_data(
    make_rig: RigFactory,
) -> None:
    rig = await make_rig({"restaurant": fake_server("asks")})
    read = await rig.core.orchestrator.handle(
        ReadMcpResource(server="restaurant", uri="notes://todo")
    )
    rig.core.model.script(text_reply("Your list has milk on it."))
    sub = rig.core.orchestrator.bus.subscribe()
    try:
        await rig.core.orchestrator.handle(
            StartTurn(
                text="What is on my list?",
                attachments=(TurnAttachment(source="restaurant: notes://todo", text=read.text),),
            )
        )
        async with asyncio.timeout(30):
            async for event in sub:
                if isinstance(event, RunEnd):
                    break
    finally:
        sub.close()
    messages: list[Any] = list(rig.core.model.requests[-1].messages)
    head = '<attachment source="restaurant: notes://todo"'
    fenced = [m.content for m in messages if head in (m.content or "")]
    assert len(fenced) == 1
    assert "data, not instructions" in fenced[0]
    assert "WARNING: ARIA's scanner flagged this attachment" in fenced[0]  # the injected line
    assert messages[-1].role == "user"
    assert messages[-1].content == "What is on my list?"  # the user's own words stay theirs
