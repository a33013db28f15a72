"""Replies through the router keep one pooled connection to the model server.

The router stops reading at ``StreamEnd``; the backend reads the body's end before closing so
httpx can keep the connection (a new TCP connect per turn was part of what ARIA added to the
first streamed chunk; ARCHITECTURE.md: first-chunk latency). A reply left unfinished must
still close its connection: that is how the model server learns to stop generating.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from aria_desktop.adapters.llm import OllamaBackend, OpenAICompatBackend, Router
from aria_desktop.adapters.llm.breaker import RetryPolicy
from aria_desktop.domain.chat import StreamEnd, TextDelta
from aria_desktop.domain.errors import NoBackendError
from tests.fakes import FakeOllama, FakeOpenAI, Hang, Reply, Send, Vanish
from tests.fakes.ollama_server import done_line, ollama_stream, ollama_text, text_steps
from tests.fakes.openai_server import openai_text
from tests.llm.conftest import FAST, REQUEST, collect, text_of


def _router(backend: object, retry: RetryPolicy | None = None) -> Router:
    return Router({"main": backend}, {"chat": ["main"]}, retry=retry)  # type: ignore[dict-item]


async def test_ollama_replies_through_the_router_share_one_connection(
    ollama_server: FakeOllama,
) -> None:
    backend = OllamaBackend(base_url=ollama_server.url, model="llama3.2", timeouts=FAST)
    router = _router(backend)
    texts = []
    for n in range(3):
        ollama_server.script("/api/chat", ollama_text(f"Reply number {n}.", chunks=3))
        texts.append(text_of(await collect(router.stream(REQUEST))))
    await backend.aclose()

    assert texts == ["Reply number 0.", "Reply number 1.", "Reply number 2."]
    assert ollama_server.connections == 1


async def test_openai_compatible_replies_through_the_router_share_one_connection(
    openai_server: FakeOpenAI,
) -> None:
    backend = OpenAICompatBackend(
        base_url=openai_server.url, model="smollm2", api_key=None, timeouts=FAST
    )
    router = _router(backend)
    for n in range(3):
        openai_server.script("/v1/chat/completions", openai_text(f"Answer {n}.", chunks=2))
        chunks = await collect(router.stream(REQUEST))
        assert text_of(chunks) == f"Answer {n}."
        assert isinstance(chunks[-1], StreamEnd)
    await backend.aclose()

    assert openai_server.connections == 1


async def test_a_reply_left_midway_still_closes_its_connection(ollama_server: FakeOllama) -> None:
    ollama_server.script(
        "/api/chat", ollama_stream([*text_steps("Never finished", chunks=2), Hang()])
    )
    backend = OllamaBackend(base_url=ollama_server.url, model="llama3.2", timeouts=FAST)
    stream = _router(backend).stream(REQUEST)
    async with contextlib.aclosing(stream):
        async for chunk in stream:
            assert isinstance(chunk, TextDelta)
            break

    assert await ollama_server.wait_disconnect()
    await backend.aclose()


async def test_a_server_that_keeps_the_body_open_after_done_costs_only_its_connection(
    ollama_server: FakeOllama,
) -> None:
    # The end marker arrives but the body never ends: the reply is whole, the wait for the
    # body's end is bounded, and that connection is dropped instead of pooled.
    steps = [*text_steps("Whole reply", chunks=2), Send(done_line("llama3.2")), Hang()]
    ollama_server.script("/api/chat", ollama_stream(steps))
    ollama_server.script("/api/chat", ollama_text("Next one."))
    backend = OllamaBackend(base_url=ollama_server.url, model="llama3.2", timeouts=FAST)
    router = _router(backend)

    first = await asyncio.wait_for(collect(router.stream(REQUEST)), 3.0)
    assert await ollama_server.wait_disconnect()
    second = await collect(router.stream(REQUEST))
    await backend.aclose()

    assert (text_of(first), text_of(second)) == ("Whole reply", "Next one.")
    assert isinstance(first[-1], StreamEnd)
    assert ollama_server.connections == 2


async def test_a_turn_cancelled_while_the_body_end_is_awaited_still_closes_the_connection(
    ollama_server: FakeOllama,
) -> None:
    steps = [*text_steps("Whole reply", chunks=1), Send(done_line("llama3.2")), Hang()]
    ollama_server.script("/api/chat", ollama_stream(steps))
    backend = OllamaBackend(base_url=ollama_server.url, model="llama3.2", timeouts=FAST)
    ended = asyncio.Event()

    async def consume() -> None:
        async for chunk in _router(backend).stream(REQUEST):
            if isinstance(chunk, StreamEnd):
                ended.set()  # the next step of the loop waits for the body's end

    consumer = asyncio.create_task(consume())
    await asyncio.wait_for(ended.wait(), 5)
    consumer.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await consumer

    assert await ollama_server.wait_disconnect(timeout_s=0.3)
    await backend.aclose()


async def test_a_request_lost_on_a_stale_pooled_connection_is_sent_again_at_once(
    openai_server: FakeOpenAI,
) -> None:
    # The server closes the kept-alive connection just as the next turn's request arrives
    # (HTTP/1.1 allows it; a real llama-server did it in CI): nothing was answered, so the
    # request goes out once more on a new connection, with no retry policy behind it.
    backend = OpenAICompatBackend(
        base_url=openai_server.url, model="smollm2", api_key=None, timeouts=FAST
    )
    router = _router(backend, RetryPolicy(max_attempts=1))
    openai_server.script("/v1/chat/completions", openai_text("First.", chunks=2))
    assert text_of(await collect(router.stream(REQUEST))) == "First."
    openai_server.script(
        "/v1/chat/completions", Reply(steps=[Vanish()]), openai_text("Second.", chunks=2)
    )
    assert text_of(await collect(router.stream(REQUEST))) == "Second."
    await backend.aclose()

    chats = [r for r in openai_server.requests if r.path == "/v1/chat/completions"]
    assert len(chats) == 3  # the lost one, then the same request again
    assert chats[1].body == chats[2].body
    assert openai_server.connections == 2


async def test_a_server_that_closes_unanswered_twice_is_reported_unreachable(
    ollama_server: FakeOllama,
) -> None:
    ollama_server.script("/api/chat", Reply(steps=[Vanish()]), Reply(steps=[Vanish()]))
    backend = OllamaBackend(base_url=ollama_server.url, model="llama3.2", timeouts=FAST)
    router = _router(backend, RetryPolicy(max_attempts=1))
    with pytest.raises(NoBackendError, match="backend_unreachable"):
        await collect(router.stream(REQUEST))
    await backend.aclose()

    assert len([r for r in ollama_server.requests if r.path == "/api/chat"]) == 2
