"""AnthropicBackend (official SDK) over real HTTP against the fake Messages API."""

from __future__ import annotations

import asyncio

from aria_desktop.adapters.llm import Timeouts
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.domain.chat import (
    ChatMessage,
    ChatRequest,
    StreamEnd,
    TextDelta,
    ToolCall,
    ToolCallChunk,
    ToolSpec,
)
from aria_desktop.domain.errors import (
    AuthenticationError,
    BackendUnreachableError,
    ContextOverflowError,
    LLMTimeoutError,
    MalformedResponseError,
    RateLimitedError,
    ServerError,
    StreamInterruptedError,
)
from tests.fakes import Drop, FakeAnthropic, Hang, Send, Sleep, closed_port
from tests.fakes.anthropic_server import (
    anthropic_error,
    anthropic_stream,
    anthropic_text,
    message_start,
    message_stop,
    sse,
    text_block,
    tool_use_block,
)
from tests.llm.conftest import FAST, REQUEST, collect, collect_until_error, text_of

MODEL = "claude-test-1"  # a real, deprecated id would make the SDK warn


def make(server: FakeAnthropic, timeouts: Timeouts = FAST) -> AnthropicBackend:
    return AnthropicBackend(
        api_key="sk-ant-test-secret", model=MODEL, base_url=server.url, timeouts=timeouts
    )


