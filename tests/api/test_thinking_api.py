"""Reasoning travels apart from the answer through every API: ARIA's own chat and messages,
the Ollama-compatible ``think``/``message.thinking`` and OpenAI-compatible
``reasoning_content``, with the scripted Ollama server as the thinking model behind ARIA."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import openai
import pytest
from ollama import AsyncClient

from tests.api.conftest import Api
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import Send, chat_line, done_line, ollama_stream

THOUGHT = "91 = 7 x 13, so it is not prime."
ANSWER = "No, 91 is 7 times 13."


@pytest.fixture
def model_capabilities() -> frozenset[str]:
    return frozenset({"tools", "thinking"})


def script_thinking_reply(ollama: FakeOllama) -> None:
    ollama.script(
        "/api/chat",
        ollama_stream(
            [
                Send(chat_line("llama3.2", thinking="91 = 7 x 13, ")),
                Send(chat_line("llama3.2", thinking="so it is not prime.")),
                Send(chat_line("llama3.2", "No, 91 is ")),
                Send(chat_line("llama3.2", "7 times 13.")),
                Send(done_line("llama3.2")),
            ]
        ),
    )


async def test_native_chat_returns_and_stores_thinking_apart(api: Api, ollama: FakeOllama) -> None:
    script_thinking_reply(ollama)
    response = await api.client.post(
        "/api/v1/chat", json={"message": "Is 91 prime?", "stream": False}
    )
    assert response.status_code == 200, response.text
    reply = response.json()
    assert (reply["text"], reply["thinking"]) == (ANSWER, THOUGHT)
    assert ollama.requests_to("/api/chat")[0].json()["think"] is True  # auto + capability
    listed = await api.client.get(f"/api/v1/conversations/{reply['conversation_id']}")
    messages = listed.json()["messages"]
    assistant = [m for m in messages if m["role"] == "assistant"]
    assert [(m["content"], m["thinking"]) for m in assistant] == [(ANSWER, THOUGHT)]
    assert all(m["thinking"] == "" for m in messages if m["role"] == "user")


async def test_native_chat_stream_sends_thinking_delta_events(api: Api, ollama: FakeOllama) -> None:
    script_thinking_reply(ollama)
    names: list[str] = []
    thinking = ""
    async with api.client.stream(
        "POST", "/api/v1/chat", json={"message": "Is 91 prime?"}
    ) as response:
        name = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                name = line[7:]
                names.append(name)
            elif line.startswith("data: ") and name == "thinking-delta":
                thinking += json.loads(line[6:])["text"]
            if name == "done":
                break
    assert thinking == THOUGHT
    assert names.index("thinking-delta") < names.index("text-delta")


@pytest.fixture
async def ollama_client(api: Api) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(
        host=api.url, headers=api.headers(), trust_env=False, timeout=20
    ) as client:
        yield client


async def test_ollama_compat_passes_think_and_returns_message_thinking(
    ollama_client: AsyncClient, ollama: FakeOllama
) -> None:
    script_thinking_reply(ollama)
    parts = [
        part
        async for part in await ollama_client.chat(
            model="aria", messages=[{"role": "user", "content": "Is 91 prime?"}], stream=True
        )
    ]
    assert "".join(p.message.thinking or "" for p in parts) == THOUGHT
    assert "".join(p.message.content or "" for p in parts) == ANSWER
    script_thinking_reply(ollama)
    whole = await ollama_client.chat(
        model="aria", messages=[{"role": "user", "content": "Is 91 prime?"}], think=False
    )
    assert (whole.message.content, whole.message.thinking) == (ANSWER, THOUGHT)
    # The client's think=false reached the model as Ollama's own think=false.
    assert ollama.requests_to("/api/chat")[-1].json()["think"] is False


async def test_openai_compat_sends_reasoning_content(api: Api, ollama: FakeOllama) -> None:
    script_thinking_reply(ollama)
    async with (
        httpx2.AsyncClient(trust_env=False, timeout=20) as http,
        openai.AsyncOpenAI(
            base_url=f"{api.url}/v1", api_key=api.token, max_retries=0, http_client=http
        ) as oai,
    ):
        stream = await oai.chat.completions.create(
            model="aria", messages=[{"role": "user", "content": "Is 91 prime?"}], stream=True
        )
        reasoning = ""
        content = ""
        async for chunk in stream:
            for choice in chunk.choices:
                extra: dict[str, Any] = choice.delta.model_extra or {}
                reasoning += extra.get("reasoning_content") or ""
                content += choice.delta.content or ""
        script_thinking_reply(ollama)
        whole = await oai.chat.completions.create(
            model="aria",
            messages=[{"role": "user", "content": "Is 91 prime?"}],
            reasoning_effort="none",
        )
    # The client's reasoning_effort "none" reached the model as Ollama's think=false.
    assert ollama.requests_to("/api/chat")[-1].json()["think"] is False
    assert (reasoning, content) == (THOUGHT, ANSWER)
    message_extra: dict[str, Any] = whole.choices[0].message.model_extra or {}
    assert (whole.choices[0].message.content, message_extra["reasoning_content"]) == (
        ANSWER,
        THOUGHT,
    )
