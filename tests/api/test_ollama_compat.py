"""The official ``ollama`` package drives ARIA's Ollama-compatible routes over a real socket, with
the scripted Ollama test server as the model behind ARIA; and Home Assistant's Ollama
integration's call sequence is replayed (tags -> pull -> chat with Assist tools -> tool results
-> answer), checking every field it parses."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from ollama import AsyncClient, ChatResponse, ResponseError

from aria_desktop.domain.events import RunEnd
from tests.api.conftest import Api
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import (
    Hang,
    Send,
    chat_line,
    ollama_error,
    ollama_stream,
    ollama_text,
    ollama_tool_calls,
)

# Assist-style tools as Home Assistant's LLM API formats them (``_format_tool``).
HASS_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "HassTurnOn",
            "description": "Turns on/opens a device or entity",
            "parameters": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "area": {"type": "string"},
                    "domain": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "GetLiveContext",
            "description": "Provides real-time information about the devices",
            "parameters": {"type": "object", "properties": {}},
        },
    },
]


@pytest.fixture
async def client(api: Api) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(
        host=api.url, headers=api.headers(), trust_env=False, timeout=20
    ) as client:
        yield client


def _last_chat(server: FakeOllama) -> dict[str, Any]:
    body: dict[str, Any] = server.requests_to("/api/chat")[-1].json()
    return body


async def test_tags_show_ps_and_version_describe_arias_models(
    api: Api, client: AsyncClient
) -> None:
    listed = await client.list()
    assert [m.model for m in listed.models] == ["aria:latest"]
    assert listed.models[0].details is not None
    shown = await client.show("aria")
    assert shown.capabilities is not None
    assert "tools" in shown.capabilities
    assert shown.modelinfo is not None
    assert shown.modelinfo["aria.context_length"] > 0
    loaded = await client.ps()
    assert [m.model for m in loaded.models] == ["aria:latest"]
    version = await api.client.get("/api/version")
    assert version.json()["version"]


async def test_pull_succeeds_for_arias_name_and_fails_clearly_otherwise(
    client: AsyncClient,
) -> None:
    statuses = [part.status async for part in await client.pull("aria:latest", stream=True)]
    assert statuses[-1] == "success"
    assert (await client.pull("aria")).status == "success"
    with pytest.raises(ResponseError) as missing:
        await client.pull("llama3.1:70b")
    assert missing.value.status_code == 404
    assert "aria" in missing.value.error


async def test_streamed_chat_sends_pieces_then_a_done_line(
    client: AsyncClient, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_text("Hello there, friend.", chunks=3, eval_count=5))
    parts = [
        part
        async for part in await client.chat(
            model="aria:latest", messages=[{"role": "user", "content": "Hi"}], stream=True
        )
    ]
    assert "".join(p.message.content or "" for p in parts) == "Hello there, friend."
    assert [p.done for p in parts] == [False] * (len(parts) - 1) + [True]
    assert parts[-1].done_reason == "stop"
    assert parts[-1].eval_count == 5


async def test_whole_chat_with_format_options_and_images(
    api: Api, client: AsyncClient, ollama: FakeOllama
) -> None:
    schema = {"type": "object", "properties": {"on": {"type": "boolean"}}, "required": ["on"]}
    ollama.script("/api/chat", ollama_text('{"on": true}'))
    reply = await client.chat(
        model="aria",
        messages=[{"role": "user", "content": "Is it on?"}],
        format=schema,
        options={"num_ctx": 1_000_000, "temperature": 0.1, "num_predict": 64, "top_k": 5},
        keep_alive="5m",
        think=False,
    )
    assert reply.done
    assert reply.message.content == '{"on": true}'
    body = _last_chat(ollama)
    assert body["format"] == schema
    assert body["options"] == {"num_predict": 64, "temperature": 0.1, "num_ctx": 32_768}
    ollama.script("/api/chat", ollama_text("ok"))
    await client.chat(
        model="aria", messages=[{"role": "user", "content": "x"}], format="json", keep_alive=300
    )
    assert _last_chat(ollama)["format"] == "json"


async def test_tool_call_arguments_are_json_objects(
    client: AsyncClient, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_tool_calls([("HassTurnOn", {"name": "kitchen light"})]))
    parts = [
        part
        async for part in await client.chat(
            model="aria",
            messages=[{"role": "user", "content": "Kitchen light on"}],
            tools=HASS_TOOLS,
            stream=True,
        )
    ]
    calls = [call for p in parts for call in p.message.tool_calls or ()]
    assert [(c.function.name, c.function.arguments) for c in calls] == [
        ("HassTurnOn", {"name": "kitchen light"})
    ]
    assert parts[-1].done


async def test_errors_are_ollama_error_strings(api: Api, ollama: FakeOllama) -> None:
    unknown = await api.client.post("/api/chat", json={"model": "nope", "messages": []})
    assert unknown.status_code == 404
    assert isinstance(unknown.json()["error"], str)
    bad = await api.client.post("/api/chat", json={"model": "aria", "messages": "hi"})
    assert bad.status_code == 400
    assert "messages" in bad.json()["error"]
    async with httpx.AsyncClient(base_url=api.url) as anonymous:
        denied = await anonymous.get("/api/tags")
    assert denied.status_code == 401
    assert "token" in denied.json()["error"]
    ollama.script("/api/chat", ollama_error(500, "out of memory"))
    failed = await api.client.post(
        "/api/chat",
        json={"model": "aria", "messages": [{"role": "user", "content": "x"}], "stream": False},
    )
    assert failed.status_code == 503  # no model could answer
    assert "out of memory" in failed.json()["error"]


async def test_home_assistant_sequence(api: Api, client: AsyncClient, ollama: FakeOllama) -> None:
    """What HA's Ollama integration does for "turn on the kitchen light", step by step."""
    # Setup and the coordinator: list (then ps); the config flow pulls a name not listed.
    listed = await client.list()
    names = [m.model for m in listed.models]
    assert "aria:latest" in names
    assert (await client.ps()).models is not None
    progress = [p async for p in await client.pull("aria:latest", insecure=False, stream=True)]
    assert progress[-1].status == "success"
    # The conversation agent: system prompt (with the time), Assist tools, keep_alive in
    # seconds, num_ctx, think unset, format unset.
    system = {"role": "system", "content": "Current time is 10:00. You control the home."}
    history: list[dict[str, Any]] = [system, {"role": "user", "content": "Kitchen light on"}]
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("HassTurnOn", {"name": "kitchen light", "domain": ["light"]})]),
        ollama_text("The kitchen light is on."),
    )

    async def ask() -> list[ChatResponse]:
        stream = await client.chat(
            model="aria:latest",
            messages=list(history),
            tools=HASS_TOOLS,
            stream=True,
            keep_alive="300s",
            options={"num_ctx": 8192},
            think=None,
            format=None,
        )
        return [part async for part in stream]

    first = await ask()
    for part in first:  # the fields HA's _transform_stream reads
        assert part.message.role == "assistant"
        assert part.message.content is not None
    calls = [call for part in first for call in part.message.tool_calls or ()]
    assert len(calls) == 1
    assert calls[0].function.name == "HassTurnOn"
    assert dict(calls[0].function.arguments) == {"name": "kitchen light", "domain": ["light"]}
    assert first[-1].done
    assert api.calls == []  # HA runs its own Assist tools
    # HA ran the tool and sends everything again, the system prompt's time moved on.
    history[0] = {"role": "system", "content": "Current time is 10:01. You control the home."}
    history += [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "function": {
                        "name": "HassTurnOn",
                        "arguments": {"name": "kitchen light", "domain": ["light"]},
                    }
                }
            ],
        },
        {"role": "tool", "content": '{"success": true, "targets": ["light.kitchen"]}'},
    ]
    second = await ask()
    assert "".join(p.message.content or "" for p in second) == "The kitchen light is on."
    assert second[-1].done
    assert not any(p.message.tool_calls for p in second)
    sent = _last_chat(ollama)
    assert sent["messages"][0]["content"].startswith("Current time is 10:01")
    assert sent["messages"][-1]["role"] == "tool"
    assert sent["options"]["num_ctx"] == 8192
    conversations = await api.store.list_conversations()
    assert len(conversations) == 1
    assert conversations[0].title.startswith("[ollama/ollama-python] Kitchen light on")
    stored = await api.store.list_messages(conversations[0].id)
    assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[-1].content == "The kitchen light is on."


