"""The agent keeps reasoning apart: its own events, its own column, sent back signed in a tool
loop, never in the answer text; ``llm.think`` reaches every request (the in-memory store;
``tests/storage/test_thinking_columns.py`` checks the SQLite columns)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from aria_desktop.core.agent import AgentConfig
from aria_desktop.domain.chat import LLMChunk, StreamEnd, TextDelta, ThinkingDelta, Usage
from aria_desktop.domain.events import LlmDelta, LlmThinking
from tests.fakes.harness import FakeCore, fake_cores
from tests.fakes.ports import tool_reply

CoreFactory = Callable[..., Awaitable[FakeCore]]


@pytest.fixture
async def make_core(tmp_path: Path) -> AsyncIterator[CoreFactory]:
    async with fake_cores(tmp_path) as factory:
        yield factory


async def test_reasoning_is_stored_apart_and_sent_back_signed_in_the_tool_loop(
    make_core: CoreFactory,
) -> None:
    core = await make_core(config=AgentConfig(think="on", think_budget_tokens=4096))
    core.register_echo()
    first = [
        ThinkingDelta(text="I should echo "),
        ThinkingDelta(text="first."),
        ThinkingDelta(text="", signature="sig-1"),
        *tool_reply([("echo", {"text": "ping"})], ids=["call_1"]),
    ]
    second: list[LLMChunk] = [
        ThinkingDelta(text="It said ping."),
        TextDelta(text="The tool said ping."),
        StreamEnd(backend="anthropic", model="claude", usage=Usage(output_tokens=9, cost=0.5)),
    ]
    core.model.script(first, second)
    events, conversation_id = await core.turn("use the tool")

    assert "".join(e.text for e in events if isinstance(e, LlmThinking)) == (
        "I should echo first.It said ping."
    )
    assert "".join(e.text for e in events if isinstance(e, LlmDelta)) == "The tool said ping."
    requests = core.model.requests
    assert [(r.think, r.think_budget_tokens) for r in requests] == [("on", 4096)] * 2
    assert requests[0].turn_id == requests[1].turn_id != ""
    sent_back = requests[1].messages[-2]
    assert (sent_back.role, sent_back.thinking) == ("assistant", "I should echo first.")
    assert sent_back.thinking_signature == "sig-1"
    messages = await core.store.list_messages(conversation_id)
    assistant = [m for m in messages if m.role == "assistant"]
    assert [(m.content, m.thinking) for m in assistant] == [
        ("", "I should echo first."),
        ("The tool said ping.", "It said ping."),
    ]
    assert assistant[1].usage.cost == 0.5
    # Earlier turns' reasoning is not sent to the model again.
    assert all(m.to_chat_message().thinking == "" for m in messages)
