"""ClientTurn in the core, on in-memory ports: what a stateless client's request becomes.

The client's tools pass through (a call ends the turn, nothing runs), ARIA's read-only tools
run inside, consequential ones are never offered, the request's options reach the model, the
client's later requests continue one stored conversation (system prompts may change), and a
private client's turn is marked so memory extraction skips it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.core.client_turns import conversation_keys, new_user_text
from aria_desktop.core.orchestrator import TurnOutcome
from aria_desktop.domain.chat import ChatMessage, ResponseFormat, ToolCall, ToolSpec
from aria_desktop.domain.commands import ClientTurn, GenerationOptions
from aria_desktop.domain.errors import ClientRequestError
from aria_desktop.domain.events import ClientToolCall, Event, RunEnd
from tests.fakes.harness import FakeCore, fake_cores
from tests.fakes.ports import text_reply, tool_reply

CoreFactory = Callable[..., Awaitable[FakeCore]]
LIGHT = ToolSpec(
    name="HassTurnOn",
    description="Turn on a device",
    parameters={"type": "object", "properties": {"name": {"type": "string"}}},
)


@pytest.fixture
async def core(tmp_path: Path) -> AsyncIterator[FakeCore]:
    async with fake_cores(tmp_path) as make:
        made = await make()
        made.register_echo("read_only")
        made.register_echo("consequential", name="send")
        yield made


async def _run(core: FakeCore, command: ClientTurn) -> tuple[list[Event], str]:
    sub = core.orchestrator.bus.subscribe()
    try:
        handle = await core.orchestrator.handle(command)
        events: list[Event] = []
        async with asyncio.timeout(10):
            async for event in sub:
                if event.run_id == handle.run_id:
                    events.append(event)
                    if isinstance(event, RunEnd):
                        break
        await handle.wait(timeout_s=5)
        return events, handle.conversation_id
    finally:
        sub.close()


def _turn(messages: list[ChatMessage], **extra: Any) -> ClientTurn:
    text = next((m.content for m in reversed(messages) if m.role == "user"), "")
    return ClientTurn(
        text=text, source="client", messages=tuple(messages), client="ollama/test", **extra
    )


async def test_client_tool_call_ends_the_turn_and_the_results_continue_it(core: FakeCore) -> None:
    core.model.script(
        tool_reply([("HassTurnOn", {"name": "kitchen"})], ids=["c1"]),
        text_reply("The kitchen light is on."),
    )
    system = ChatMessage(role="system", content="Time is 10:00.")
    asked = [system, ChatMessage(role="user", content="Kitchen light on")]
    events, conversation_id = await _run(core, _turn(asked, client_tools=(LIGHT,)))
    calls = [e for e in events if isinstance(e, ClientToolCall)]
    assert [(c.name, c.arguments) for c in calls] == [("HassTurnOn", {"name": "kitchen"})]
    assert events[-1].status == "complete"  # type: ignore[attr-defined]
    assert core.calls == []
    offered = {tool.name for tool in core.model.requests[0].tools}
    assert offered == {"HassTurnOn", "echo"}  # never the consequential "send"
    assert core.model.requests[0].messages[0].content == "Time is 10:00."
    # The client ran its tool; its prompt's time moved on.
    again = [
        ChatMessage(role="system", content="Time is 10:01."),
        asked[1],
        ChatMessage(
            role="assistant",
            content="",
            tool_calls=(ToolCall(id="x", name="HassTurnOn", arguments={"name": "kitchen"}),),
        ),
        ChatMessage(role="tool", content='{"ok": true}', tool_call_id="x", name="HassTurnOn"),
    ]
    events, continued = await _run(core, _turn(again, client_tools=(LIGHT,)))
    assert continued == conversation_id
    stored = await core.store.list_messages(conversation_id)
    assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[-1].content == "The kitchen light is on."
    assert len(await core.store.list_conversations()) == 1
    mined = [new_user_text(_turn(asked)), new_user_text(_turn(again))]
    assert mined == ["Kitchen light on", ""]  # tool results bring no new words to mine


async def test_arias_read_only_tool_runs_inside_and_options_reach_the_model(
    core: FakeCore,
) -> None:
    core.model.script(tool_reply([("echo", {"text": "hi"})]), text_reply('{"a": 1}'))
    schema = {"type": "object"}
    options = GenerationOptions(
        max_tokens=9,
        temperature=0.3,
        stop=("END",),
        response_format=ResponseFormat(schema=schema),
        context_tokens=4096,
    )
    events, _ = await _run(
        core, _turn([ChatMessage(role="user", content="Echo hi")], options=options, agent="quick")
    )
    assert core.calls == [{"text": "hi"}]
    assert not any(isinstance(e, ClientToolCall) for e in events)
    request = core.model.requests[-1]
    assert (request.max_tokens, request.temperature, request.stop) == (9, 0.3, ("END",))
    assert request.response_format == ResponseFormat(schema=schema)
    assert request.context_tokens == 4096
    assert core.model.agents == ["quick", "quick"]
    assert request.messages[0].role == "system"  # ARIA's system prompt when the client has none


async def test_an_edited_history_starts_a_new_conversation_and_private_is_marked(
    core: FakeCore,
) -> None:
    outcomes: asyncio.Queue[TurnOutcome] = asyncio.Queue()
    core.orchestrator.add_turn_observer(outcomes.put)
    core.model.script(text_reply("Hello."), text_reply("Again."))
    first = [ChatMessage(role="user", content="Hi")]
    _, one = await _run(core, _turn(first, private=True))
    edited = [
        ChatMessage(role="user", content="Hi"),
        ChatMessage(role="assistant", content="Hello (edited by the user)."),
        ChatMessage(role="user", content="More"),
    ]
    _, two = await _run(core, _turn(edited))
    assert one != two
    assert [m.content for m in await core.store.list_messages(two)] == [
        "Hi",
        "Hello (edited by the user).",
        "More",
        "Again.",
    ]
    async with asyncio.timeout(5):
        assert [(await outcomes.get()).private for _ in range(2)] == [True, False]


async def test_a_request_without_a_user_message_is_refused(core: FakeCore) -> None:
    with pytest.raises(ClientRequestError):
        await core.orchestrator.handle(_turn([ChatMessage(role="system", content="x")]))
    assert await core.store.list_conversations() == []


def test_keys_ignore_system_messages_and_ids_but_not_the_client() -> None:
    call = ToolCall(id="a", name="t", arguments={"x": 1})
    same_call = ToolCall(id="b", name="t", arguments={"x": 1})
    one = [
        ChatMessage(role="system", content="s1"),
        ChatMessage(role="assistant", content="", tool_calls=(call,)),
    ]
    two = [
        ChatMessage(role="system", content="s2"),
        ChatMessage(role="assistant", content=" ", tool_calls=(same_call,)),
    ]
    assert conversation_keys("c", one) == conversation_keys("c", two)
    assert conversation_keys("c", one) != conversation_keys("d", one)