async def test_image_reaches_the_model_as_base64(api: Api, ollama: FakeOllama) -> None:
    png = base64.b64encode(b"\x89PNGfake").decode()
    response = await api.client.post(
        "/api/chat",
        json={
            "model": "aria",
            "stream": False,
            "messages": [{"role": "user", "content": "What is it?", "images": [png]}],
        },
    )
    assert response.status_code == 503  # the test model is text-only: none can answer this
    assert "vision" in response.json()["error"]


@pytest.mark.parametrize("model_capabilities", [frozenset({"tools", "vision"})])
async def test_image_reaches_a_vision_model(client: AsyncClient, ollama: FakeOllama) -> None:
    png = b"\x89PNGfake"
    ollama.script("/api/chat", ollama_text("A cat."))
    reply = await client.chat(
        model="aria", messages=[{"role": "user", "content": "What is it?", "images": [png]}]
    )
    assert reply.message.content == "A cat."
    assert _last_chat(ollama)["messages"][-1]["images"] == [base64.b64encode(png).decode()]


@pytest.mark.parametrize("path", ["/api/chat", "/v1/chat/completions", "/api/v1/chat"])
async def test_a_client_that_leaves_mid_stream_cancels_the_turn(
    api: Api, ollama: FakeOllama, path: str
) -> None:
    ollama.script(
        "/api/chat", ollama_stream([Send(chat_line("llama3.2", "Once upon a time")), Hang()])
    )
    sub = api.orchestrator.bus.subscribe()
    body: dict[str, Any] = {
        "model": "aria",
        "messages": [{"role": "user", "content": "Tell a story"}],
    }
    if path == "/api/v1/chat":  # ARIA's own API, streamed as Server-Sent Events
        body = {"message": "Tell a story"}
    try:
        async with api.client.stream("POST", path, json={**body, "stream": True}) as response:
            async for line in response.aiter_lines():
                if "Once upon" in line:
                    break  # the client goes away with the story half told
        ends: list[RunEnd] = []
        async with asyncio.timeout(10):
            async for event in sub:
                if isinstance(event, RunEnd):
                    ends.append(event)
                    break
    finally:
        sub.close()
    assert [end.status for end in ends] == ["cancelled"]
    assert await ollama.wait_disconnect()  # the model's stream was closed too
    conversation = (await api.store.list_conversations())[0]
    stored = await api.store.list_messages(conversation.id)
    assert [(m.role, m.status, m.content) for m in stored] == [
        ("user", "complete", "Tell a story"),
        ("assistant", "interrupted", "Once upon a time"),
    ]


