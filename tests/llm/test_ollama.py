"""OllamaBackend over real HTTP against the fake Ollama server."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest

from aria_desktop.adapters.llm import OllamaBackend, Timeouts
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
    BackendUnreachableError,
    CapabilityMissingError,
    LLMTimeoutError,
    MalformedResponseError,
    ModelNotFoundError,
    ServerError,
    StreamInterruptedError,
)
from tests.fakes import Drop, FakeOllama, Hang, Send, Sleep, blackhole_port, closed_port
from tests.fakes.ollama_server import (
    chat_line,
    done_line,
    ollama_error,
    ollama_stream,
    ollama_text,
    ollama_tool_calls,
    text_steps,
)
from tests.llm.conftest import FAST, REQUEST, collect, collect_until_error, text_of


def make(server: FakeOllama, timeouts: Timeouts = FAST, **kwargs: object) -> OllamaBackend:
    return OllamaBackend(base_url=server.url, model="llama3.2", timeouts=timeouts, **kwargs)  # type: ignore[arg-type]


async def test_streams_text_and_ends_with_usage_and_stop_reason(ollama_server: FakeOllama) -> None:
    ollama_server.script(
        "/api/chat",
        ollama_text("Hello there, human.", chunks=5, prompt_eval_count=30, eval_count=6),
    )
    backend = make(ollama_server)
    chunks = await collect(backend.stream_chat(REQUEST))
    await backend.aclose()

    assert [type(c) for c in chunks] == [TextDelta] * 5 + [StreamEnd]
    assert text_of(chunks) == "Hello there, human."
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    assert (end.backend, end.model, end.stop_reason) == ("ollama", "llama3.2", "stop")
    assert end.locality == backend.locality == "local"
    assert (end.usage.input_tokens, end.usage.output_tokens) == (30, 6)


async def test_request_body_follows_ollama_chat_format(ollama_server: FakeOllama) -> None:
    call = ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo"})
    request = ChatRequest(
        messages=(
            ChatMessage(role="system", content="Be brief."),
            ChatMessage(role="user", content="Weather?"),
            ChatMessage(role="assistant", content="", tool_calls=(call,)),
            ChatMessage(
                role="tool", content='{"temp": 3}', tool_call_id="call_1", name="get_weather"
            ),
        ),
        tools=(
            ToolSpec(name="get_weather", description="Weather now", parameters={"type": "object"}),
        ),
        max_tokens=256,
        temperature=0.2,
    )
    backend = make(ollama_server, keep_alive="30m")
    await collect(backend.stream_chat(request))
    await backend.aclose()

    (sent,) = ollama_server.requests_to("/api/chat")
    body = sent.json()
    assert body["model"] == "llama3.2"
    assert body["stream"] is True
    assert body["keep_alive"] == "30m"
    assert body["options"] == {"num_predict": 256, "temperature": 0.2}
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}],
        },
        {"role": "tool", "content": '{"temp": 3}', "tool_name": "get_weather"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather now",
                "parameters": {"type": "object"},
            },
        }
    ]


async def test_keep_alive_none_is_not_sent(ollama_server: FakeOllama) -> None:
    backend = make(ollama_server, keep_alive=None)
    await collect(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert "keep_alive" not in ollama_server.requests_to("/api/chat")[0].json()


async def test_tool_calls_arrive_whole_with_generated_ids(ollama_server: FakeOllama) -> None:
    ollama_server.script(
        "/api/chat",
        ollama_tool_calls([("get_weather", {"city": "Oslo"}), ("get_time", {})], text="Checking."),
    )
    backend = make(ollama_server)
    chunks = await collect(backend.stream_chat(REQUEST))
    await backend.aclose()

    calls = [c.call for c in chunks if isinstance(c, ToolCallChunk)]
    assert [(c.name, c.arguments) for c in calls] == [
        ("get_weather", {"city": "Oslo"}),
        ("get_time", {}),
    ]
    assert all(c.id.startswith("call_") and len(c.id) > 8 for c in calls)
    assert calls[0].id != calls[1].id
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    assert end.stop_reason == "tool_use"


async def test_tool_call_ids_from_the_server_are_kept(ollama_server: FakeOllama) -> None:
    ollama_server.script("/api/chat", ollama_tool_calls([("get_time", {})], with_ids=True))
    backend = make(ollama_server)
    chunks = await collect(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert [c.call.id for c in chunks if isinstance(c, ToolCallChunk)] == ["call_fake0"]


async def test_mid_stream_error_line_before_text_is_a_retryable_server_error(
    ollama_server: FakeOllama,
) -> None:
    ollama_server.script(
        "/api/chat",
        ollama_stream([Send(b'{"error": "an error was encountered while running the model"}\n')]),
    )
    backend = make(ollama_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert chunks == []
    assert isinstance(error, ServerError)
    assert error.retryable


async def test_mid_stream_error_line_after_text_is_an_interruption_with_partial_text(
    ollama_server: FakeOllama,
) -> None:
    ollama_server.script(
        "/api/chat",
        ollama_stream(
            [*text_steps("Half an ans", chunks=2), Send(b'{"error": "model crashed"}\n')]
        ),
    )
    backend = make(ollama_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert text_of(chunks) == "Half an ans"
    assert isinstance(error, StreamInterruptedError)
    assert error.partial_text == "Half an ans"
    assert not error.retryable


async def test_stream_cut_after_text_raises_interrupted_with_partial_text(
    ollama_server: FakeOllama,
) -> None:
    ollama_server.script("/api/chat", ollama_stream([*text_steps("Once upon", chunks=3), Drop()]))
    backend = make(ollama_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, StreamInterruptedError)
    assert error.partial_text == "Once upon" == text_of(chunks)
    assert not error.retryable


async def test_stream_cut_before_any_text_is_retryable(ollama_server: FakeOllama) -> None:
    ollama_server.script("/api/chat", ollama_stream([Send(b""), Drop()]))
    backend = make(ollama_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert chunks == []
    assert error is not None
    assert not isinstance(error, StreamInterruptedError)
    assert getattr(error, "retryable", False)


async def test_stream_ending_without_done_line_is_malformed(ollama_server: FakeOllama) -> None:
    ollama_server.script("/api/chat", ollama_stream([]))
    backend = make(ollama_server)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, MalformedResponseError)


async def test_malformed_json_line_raises_malformed_response(ollama_server: FakeOllama) -> None:
    ollama_server.script("/api/chat", ollama_stream([Send(b"this is not json\n")]))
    backend = make(ollama_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert chunks == []
    assert isinstance(error, MalformedResponseError)
    assert error.retryable


async def test_truncated_tool_call_line_never_yields_a_tool_call(ollama_server: FakeOllama) -> None:
    whole = chat_line(
        "llama3.2", "", [{"function": {"name": "rm", "arguments": {"path": "/tmp/x"}}}]
    )
    ollama_server.script("/api/chat", ollama_stream([Send(whole[: len(whole) // 2]), Drop()]))
    backend = make(ollama_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert not any(isinstance(c, ToolCallChunk) for c in chunks)
    assert isinstance(error, MalformedResponseError | BackendUnreachableError)


async def test_tool_call_with_string_arguments_that_are_not_json_is_malformed(
    ollama_server: FakeOllama,
) -> None:
    line = chat_line("llama3.2", "", [{"function": {"name": "rm", "arguments": '{"path": '}}])
    ollama_server.script("/api/chat", ollama_stream([Send(line), Send(done_line("llama3.2"))]))
    backend = make(ollama_server)
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert not any(isinstance(c, ToolCallChunk) for c in chunks)
    assert isinstance(error, MalformedResponseError)


async def test_huge_output_is_streamed_completely(ollama_server: FakeOllama) -> None:
    text = "".join(f"word{i} " for i in range(40_000))  # ≈ 330 kB
    ollama_server.script("/api/chat", ollama_text(text, chunks=8_000))
    backend = make(ollama_server)
    chunks = await collect(backend.stream_chat(REQUEST), timeout_s=20)
    await backend.aclose()
    assert text_of(chunks) == text
    assert sum(isinstance(c, TextDelta) for c in chunks) == 8_000
    assert isinstance(chunks[-1], StreamEnd)


# --- HTTP errors ----------------------------------------------------------------------------------


async def test_missing_model_is_model_not_found_with_pull_hint(ollama_server: FakeOllama) -> None:
    ollama_server.script(
        "/api/chat", ollama_error(404, 'model "llama3.2" not found, try pulling it first')
    )
    backend = make(ollama_server)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, ModelNotFoundError)
    assert error.status == 404
    assert not error.retryable
    assert "ollama pull llama3.2" in error.hint


async def test_model_without_tool_support_is_capability_missing(ollama_server: FakeOllama) -> None:
    ollama_server.script(
        "/api/chat", ollama_error(400, "registry.ollama.ai/library/gemma:2b does not support tools")
    )
    backend = make(ollama_server)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, CapabilityMissingError)


# --- timeouts ---------------------------------------------------------------------------------


async def test_refused_connection_is_unreachable_with_ollama_serve_hint() -> None:
    with closed_port() as port:
        backend = OllamaBackend(base_url=f"http://127.0.0.1:{port}", model="m", timeouts=FAST)
        _, error = await collect_until_error(backend.stream_chat(REQUEST))
        await backend.aclose()
    assert isinstance(error, BackendUnreachableError)
    assert error.retryable
    assert "ollama serve" in error.hint
    assert f":{port}" in error.hint


async def test_connect_timeout_when_the_host_never_answers() -> None:
    timeouts = Timeouts(connect_s=0.3, first_token_s=5.0, stall_s=5.0, total_s=10.0)
    with blackhole_port() as port:
        backend = OllamaBackend(base_url=f"http://127.0.0.1:{port}", model="m", timeouts=timeouts)
        _, error = await collect_until_error(backend.stream_chat(REQUEST))
        await backend.aclose()
    assert isinstance(error, LLMTimeoutError)
    assert error.kind == "connect"  # the 0.3 s connect limit fired, not the 10 s total


async def test_first_token_timeout_when_nothing_arrives(ollama_server: FakeOllama) -> None:
    ollama_server.script("/api/chat", ollama_stream([Sleep(10), *text_steps("late")]))
    backend = make(ollama_server, Timeouts(connect_s=1, first_token_s=0.3, stall_s=5, total_s=10))
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, LLMTimeoutError)
    assert error.kind == "first_token"  # the 0.3 s first-token limit, not the 10 s total
    assert not error.retryable  # the full limit was spent: fall back rather than wait again


async def test_stall_timeout_mid_stream_interrupts_with_partial_text(
    ollama_server: FakeOllama,
) -> None:
    ollama_server.script("/api/chat", ollama_stream([*text_steps("So far", chunks=2), Hang()]))
    backend = make(ollama_server, Timeouts(connect_s=1, first_token_s=5, stall_s=0.3, total_s=10))
    chunks, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert text_of(chunks) == "So far"
    assert isinstance(error, StreamInterruptedError)
    assert error.partial_text == "So far"
    assert isinstance(error.__cause__, LLMTimeoutError)
    assert error.__cause__.kind == "stall"


async def test_total_timeout_bounds_a_slow_but_steady_reply(ollama_server: FakeOllama) -> None:
    ollama_server.script("/api/chat", ollama_text("x" * 100, chunks=100, delay_s=0.05))
    backend = make(ollama_server, Timeouts(connect_s=1, first_token_s=5, stall_s=1, total_s=0.6))
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, StreamInterruptedError)
    assert isinstance(error.__cause__, LLMTimeoutError)
    assert error.__cause__.kind == "total"  # cut at 0.6 s: the whole reply takes 5 s


async def test_first_token_timeout_covers_delayed_headers(ollama_server: FakeOllama) -> None:
    # Ollama sends headers only with the first chunk (e.g. while loading the model).
    ollama_server.script("/api/chat", ollama_stream([Hang()]))
    backend = make(ollama_server, Timeouts(connect_s=1, first_token_s=0.3, stall_s=5, total_s=10))
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, LLMTimeoutError)
    assert error.kind == "first_token"


# --- cancellation ----------------------------------------------------------------------------


async def test_closing_the_consumer_closes_the_http_stream(ollama_server: FakeOllama) -> None:
    ollama_server.script("/api/chat", ollama_stream([*text_steps("Hi", chunks=1), Hang()]))
    backend = make(ollama_server, Timeouts(connect_s=1, first_token_s=5, stall_s=30, total_s=60))
    stream = backend.stream_chat(REQUEST)
    first = await asyncio.wait_for(anext(stream), 5)
    assert first == TextDelta(text="Hi")
    await asyncio.wait_for(stream.aclose(), 5)
    assert await ollama_server.wait_disconnect(2.0)
    await backend.aclose()


async def test_cancelling_the_consuming_task_closes_the_http_stream(
    ollama_server: FakeOllama,
) -> None:
    ollama_server.script("/api/chat", ollama_stream([*text_steps("Hi", chunks=1), Hang()]))
    backend = make(ollama_server, Timeouts(connect_s=1, first_token_s=5, stall_s=30, total_s=60))
    got_first = asyncio.Event()

    async def consume() -> None:
        async for _ in backend.stream_chat(REQUEST):
            got_first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_first.wait(), 5)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)
    assert await ollama_server.wait_disconnect(2.0)
    await backend.aclose()


# --- models ----------------------------------------------------------------------------------


async def test_list_models_reads_api_tags(ollama_server: FakeOllama) -> None:
    backend = make(ollama_server)
    models = await backend.list_models()
    await backend.aclose()
    assert [m.name for m in models] == ["llama3.2:latest", "qwen3:8b"]
    assert models[0].size_bytes == 2019393189
    assert models[0].family == "llama"
    assert models[0].parameter_size == "3.2B"


async def test_list_models_unreachable_raises_with_hint() -> None:
    with closed_port() as port:
        backend = OllamaBackend(base_url=f"http://127.0.0.1:{port}", model="m", timeouts=FAST)
        with pytest.raises(BackendUnreachableError, match="cannot connect"):
            await backend.list_models()
        await backend.aclose()


async def test_shared_client_is_not_closed_by_the_backend(ollama_server: FakeOllama) -> None:
    import httpx

    async with httpx.AsyncClient() as client:
        backend = make(ollama_server, client=client)
        await collect(backend.stream_chat(REQUEST))
        await backend.aclose()
        assert not client.is_closed
    assert json.loads(ollama_server.requests_to("/api/chat")[0].body)["model"] == "llama3.2"
