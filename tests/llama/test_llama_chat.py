"""ARIA's OpenAI-compatible and Anthropic backends against a real llama-server and real model.

What a scripted server cannot prove: that the real server's SSE framing, chunking, usage
reporting and stop behaviour are the ones ARIA's parsers expect.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from aria_desktop.adapters.llm import Timeouts
from aria_desktop.adapters.llm.openai_compat import OpenAICompatBackend
from aria_desktop.adapters.llm.router import ChatBackend
from aria_desktop.domain.chat import ChatMessage, ChatRequest, LLMChunk, StreamEnd, TextDelta
from tests.llama.backends import MODEL, anthropic_backend, openai_backend
from tests.llama.conftest import StartLlama
from tests.llama.server import ENDLESS, LlamaServer

pytestmark = [pytest.mark.llama, pytest.mark.slow]

BACKENDS: dict[str, Callable[[LlamaServer], ChatBackend]] = {
    "openai": openai_backend,
    "anthropic": anthropic_backend,
}


def prompt(text: str, *, max_tokens: int) -> ChatRequest:
    return ChatRequest(
        messages=(
            ChatMessage(role="system", content="You are a helpful assistant."),
            ChatMessage(role="user", content=text),
        ),
        max_tokens=max_tokens,
        temperature=0.0,
    )


async def collect(backend: ChatBackend, request: ChatRequest) -> list[LLMChunk]:
    stream = backend.stream_chat(request)
    chunks: list[LLMChunk] = []
    async with asyncio.timeout(60):
        async for chunk in stream:
            chunks.append(chunk)
    await backend.aclose()
    return chunks


@pytest.mark.parametrize("protocol", sorted(BACKENDS))
async def test_streamed_turn_arrives_in_pieces_with_usage(
    start_llama: StartLlama, protocol: str
) -> None:
    # A fresh server: its prompt cache is empty, so the Messages API's ``input_tokens`` (which
    # excludes ``cache_read_input_tokens``) counts the whole prompt.
    llama = start_llama()
    backend = BACKENDS[protocol](llama)
    request = prompt("Write a long story about the sea and a lighthouse.", max_tokens=24)
    chunks = await collect(backend, request)

    deltas = [c for c in chunks if isinstance(c, TextDelta)]
    ends = [c for c in chunks if isinstance(c, StreamEnd)]
    assert len(deltas) >= 5, chunks  # streamed token by token, not one block at the end
    assert "".join(d.text for d in deltas).strip()
    assert len(ends) == 1
    assert chunks[-1] is ends[0]
    end = ends[0]
    # The reply hit max_tokens: the server counted exactly that many generated tokens.
    assert end.stop_reason == "length"
    assert end.usage.output_tokens == 24
    # The templated prompt is tens of tokens; the server's own tokenizer counts the user text.
    user_tokens = len(llama.post("/tokenize", {"content": request.messages[1].content})["tokens"])
    assert end.usage.input_tokens > user_tokens
    assert end.backend == backend.name


async def test_closing_the_stream_frees_the_server_for_the_next_request(
    start_llama: StartLlama,
) -> None:
    # One slot (-np 1) and no end-of-stream (--ignore-eos): if the abandoned generation went on,
    # the next request would queue behind ~1,900 more tokens (tens of seconds) and miss its 10 s
    # first-token deadline.
    llama = start_llama(extra_args=ENDLESS)
    backend = openai_backend(llama)
    long = prompt("Count from 1 to 2000, one number per line.", max_tokens=1900)
    stream = backend.stream_chat(long)
    pieces = 0
    async with asyncio.timeout(60):
        async for chunk in stream:
            pieces += isinstance(chunk, TextDelta)
            if pieces == 3:
                break
    await stream.aclose()

    quick = OpenAICompatBackend(
        base_url=llama.url,
        model=MODEL,
        api_key=None,
        timeouts=Timeouts(connect_s=2.0, first_token_s=10.0, stall_s=10.0, total_s=20.0),
    )
    chunks = await collect(quick, prompt("Say hello.", max_tokens=8))
    await backend.aclose()
    assert any(isinstance(c, TextDelta) for c in chunks)
    slots = llama.get("/slots")
    assert [slot["is_processing"] for slot in slots] == [False]


def test_props_and_tokenize_report_the_context_and_count_tokens(llama: LlamaServer) -> None:
    # What part (B) reads to learn the context window: the server's own answer, as configured.
    props = llama.get("/props")
    assert props["default_generation_settings"]["n_ctx"] == llama.context
    tokens = llama.post("/tokenize", {"content": "Hello world, hello world."})["tokens"]
    assert 3 <= len(tokens) <= 12
    assert all(isinstance(t, int) for t in tokens)