async def test_generate_streams_pieces_then_a_done_line_with_counts(
    client: AsyncClient, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_text("Light scatters off air.", chunks=3, eval_count=6))
    parts = [
        part
        async for part in await client.generate(
            model="aria", prompt="Why is the sky blue?", system="Be brief.", stream=True
        )
    ]
    assert "".join(p.response or "" for p in parts) == "Light scatters off air."
    assert [p.done for p in parts] == [False] * (len(parts) - 1) + [True]
    assert len(parts) >= 3
    assert parts[-1].done_reason == "stop"
    assert parts[-1].eval_count == 6
    sent = _last_chat(ollama)["messages"]
    assert [(m["role"], m["content"]) for m in sent] == [
        ("system", "Be brief."),
        ("user", "Why is the sky blue?"),
    ]


async def test_generate_whole_with_format_and_options_and_an_empty_prompt_loads(
    client: AsyncClient, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_text('{"colour": "blue"}'))
    reply = await client.generate(
        model="aria:latest",
        prompt="Sky colour as JSON",
        format="json",
        options={"num_predict": 40, "temperature": 0.1},
    )
    assert reply.response == '{"colour": "blue"}'
    assert reply.done
    sent = _last_chat(ollama)
    assert sent["format"] == "json"
    assert sent["options"]["num_predict"] == 40
    loaded = await client.generate(model="aria", prompt="")
    assert loaded.done
    assert loaded.done_reason == "load"
    assert len(ollama.requests_to("/api/chat")) == 1  # loading asked the model nothing


async def test_generate_errors_are_ollama_error_strings(
    api: Api, client: AsyncClient, ollama: FakeOllama
) -> None:
    with pytest.raises(ResponseError) as missing:
        await client.generate(model="nope", prompt="hi")
    assert missing.value.status_code == 404
    bad = await api.client.post("/api/generate", json={"model": "aria", "prompt": 5})
    assert bad.status_code == 400
    assert isinstance(bad.json()["error"], str)
    ollama.script("/api/chat", ollama_error(500, "out of memory"))
    failed = await api.client.post(
        "/api/generate", json={"model": "aria", "prompt": "x", "stream": False}
    )
    assert failed.status_code == 503
    assert "out of memory" in failed.json()["error"]
