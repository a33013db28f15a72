"""OpenAICompatBackend over real HTTP against the fake OpenAI-compatible server."""

from __future__ import annotations

import asyncio

import pytest

from aria_desktop.adapters.llm import OpenAICompatBackend, Timeouts
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
    ContextOverflowError,
    LLMTimeoutError,
    MalformedResponseError,
    RateLimitedError,
    StreamInterruptedError,
)
from tests.fakes import Drop, FakeOpenAI, Hang, Send, Sleep
from tests.fakes.http_server import REMOTE_URL, proxy_env
from tests.fakes.openai_server import (
    DONE,
    chunk,
    finish,
    openai_error,
    openai_stream,
    openai_text,
    text_steps,
    tool_call_steps,
)
from tests.llm.conftest import FAST, REQUEST, collect, collect_until_error, text_of


def make(
    server: FakeOpenAI, timeouts: Timeouts = FAST, api_key: str | None = "sk-local-test"
) -> OpenAICompatBackend:
    return OpenAICompatBackend(
        base_url=server.url, model="smollm2", api_key=api_key, timeouts=timeouts
    )


async def test_streams_text_with_usage_from_the_final_chunk(openai_server: FakeOpenAI) -> None:
    openai_server.script("/v1/chat/completions", openai_text("Bonjour tout le monde", chunks=3))
    backend = make(openai_server)
    chunks = await collect(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert text_of(chunks) == "Bonjour tout le monde"
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    assert (end.backend, end.model, end.stop_reason) == ("openai", "smollm2", "stop")
    assert end.locality == backend.locality == "local"  # the test server is on 127.0.0.1
    assert (end.usage.input_tokens, end.usage.output_tokens) == (9, 5)


async def test_a_server_on_another_host_is_cloud_and_says_so_on_stream_end(
    openai_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in proxy_env(openai_server).items():
        monkeypatch.setenv(name, value)  # REMOTE_URL's traffic goes to the test server
    openai_server.script("/v1/chat/completions", openai_text("From afar.", chunks=2))
    backend = OpenAICompatBackend(base_url=REMOTE_URL, model="smollm2", api_key="", timeouts=FAST)
    chunks = await collect(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert text_of(chunks) == "From afar."
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    assert end.locality == backend.locality == "cloud"
    (sent,) = openai_server.requests_to("/v1/chat/completions")
    assert sent.headers["host"] == "models.example.test:8080"  # it went through the proxy


async def test_the_composition_root_can_state_the_locality(openai_server: FakeOpenAI) -> None:
    openai_server.script("/v1/chat/completions", openai_text("Hi."))
    backend = OpenAICompatBackend(
        base_url=openai_server.url, model="m", api_key=None, timeouts=FAST, locality="cloud"
    )
    chunks = await collect(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(chunks[-1], StreamEnd)
    assert chunks[-1].locality == "cloud"


async def test_request_uses_chat_completions_format_and_bearer_key(
    openai_server: FakeOpenAI,
) -> None:
    call = ToolCall(id="call_9", name="add", arguments={"a": 1})
    request = ChatRequest(
        messages=(
            ChatMessage(role="system", content="sys"),
            ChatMessage(role="user", content="add"),
            ChatMessage(role="assistant", content="", tool_calls=(call,)),
            ChatMessage(role="tool", content="2", tool_call_id="call_9", name="add"),
        ),
        tools=(ToolSpec(name="add", description="Adds", parameters={"type": "object"}),),
        max_tokens=64,
    )
    backend = OpenAICompatBackend(
        base_url=openai_server.url + "/v1/", model="smollm2", api_key="sk-abc", timeouts=FAST
    )
    await collect(backend.stream_chat(request))
    await backend.aclose()
    (sent,) = openai_server.requests_to("/v1/chat/completions")
    assert sent.headers["authorization"] == "Bearer sk-abc"
    body = sent.json()
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 64
    assert "temperature" not in body
    assert body["messages"][2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_9",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a": 1}'},
            }
        ],
    }
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_9", "content": "2"}
    assert body["tools"][0]["function"]["name"] == "add"


async def test_no_authorization_header_without_api_key(openai_server: FakeOpenAI) -> None:
    backend = make(openai_server, api_key=None)
    await collect(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert "authorization" not in openai_server.requests[0].headers


async def test_tool_call_fragments_are_assembled_and_yielded_at_finish(
    openai_server: FakeOpenAI,
) -> None:
    openai_server.script(
        "/v1/chat/completions",
        openai_stream(
            [
                *text_steps("Let me check.", chunks=2),
                *tool_call_steps(0, "get_weather", {"city": "Oslo", "unit": "C"}, pieces=5),
                *tool_call_steps(1, "get_time", {"tz": "CET"}, call_id="call_fake02", pieces=2),
                *finish("tool_calls"),
            ]
        ),
    )
    backend = make(openai_server)
    chunks = await collect(backend.stream_chat(REQUEST))
    await backend.aclose()
    calls = [c.call for c in chunks if isinstance(c, ToolCallChunk)]
    assert calls == [
        ToolCall(id="call_fake01", name="get_weather", arguments={"city": "Oslo", "unit": "C"}),
        ToolCall(id="call_fake02", name="get_time", arguments={"tz": "CET"}),
    ]
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    assert end.stop_reason == "tool_use"


async def test_tool_call_fragments_without_finish_are_never_yielded(
    openai_server: FakeOpenAI,
) -> None:
    openai_server.script(
        "/v1/chat/completions",
        openai_stream([*tool_call_steps(0, "delete_file", {"path": "/home/me/x"}, pieces=4), DONE]),
    )
    backend = make(openai_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert not any(isinstance(c, ToolCallChunk) for c in chunks)
    assert isinstance(error, MalformedResponseError)
    assert "unfinished tool call" in str(error)


async def test_tool_call_cut_by_a_dropped_connection_is_never_yielded(
    openai_server: FakeOpenAI,
) -> None:
    steps = tool_call_steps(0, "delete_file", {"path": "/home/me/x"}, pieces=4)
    openai_server.script("/v1/chat/completions", openai_stream([*steps[:3], Drop()]))
    backend = make(openai_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert chunks == []
    assert error is not None
    assert getattr(error, "retryable", False)


async def test_unparsable_tool_arguments_are_malformed_not_yielded(
    openai_server: FakeOpenAI,
) -> None:
    openai_server.script(
        "/v1/chat/completions",
        openai_stream([*tool_call_steps(0, "f", '{"a": 1,,}'), *finish("tool_calls")]),
    )
    backend = make(openai_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert not any(isinstance(c, ToolCallChunk) for c in chunks)
    assert isinstance(error, MalformedResponseError)


async def test_malformed_sse_data_is_malformed_response(openai_server: FakeOpenAI) -> None:
    openai_server.script("/v1/chat/completions", openai_stream([Send(b"data: {oops\n\n")]))
    backend = make(openai_server)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, MalformedResponseError)


async def test_text_then_cut_is_interrupted_with_partial_text(openai_server: FakeOpenAI) -> None:
    openai_server.script(
        "/v1/chat/completions", openai_stream([*text_steps("The answer is", chunks=3), Drop()])
    )
    backend = make(openai_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, StreamInterruptedError)
    assert error.partial_text == "The answer is" == text_of(chunks)


async def test_mid_stream_error_event_is_translated(openai_server: FakeOpenAI) -> None:
    openai_server.script(
        "/v1/chat/completions",
        openai_stream([Send(b'data: {"error": {"message": "context length exceeded"}}\n\n')]),
    )
    backend = make(openai_server)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, ContextOverflowError)


async def test_rate_limit_status_carries_retry_after(openai_server: FakeOpenAI) -> None:
    openai_server.script("/v1/chat/completions", openai_error(429, "slow down", retry_after="7"))
    backend = make(openai_server)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, RateLimitedError)
    assert error.retry_after_s == 7.0
    assert error.retryable
    assert error.status == 429


async def test_bad_key_is_authentication_error_with_secret_hint(openai_server: FakeOpenAI) -> None:
    openai_server.script("/v1/chat/completions", openai_error(401, "invalid api key"))
    backend = make(openai_server)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, AuthenticationError)
    assert not error.retryable
    assert "set-secret openai_api_key" in error.hint
    assert "sk-local-test" not in str(error)


async def test_stall_before_first_token_times_out(openai_server: FakeOpenAI) -> None:
    openai_server.script("/v1/chat/completions", openai_stream([Sleep(10), *text_steps("x")]))
    backend = make(openai_server, Timeouts(connect_s=1, first_token_s=0.3, stall_s=5, total_s=10))
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, LLMTimeoutError)
    assert error.kind == "first_token"


async def test_closing_the_consumer_closes_the_sse_stream(openai_server: FakeOpenAI) -> None:
    openai_server.script("/v1/chat/completions", openai_stream([chunk({"content": "Hi"}), Hang()]))
    backend = make(openai_server, Timeouts(connect_s=1, first_token_s=5, stall_s=30, total_s=60))
    stream = backend.stream_chat(REQUEST)
    assert await asyncio.wait_for(anext(stream), 5) == TextDelta(text="Hi")
    await asyncio.wait_for(stream.aclose(), 5)
    assert await openai_server.wait_disconnect(2.0)
    await backend.aclose()


async def test_list_models_reads_v1_models(openai_server: FakeOpenAI) -> None:
    backend = make(openai_server)
    models = await backend.list_models()
    await backend.aclose()
    assert [m.name for m in models] == ["smollm2", "qwen2.5"]
    assert openai_server.requests[0].headers["authorization"] == "Bearer sk-local-test"
