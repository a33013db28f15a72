"""A long conversation fitted to a real llama-server's window, and JSON from a real model.

What a scripted server cannot prove: that the window ARIA learns from ``/props`` is the one the
server enforces, that the fitted prompt reaches the model whole (the server renders and counts
it itself), and that the documented ``response_format`` ``json_schema`` shape is the one the
real server turns into a grammar.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncGenerator
from typing import Any

import pytest

from aria_desktop.adapters.llm import RetryPolicy, Router
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.adapters.llm.openai_compat import OpenAICompatBackend, build_chat_body
from aria_desktop.core import schema as json_schema
from aria_desktop.core.structured import structured_reply
from aria_desktop.domain.chat import (
    ChatMessage,
    ChatRequest,
    LLMChunk,
    PromptBudgeted,
    StreamEnd,
    TextDelta,
    ToolCallChunk,
    ToolChoice,
    recall_message,
)
from tests.llama.backends import LLAMA_TIMEOUTS, MODEL, WEATHER
from tests.llama.conftest import StartLlama
from tests.llama.server import LlamaServer

pytestmark = [pytest.mark.llama, pytest.mark.slow]

#: Small, so the over-long prompt costs the CPU model seconds, not minutes.
WINDOW = 1024
#: Reading a prompt near the window's size takes a CPU model a while on a loaded machine.
SLOW_START = dataclasses.replace(LLAMA_TIMEOUTS, first_token_s=120.0, total_s=180.0)
SYSTEM_MARK = "You are ARIA, a desktop assistant. Rule zero: answer briefly."
NEWEST = "What colour was the lighthouse in the story?"


class RecordingOpenAI(OpenAICompatBackend):
    """ARIA's OpenAI-compatible backend, keeping the request the router hands it."""

    sent: list[ChatRequest]

    def stream_chat(self, request: ChatRequest) -> AsyncGenerator[LLMChunk, None]:
        self.sent.append(request)
        return super().stream_chat(request)


class RecordingAnthropic(AnthropicBackend):
    """ARIA's Anthropic backend (llama-server's Messages API), keeping what it is handed."""

    sent: list[ChatRequest]

    def stream_chat(self, request: ChatRequest) -> AsyncGenerator[LLMChunk, None]:
        self.sent.append(request)
        return super().stream_chat(request)


def recording_backend(protocol: str, server: LlamaServer) -> RecordingOpenAI | RecordingAnthropic:
    backend: RecordingOpenAI | RecordingAnthropic
    if protocol == "openai":
        backend = RecordingOpenAI(
            base_url=server.url, model=MODEL, api_key=None, timeouts=SLOW_START, name="llama"
        )
    else:
        backend = RecordingAnthropic(
            api_key="no-key-needed",
            model=MODEL,
            base_url=server.url,
            timeouts=SLOW_START,
            name="llama",
        )
    backend.sent = []
    return backend


def long_conversation() -> ChatRequest:
    """60 turns of history, 20 recalled memories and a new question: far over the window."""
    history: list[ChatMessage] = []
    for n in range(60):
        history.append(
            ChatMessage(
                role="user",
                content=f"Turn {n}: tell me more about the lighthouse keeper and the sea, "
                "the storm that night, and what the keeper saw from the lamp room.",
            )
        )
        history.append(
            ChatMessage(
                role="assistant",
                content=f"Reply {n}: the keeper climbed the stairs, trimmed the wick and watched "
                "the waves break white on the rocks below while the gulls went quiet.",
            )
        )
    memories = recall_message(
        "<recalled_memories>",
        [f"- memory {n}: the user likes tea number {n} in the afternoon" for n in range(20)],
        "</recalled_memories>",
    )
    return ChatRequest(
        messages=(
            ChatMessage(role="system", content=SYSTEM_MARK),
            memories,
            *history,
            ChatMessage(role="user", content=NEWEST),
        ),
        max_tokens=16,
        temperature=0.0,
    )


async def stream_all(router: Router, request: ChatRequest) -> list[LLMChunk]:
    chunks: list[LLMChunk] = []
    async with asyncio.timeout(240):
        async for chunk in router.stream(request, agent="chat"):
            chunks.append(chunk)
    return chunks


