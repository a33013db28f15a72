"""ARIA's tool-call history (an assistant's call and the tool's result) sent to a real server.

SmolLM2-135M never writes a tool call natively (its own template has no tools; with llama.cpp's
tool templates and ``tool_choice: required`` it still only writes prose, since the server's
grammar allows text before a call); the model-made half is tested in
``test_llama_fit_and_json.py``, where a required call is asked for as structured output. What
is checked here is the other half, through both protocols: the server accepts the call and
result as ARIA serialises them (OpenAI ``tool_calls`` with string arguments and a ``tool``
message; Anthropic ``tool_use``/``tool_result`` blocks) and the result reaches the prompt the
model reads.
"""

from __future__ import annotations

import asyncio

import pytest

from aria_desktop.adapters.llm.router import ChatBackend
from aria_desktop.domain.chat import (
    ChatMessage,
    ChatRequest,
    LLMChunk,
    StreamEnd,
    TextDelta,
    ToolCall,
)
from tests.llama.backends import WEATHER, anthropic_backend, openai_backend
from tests.llama.conftest import StartLlama

pytestmark = [pytest.mark.llama, pytest.mark.slow]
QUESTION = ChatMessage(role="user", content="What is the weather in Rome?")
CALL = ToolCall(id="call_1", name="get_weather", arguments={"city": "Rome"})
RESULT = "Rome: sunny, 24 degrees Celsius, light wind from the north-west, humidity 40 percent."


def request(*messages: ChatMessage) -> ChatRequest:
    return ChatRequest(
        messages=(ChatMessage(role="system", content="You are a helpful assistant."), *messages),
        tools=(WEATHER,),
        max_tokens=16,
        temperature=0.0,
    )


async def reply(backend: ChatBackend, req: ChatRequest) -> list[LLMChunk]:
    async with asyncio.timeout(60):
        return [chunk async for chunk in backend.stream_chat(req)]


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_tool_call_and_result_reach_the_real_model(
    start_llama: StartLlama, protocol: str
) -> None:
    # A fresh server per request: an empty prompt cache, so both protocols count the whole
    # prompt as input (the Messages API leaves cached tokens out of ``input_tokens``).
    make = openai_backend if protocol == "openai" else anthropic_backend
    history = (
        QUESTION,
        ChatMessage(role="assistant", content="", tool_calls=(CALL,)),
        ChatMessage(role="tool", content=RESULT, tool_call_id=CALL.id, name=CALL.name),
    )
    ends: list[StreamEnd] = []
    for messages in ((QUESTION,), history):
        backend = make(start_llama())
        chunks = await reply(backend, request(*messages))
        await backend.aclose()
        assert any(isinstance(c, TextDelta) for c in chunks)
        ends.extend(c for c in chunks if isinstance(c, StreamEnd))
    without, with_result = (end.usage.input_tokens for end in ends)
    # The tool's result (about 25 tokens) was rendered into the prompt the server evaluated.
    assert with_result >= without + 20, (without, with_result)
