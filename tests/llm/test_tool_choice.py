"""``tool_choice`` and forced answers, as each backend sends them to its server.

OpenAI-compatible: ``tool_choice`` ``"required"`` or a named function. Anthropic:
``{"type": "any"}`` / ``{"type": "tool"}``, and structured output as a forced tool whose input
is the answer (a schema that is not an object is wrapped and unwrapped). Against the scripted
servers over HTTP through the real router.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from aria_desktop.adapters.llm import OllamaBackend, RetryPolicy, Router, Timeouts
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.adapters.llm.openai_compat import OpenAICompatBackend
from aria_desktop.adapters.llm.router import ChatBackend
from aria_desktop.domain.chat import (
    ChatMessage,
    ChatRequest,
    LLMChunk,
    ResponseFormat,
    StreamEnd,
    TextDelta,
    ToolCallChunk,
    ToolCallRejected,
    ToolChoice,
    ToolSpec,
)
from tests.fakes import FakeAnthropic, FakeOllama
from tests.fakes.anthropic_server import (
    anthropic_stream,
    anthropic_text,
    message_start,
    message_stop,
    tool_use_block,
)
from tests.fakes.ollama_server import ollama_text
from tests.fakes.openai_server import FakeOpenAI

FAST = Timeouts(connect_s=1.0, first_token_s=5.0, stall_s=5.0, total_s=20.0)
WEATHER = ToolSpec(
    name="get_weather",
    description="Weather.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)
CLOCK = ToolSpec(name="get_time", description="Now.", parameters={"type": "object"})
ASK = (ChatMessage(role="user", content="Weather in Oslo?"),)


async def collect(backend: ChatBackend, request: ChatRequest) -> list[LLMChunk]:
    router = Router(
        {"b": backend}, {"chat": ("b",)}, retry=RetryPolicy(max_attempts=1, base_delay_s=0.0)
    )
    try:
        chunks: AsyncIterator[LLMChunk] = router.stream(request)
        return [chunk async for chunk in chunks]
    finally:
        await router.aclose()


async def test_openai_compatible_servers_get_tool_choice_only_with_tools() -> None:
    with FakeOpenAI() as server:
        for choice, tools, expected in (
            (ToolChoice(mode="required"), (WEATHER, CLOCK), "required"),
            (
                ToolChoice(mode="tool", name="get_weather"),
                (WEATHER,),
                {"type": "function", "function": {"name": "get_weather"}},
            ),
            (ToolChoice(mode="required"), (), None),
        ):
            await collect(
                OpenAICompatBackend(
                    base_url=server.url, model="smollm2", api_key=None, timeouts=FAST
                ),
                ChatRequest(messages=ASK, tools=tools, tool_choice=choice),
            )
            body = server.requests_to("/v1/chat/completions")[-1].json()
            assert body.get("tool_choice") == expected


def anthropic(server: FakeAnthropic) -> AnthropicBackend:
    return AnthropicBackend(
        api_key="sk-ant-test-key-000000",
        model="claude-sonnet-5-5",
        base_url=server.url,
        timeouts=FAST,
    )


async def test_anthropic_gets_any_or_the_named_tool() -> None:
    with FakeAnthropic() as server:
        for choice, expected in (
            (ToolChoice(mode="required"), {"type": "any"}),
            (ToolChoice(mode="tool", name="get_time"), {"type": "tool", "name": "get_time"}),
        ):
            server.script(
                "/v1/messages",
                anthropic_stream(
                    [
                        message_start("claude-sonnet-5-5"),
                        *tool_use_block(0, choice.name or "get_weather", {}),
                        *message_stop("tool_use"),
                    ]
                ),
            )
            chunks = await collect(
                anthropic(server),
                ChatRequest(messages=ASK, tools=(WEATHER, CLOCK), tool_choice=choice),
            )
            body: dict[str, Any] = server.requests_to("/v1/messages")[-1].json()
            assert body["tool_choice"] == expected
            assert [type(c) for c in chunks] == [ToolCallChunk, StreamEnd]


async def test_anthropic_answers_a_non_object_schema_through_a_wrapped_forced_tool() -> None:
    schema: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
    with FakeAnthropic() as server:
        server.script(
            "/v1/messages",
            anthropic_stream(
                [
                    message_start("claude-sonnet-5-5"),
                    *tool_use_block(0, "city_list", {"value": ["Oslo", "Rome"]}),
                    *message_stop("tool_use"),
                ]
            ),
        )
        chunks = await collect(
            anthropic(server),
            ChatRequest(
                messages=ASK, response_format=ResponseFormat(schema=schema, name="city list")
            ),
        )
        body: dict[str, Any] = server.requests_to("/v1/messages")[-1].json()
    [tool] = body["tools"]
    assert tool["name"] == "city_list"
    assert tool["input_schema"] == {
        "type": "object",
        "properties": {"value": schema},
        "required": ["value"],
    }
    assert body["tool_choice"] == {"type": "tool", "name": "city_list"}
    text = "".join(c.text for c in chunks if isinstance(c, TextDelta))
    assert json.loads(text) == ["Oslo", "Rome"]
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    assert end.stop_reason == "stop"


async def test_a_required_call_missing_from_an_ollama_reply_is_rejected_not_shown() -> None:
    with FakeOllama() as server:
        server.script("/api/chat", ollama_text("I think it is sunny."))
        chunks = await collect(
            OllamaBackend(base_url=server.url, model="qwen2.5:0.5b", timeouts=FAST),
            ChatRequest(
                messages=ASK,
                tools=(WEATHER, CLOCK),
                tool_choice=ToolChoice(mode="tool", name="get_weather"),
            ),
        )
        body: dict[str, Any] = server.requests_to("/api/chat")[-1].json()
    assert body["messages"][-1] == {
        "role": "system",
        "content": "Answer by calling the tool get_weather; do not answer in words.",
    }
    assert not [c for c in chunks if isinstance(c, TextDelta)]
    [rejected] = [c for c in chunks if isinstance(c, ToolCallRejected)]
    assert rejected.name == "get_weather"
    assert "the reply made none" in rejected.reason
    assert rejected.text == "I think it is sunny."


async def test_a_call_of_another_tool_than_the_named_one_is_rejected() -> None:
    with FakeOllama() as server:
        server.script("/api/chat", ollama_text('{"name": "get_time", "arguments": {}}', chunks=5))
        chunks = await collect(
            OllamaBackend(base_url=server.url, model="qwen2.5:0.5b", timeouts=FAST),
            ChatRequest(
                messages=ASK,
                tools=(WEATHER, CLOCK),
                tool_choice=ToolChoice(mode="tool", name="get_weather"),
            ),
        )
    assert [type(c) for c in chunks] == [ToolCallRejected, StreamEnd]


async def test_a_plain_answer_without_tools_is_streamed_unchanged() -> None:
    with FakeAnthropic() as server:
        server.script("/v1/messages", anthropic_text('{"name": "get_weather"} is JSON.'))
        chunks = await collect(anthropic(server), ChatRequest(messages=ASK))
    assert "".join(c.text for c in chunks if isinstance(c, TextDelta)) == (
        '{"name": "get_weather"} is JSON.'
    )


async def test_a_model_without_native_tool_calls_is_held_to_the_call_by_a_schema() -> None:
    # A model whose /api/show lists no "tools": the required call is asked for as structured
    # output ({"name", "arguments"}), and the JSON it writes becomes a real call.
    with FakeOllama() as server:
        server.capabilities = ["completion"]
        server.script(
            "/api/chat", ollama_text('{"name": "get_weather", "arguments": {"city": "Oslo"}}')
        )
        chunks = await collect(
            OllamaBackend(base_url=server.url, model="smollm2:135m", timeouts=FAST),
            ChatRequest(
                messages=ASK, tools=(WEATHER, CLOCK), tool_choice=ToolChoice(mode="required")
            ),
        )
        body: dict[str, Any] = server.requests_to("/api/chat")[-1].json()
    assert "tools" not in body
    variants = body["format"]["anyOf"]
    assert [v["properties"]["name"]["const"] for v in variants] == ["get_weather", "get_time"]
    assert variants[0]["properties"]["arguments"] == WEATHER.parameters
    [call] = [c.call for c in chunks if isinstance(c, ToolCallChunk)]
    assert (call.name, call.arguments) == ("get_weather", {"city": "Oslo"})
    assert not [c for c in chunks if isinstance(c, TextDelta)]