def served_prompt_tokens(server: LlamaServer, request: ChatRequest) -> tuple[str, int]:
    """The prompt the server builds from ``request`` with its own template, and its size."""
    messages = build_chat_body(request, model=MODEL)["messages"]
    prompt = server.post("/apply-template", {"messages": messages})["prompt"]
    assert isinstance(prompt, str)
    tokens = server.post("/tokenize", {"content": prompt})["tokens"]
    return prompt, len(tokens)


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_a_conversation_over_the_window_is_fitted_and_reaches_the_model_whole(
    start_llama: StartLlama, protocol: str
) -> None:
    # A fresh server: no prompt cache, so the reported input tokens count the whole prompt.
    server = start_llama(context=WINDOW)
    backend = recording_backend(protocol, server)
    router = Router({"llama": backend}, {"chat": ["llama"]}, retry=RetryPolicy(max_attempts=1))
    try:
        facts = await backend.model_facts()
        assert facts.context_tokens == WINDOW  # learned from the server, not assumed

        chunks = await stream_all(router, long_conversation())
    finally:
        await router.aclose()

    fitted = [c for c in chunks if isinstance(c, PromptBudgeted)]
    assert fitted
    assert fitted[0].context_tokens == WINDOW
    assert fitted[0].dropped_messages > 0  # oldest history left out, by ARIA, knowingly
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    assert end.stop_reason in {"stop", "length"}

    (sent,) = backend.sent
    prompt, size = served_prompt_tokens(server, sent)
    assert SYSTEM_MARK in prompt  # the start and the end both survive
    assert NEWEST in prompt
    assert size + sent.max_tokens <= WINDOW  # it fits: the server has nothing to cut
    # The server processed all of that prompt: a server cutting it would report far fewer. (The
    # Messages API joins system text its own way: a few tokens of template differ from the
    # OpenAI form rendered above.)
    assert end.usage.input_tokens >= size - 8


async def test_the_anthropic_backend_on_another_messages_server_asks_it_for_its_window(
    start_llama: StartLlama,
) -> None:
    # The default model name is a Claude one; the server is not Anthropic's: its /props decide.
    server = start_llama(context=WINDOW)
    backend = AnthropicBackend(
        api_key="no-key-needed",
        model="claude-sonnet-4-5",
        base_url=server.url,
        timeouts=LLAMA_TIMEOUTS,
        name="llama_messages",
    )
    try:
        facts = await backend.model_facts()
    finally:
        await backend.aclose()
    assert facts.context_tokens == WINDOW  # not Claude's 200k
    assert "tools" not in facts.capabilities  # nothing configured, nothing assumed


PERSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "city": {"type": "string"},
        "age": {"type": "integer"},
    },
    "required": ["name", "city", "age"],
    "additionalProperties": False,
}


async def test_structured_reply_from_the_real_model_matches_its_schema(
    llama: LlamaServer,
) -> None:
    backend = recording_backend("openai", llama)
    router = Router({"llama": backend}, {"chat": ["llama"]}, retry=RetryPolicy(max_attempts=1))
    request = ChatRequest(
        messages=(
            ChatMessage(role="system", content="Extract the person as JSON."),
            ChatMessage(role="user", content="Maria is 34 and lives in Lisbon."),
        ),
        max_tokens=80,
        temperature=0.0,
    )
    try:
        value = await structured_reply(
            router, request, schema=PERSON_SCHEMA, name="person", agent="chat"
        )
    finally:
        await router.aclose()

    assert json_schema.validate(value, PERSON_SCHEMA) == []
    # The documented OpenAI shape went out (llama-server turns it into a grammar).
    (sent,) = backend.sent  # the server's grammar made the first answer valid: no repair
    assert sent.response_format is not None
    assert sent.response_format.schema == PERSON_SCHEMA
    body = build_chat_body(sent, model=MODEL)
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == PERSON_SCHEMA
    json.dumps(value)  # a plain JSON value, ready to store


async def test_a_required_tool_call_round_trip_with_a_model_without_native_tool_calls(
    llama: LlamaServer,
) -> None:
    # SmolLM2's template has no tools (/props), so the model never calls one natively; a
    # required call is asked for as structured output and read back as a real, validated call.
    backend = recording_backend("openai", llama)
    router = Router({"llama": backend}, {"chat": ["llama"]}, retry=RetryPolicy(max_attempts=1))
    ask = (
        ChatMessage(role="system", content="You are a helpful assistant with tools."),
        ChatMessage(role="user", content="What is the weather in Paris?"),
    )
    try:
        first = await stream_all(
            router,
            ChatRequest(
                messages=ask,
                tools=(WEATHER,),
                tool_choice=ToolChoice(mode="required"),
                max_tokens=60,
                temperature=0.0,
            ),
        )
        calls = [c.call for c in first if isinstance(c, ToolCallChunk)]
        assert len(calls) == 1
        call = calls[0]
        assert call.name == "get_weather"
        assert isinstance(call.arguments["city"], str)
        assert not [c for c in first if isinstance(c, TextDelta)]  # the JSON is never shown
        assert "tools" not in (await backend.model_facts()).capabilities
        assert backend.sent[0].response_format is not None  # asked as JSON, not native tools

        result = ChatMessage(
            role="tool",
            tool_call_id=call.id,
            name="get_weather",
            content='{"city": "Paris", "sky": "sunny", "celsius": 21}',
        )
        second = await stream_all(
            router,
            ChatRequest(
                messages=(
                    *ask,
                    ChatMessage(role="assistant", content="", tool_calls=(call,)),
                    result,
                ),
                tools=(WEATHER,),
                max_tokens=40,
                temperature=0.0,
            ),
        )
    finally:
        await router.aclose()
    answer = "".join(c.text for c in second if isinstance(c, TextDelta))
    assert answer.strip()  # the model answered in words from the tool's result
    end = second[-1]
    assert isinstance(end, StreamEnd)
    assert end.stop_reason in {"stop", "length"}