async def test_streams_text_and_reports_usage(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script(
        "/v1/messages",
        anthropic_text("Hi from Claude", model=MODEL, chunks=3, input_tokens=40, output_tokens=4),
    )
    backend = make(anthropic_server)
    chunks = await collect(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert text_of(chunks) == "Hi from Claude"
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    assert (end.backend, end.model, end.stop_reason) == ("anthropic", MODEL, "stop")
    assert end.locality == backend.locality == "cloud"  # even at a loopback test URL
    assert (end.usage.input_tokens, end.usage.output_tokens) == (40, 4)
    sent = anthropic_server.requests_to("/v1/messages")[0]
    # SDK 2.x sends the key as a bearer token; older ones used x-api-key.
    assert "sk-ant-test-secret" in (
        sent.headers.get("x-api-key", "") + sent.headers.get("authorization", "")
    )
    assert "anthropic-version" in sent.headers


async def test_request_converts_system_tool_use_and_tool_results(
    anthropic_server: FakeAnthropic,
) -> None:
    call = ToolCall(id="toolu_1", name="get_weather", arguments={"city": "Oslo"})
    request = ChatRequest(
        messages=(
            ChatMessage(role="system", content="Be brief."),
            ChatMessage(role="user", content="Weather?"),
            ChatMessage(role="assistant", content="Checking.", tool_calls=(call,)),
            ChatMessage(role="tool", content="3 C", tool_call_id="toolu_1", name="get_weather"),
            ChatMessage(role="user", content="Thanks"),
        ),
        tools=(ToolSpec(name="get_weather", description="Weather", parameters={"type": "object"}),),
        max_tokens=300,
        temperature=0.5,
    )
    backend = make(anthropic_server)
    await collect(backend.stream_chat(request))
    await backend.aclose()
    body = anthropic_server.requests_to("/v1/messages")[0].json()
    # The stable system prompt is one block marked for Anthropic's prompt cache.
    assert body["system"] == [
        {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["stream"] is True
    assert body["max_tokens"] == 300
    assert body["temperature"] == 0.5
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": {"city": "Oslo"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "3 C"},
                {"type": "text", "text": "Thanks"},
            ],
        },
    ]
    assert body["tools"] == [
        {
            "name": "get_weather",
            "description": "Weather",
            "input_schema": {"type": "object"},
            "cache_control": {"type": "ephemeral"},
        }
    ]


async def test_tool_use_json_pieces_are_assembled(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script(
        "/v1/messages",
        anthropic_stream(
            [
                message_start(MODEL),
                *text_block(0, "Let me look.", chunks=2),
                *tool_use_block(1, "get_weather", {"city": "Oslo", "days": 3}, pieces=6),
                *message_stop("tool_use"),
            ]
        ),
    )
    backend = make(anthropic_server)
    chunks = await collect(backend.stream_chat(REQUEST))
    await backend.aclose()
    calls = [c.call for c in chunks if isinstance(c, ToolCallChunk)]
    assert calls == [
        ToolCall(id="toolu_fake01", name="get_weather", arguments={"city": "Oslo", "days": 3})
    ]
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    assert end.stop_reason == "tool_use"


async def test_tool_use_cut_before_block_stop_never_yields_a_tool_call(
    anthropic_server: FakeAnthropic,
) -> None:
    steps = tool_use_block(0, "delete_file", {"path": "/home/me"}, pieces=4, stop=False)
    anthropic_server.script(
        "/v1/messages", anthropic_stream([message_start(MODEL), *steps[:3], Drop()])
    )
    backend = make(anthropic_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert not any(isinstance(c, ToolCallChunk) for c in chunks)
    assert isinstance(error, BackendUnreachableError)
    assert error.retryable


async def test_tool_use_stream_ending_without_message_stop_never_yields(
    anthropic_server: FakeAnthropic,
) -> None:
    steps = tool_use_block(0, "delete_file", {"path": "/home/me"}, pieces=4, stop=False)
    anthropic_server.script("/v1/messages", anthropic_stream([message_start(MODEL), *steps]))
    backend = make(anthropic_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert not any(isinstance(c, ToolCallChunk) for c in chunks)
    assert isinstance(error, MalformedResponseError)
    assert "unfinished tool call" in str(error)


async def test_tool_use_with_invalid_json_is_malformed(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script(
        "/v1/messages",
        anthropic_stream(
            [message_start(MODEL), *tool_use_block(0, "f", '{"a": tru'), *message_stop("tool_use")]
        ),
    )
    backend = make(anthropic_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert not any(isinstance(c, ToolCallChunk) for c in chunks)
    assert isinstance(error, MalformedResponseError)


async def test_text_then_cut_is_interrupted_with_partial_text(
    anthropic_server: FakeAnthropic,
) -> None:
    blocks = text_block(0, "Partial answer", chunks=2)
    anthropic_server.script(
        "/v1/messages", anthropic_stream([message_start(MODEL), *blocks[:4], Drop()])
    )
    backend = make(anthropic_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, StreamInterruptedError)
    assert error.partial_text == text_of(chunks) == "Partial answer"


async def test_overloaded_529_is_rate_limited_with_retry_after(
    anthropic_server: FakeAnthropic,
) -> None:
    anthropic_server.script("/v1/messages", anthropic_error(529, "Overloaded", retry_after="4"))
    backend = make(anthropic_server)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, RateLimitedError)
    assert error.retryable
    assert error.retry_after_s == 4.0
    assert error.status == 529


async def test_bad_key_is_authentication_error_without_leaking_it(
    anthropic_server: FakeAnthropic,
) -> None:
    anthropic_server.script("/v1/messages", anthropic_error(401, "invalid x-api-key"))
    backend = make(anthropic_server)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, AuthenticationError)
    assert not error.retryable
    assert "set-secret anthropic_api_key" in error.hint
    assert "sk-ant-test-secret" not in str(error)


async def test_prompt_too_long_is_context_overflow(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script(
        "/v1/messages", anthropic_error(400, "prompt is too long: 210000 tokens > 200000 maximum")
    )
    backend = make(anthropic_server)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, ContextOverflowError)


async def test_mid_stream_error_event_is_translated(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script(
        "/v1/messages",
        anthropic_stream(
            [
                message_start(MODEL),
                sse("error", {"type": "error", "error": {"type": "api_error", "message": "boom"}}),
            ]
        ),
    )
    backend = make(anthropic_server)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, ServerError)
    assert error.retryable


async def test_garbage_event_data_is_malformed(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script(
        "/v1/messages", anthropic_stream([Send(b"event: message_start\ndata: {nope\n\n")])
    )
    backend = make(anthropic_server)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, MalformedResponseError)


async def test_unreachable_server_is_backend_unreachable() -> None:
    with closed_port() as port:
        backend = AnthropicBackend(
            api_key="k", model=MODEL, base_url=f"http://127.0.0.1:{port}", timeouts=FAST
        )
        _, error = await collect_until_error(backend.stream_chat(REQUEST))
        await backend.aclose()
    assert isinstance(error, BackendUnreachableError)
    assert error.retryable


async def test_stall_after_text_is_interrupted_by_stall_timeout(
    anthropic_server: FakeAnthropic,
) -> None:
    blocks = text_block(0, "Thinking", chunks=1)
    anthropic_server.script(
        "/v1/messages", anthropic_stream([message_start(MODEL), *blocks[:3], Hang()])
    )
    backend = make(
        anthropic_server, Timeouts(connect_s=1, first_token_s=5, stall_s=0.3, total_s=10)
    )
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert text_of(chunks) == "Thinking"
    assert isinstance(error, StreamInterruptedError)
    assert isinstance(error.__cause__, LLMTimeoutError)
    assert error.__cause__.kind == "stall"


async def test_no_first_token_times_out(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script("/v1/messages", anthropic_stream([message_start(MODEL), Sleep(10)]))
    backend = make(
        anthropic_server, Timeouts(connect_s=1, first_token_s=0.3, stall_s=5, total_s=10)
    )
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, LLMTimeoutError)
    assert error.kind == "first_token"


async def test_closing_the_consumer_closes_the_stream(anthropic_server: FakeAnthropic) -> None:
    blocks = text_block(0, "Hi", chunks=1)
    anthropic_server.script(
        "/v1/messages", anthropic_stream([message_start(MODEL), *blocks[:3], Hang()])
    )
    backend = make(anthropic_server, Timeouts(connect_s=1, first_token_s=5, stall_s=30, total_s=60))
    stream = backend.stream_chat(REQUEST)
    assert await asyncio.wait_for(anext(stream), 5) == TextDelta(text="Hi")
    await asyncio.wait_for(stream.aclose(), 5)
    assert await anthropic_server.wait_disconnect(2.0)
    await backend.aclose()


async def test_list_models_uses_the_models_api(anthropic_server: FakeAnthropic) -> None:
    backend = make(anthropic_server)
    models = await backend.list_models()
    await backend.aclose()
    assert [m.name for m in models] == anthropic_server.models


async def test_list_models_falls_back_to_the_configured_model(
    anthropic_server: FakeAnthropic,
) -> None:
    anthropic_server.script("/v1/models", anthropic_error(500, "nope"))
    backend = make(anthropic_server)
    models = await backend.list_models()
    await backend.aclose()
    assert [m.name for m in models] == [MODEL]
