"""The official ``openai`` package drives ARIA's ``/v1`` endpoints over a real socket, with the
scripted Ollama test server as the model behind ARIA: completions streamed and not, usage, a
client tool round-trip (stored as one conversation), ``response_format``, the generation
options reaching the model, unknown fields, and errors in OpenAI's shape."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import openai
import pytest

from aria_desktop.api.config import ApiConfig, CompatConfig, CompatModel
from aria_desktop.core.orchestrator import TurnOutcome
from tests.api.conftest import Api
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_error, ollama_text, ollama_tool_calls

WEATHER_TOOL: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def _last_chat(ollama: FakeOllama) -> dict[str, Any]:
    body: dict[str, Any] = ollama.requests_to("/api/chat")[-1].json()
    return body


async def test_models_lists_the_offered_names(oai: openai.AsyncOpenAI) -> None:
    models = [model.id async for model in oai.models.list()]
    assert models == ["aria"]


async def test_whole_completion_names_the_backend_and_counts_tokens(
    api: Api, oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_text("Paris.", prompt_eval_count=21, eval_count=3))
    reply = await oai.chat.completions.create(
        model="aria", messages=[{"role": "user", "content": "Capital of France?"}]
    )
    assert reply.object == "chat.completion"
    assert reply.model == "aria"
    assert reply.choices[0].message.content == "Paris."
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage is not None
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (21, 3)
    assert reply.system_fingerprint == "aria:ollama:llama3.2"
    conversations = await api.store.list_conversations()
    assert len(conversations) == 1
    assert conversations[0].title.startswith("[openai/asyncopenai] Capital of France?")


async def test_streamed_completion_ends_with_a_usage_chunk_and_done(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_text("One two three four.", chunks=4, eval_count=4))
    stream = await oai.chat.completions.create(
        model="aria",
        messages=[{"role": "user", "content": "Count"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = [chunk async for chunk in stream]
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "One two three four."
    finishing = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert [c.choices[0].finish_reason for c in finishing] == ["stop"]
    last = chunks[-1]
    assert last.choices == []
    assert last.usage is not None
    assert last.usage.completion_tokens == 4
    assert all(c.usage is None for c in chunks[:-1])


async def test_streamed_completion_without_usage_has_no_usage_chunk(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_text("Hi."))
    stream = await oai.chat.completions.create(
        model="aria", messages=[{"role": "user", "content": "Hello"}], stream=True
    )
    chunks = [chunk async for chunk in stream]
    assert all(c.choices for c in chunks)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_client_tool_round_trip_continues_one_stored_conversation(
    api: Api, oai: openai.AsyncOpenAI, ollama: FakeOllama, stream: bool
) -> None:
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("get_weather", {"city": "Oslo"})], with_ids=True),
        ollama_text("It is sunny in Oslo."),
    )
    messages: list[Any] = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Weather in Oslo?"},
    ]
    if stream:
        chunks = [
            c
            async for c in await oai.chat.completions.create(
                model="aria", messages=messages, tools=[WEATHER_TOOL], stream=True
            )
        ]
        deltas = [tc for c in chunks if c.choices for tc in c.choices[0].delta.tool_calls or ()]
        assert len(deltas) == 1
        function = deltas[0].function
        assert function is not None
        call_id, name, arguments = deltas[0].id, function.name, function.arguments
        assert [
            c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason
        ] == ["tool_calls"]
    else:
        first = await oai.chat.completions.create(
            model="aria", messages=messages, tools=[WEATHER_TOOL]
        )
        assert first.choices[0].finish_reason == "tool_calls"
        calls = first.choices[0].message.tool_calls or []
        assert calls[0].type == "function"
        call_id, name, arguments = calls[0].id, calls[0].function.name, calls[0].function.arguments
    assert (name, json.loads(arguments or "{}")) == ("get_weather", {"city": "Oslo"})
    offered = {tool["function"]["name"] for tool in _last_chat(ollama)["tools"]}
    assert offered == {"get_weather", "echo"}  # ARIA's read-only tool, never "send"
    assert api.calls == []  # the client's tool is the client's to run
    messages += [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": '{"sky": "sunny"}'},
    ]
    final = await oai.chat.completions.create(model="aria", messages=messages, tools=[WEATHER_TOOL])
    assert final.choices[0].message.content == "It is sunny in Oslo."
    sent = _last_chat(ollama)["messages"]
    assert sent[-1] == {"role": "tool", "content": '{"sky": "sunny"}', "tool_name": "get_weather"}
    conversations = await api.store.list_conversations()
    assert len(conversations) == 1
    stored = await api.store.list_messages(conversations[0].id)
    assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]


async def test_response_format_and_options_reach_the_model(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"answer": {"type": "string"}}}
    ollama.script("/api/chat", ollama_text('{"answer": "4"}'), ollama_text('{"a": 1}'))
    reply = await oai.chat.completions.create(
        model="aria",
        messages=[{"role": "user", "content": "2+2 as JSON"}],
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "sum", "schema": schema, "strict": True},
        },
        max_completion_tokens=50,
        temperature=0.2,
        stop=["END"],
    )
    assert json.loads(reply.choices[0].message.content or "") == {"answer": "4"}
    body = _last_chat(ollama)
    assert body["format"] == schema
    # num_ctx: the model's learned window (/api/show), capped by llm.max_context_tokens.
    assert body["options"] == {
        "num_predict": 50,
        "temperature": 0.2,
        "stop": ["END"],
        "num_ctx": 8192,
    }
    await oai.chat.completions.create(
        model="aria",
        messages=[{"role": "user", "content": "JSON please"}],
        response_format={"type": "json_object"},
        max_tokens=7,
    )
    body = _last_chat(ollama)
    assert body["format"] == "json"
    assert body["options"]["num_predict"] == 7


@pytest.mark.parametrize("model_capabilities", [frozenset({"tools", "vision"})])
async def test_image_parts_reach_the_model_and_unknown_fields_are_ignored(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    png = b"\x89PNG\r\n\x1a\nfake"
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    ollama.script("/api/chat", ollama_text("A picture."))
    reply = await oai.chat.completions.create(
        model="aria",
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": url, "detail": "low"}},
                ],
            }
        ],
        seed=7,
        logit_bias={"50256": -100},
        user="someone",
        extra_body={"frobnicate": True, "nested": {"x": [1, 2]}},
    )
    assert reply.choices[0].message.content == "A picture."
    user = _last_chat(ollama)["messages"][-1]
    assert user["content"] == "What is this?"
    assert user["images"] == [base64.b64encode(png).decode()]


async def test_an_image_for_a_text_only_model_is_a_clear_error(oai: openai.AsyncOpenAI) -> None:
    url = "data:image/png;base64," + base64.b64encode(b"png").decode()
    with pytest.raises(openai.APIStatusError, match="lacks vision"):
        await oai.chat.completions.create(
            model="aria",
            messages=[
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}
            ],
        )
    with pytest.raises(openai.BadRequestError, match="data URLs"):
        await oai.chat.completions.create(
            model="aria",
            messages=[
                {
                    "role": "user",
                    "content": [{"type": "image_url", "image_url": {"url": "http://x/y.png"}}],
                }
            ],
        )


async def test_errors_come_in_openai_shape(api: Api, oai: openai.AsyncOpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as missing:
        await oai.chat.completions.create(
            model="gpt-9", messages=[{"role": "user", "content": "hi"}]
        )
    assert missing.value.code == "not_found"
    assert "aria" in missing.value.message
    with pytest.raises(openai.BadRequestError) as invalid:
        await oai.chat.completions.create(model="aria", messages=[])
    assert invalid.value.status_code == 400
    body = invalid.value.body
    assert isinstance(body, dict)
    assert body["type"] == "invalid_request_error"
    wrong = openai.AsyncOpenAI(base_url=f"{api.url}/v1", api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as denied:
        await wrong.models.list()
    assert denied.value.code == "unauthorized"
    await wrong.close()
    assert await api.store.list_conversations() == []


async def test_a_failing_backend_is_an_openai_error_not_a_reply(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_error(404, 'model "llama3.2" not found'))
    with pytest.raises(openai.APIStatusError) as failed:
        await oai.chat.completions.create(model="aria", messages=[{"role": "user", "content": "x"}])
    assert failed.value.status_code == 503  # no model could answer
    ollama.script("/api/chat", ollama_error(404, 'model "llama3.2" not found'))
    stream = await oai.chat.completions.create(
        model="aria", messages=[{"role": "user", "content": "x"}], stream=True
    )
    with pytest.raises(openai.APIError, match="not found"):
        async for _chunk in stream:
            pass


async def test_a_message_too_long_for_every_model_is_openais_context_length_exceeded(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    ollama.context_length = 2048
    pasted = "Summarise: " + "lorem ipsum dolor " * 800
    with pytest.raises(openai.BadRequestError) as refused:
        await oai.chat.completions.create(
            model="aria", messages=[{"role": "user", "content": pasted}]
        )
    # A 400 (clients do not resend it, as they would a 5xx) with OpenAI's own code.
    assert refused.value.status_code == 400
    assert refused.value.code == "context_length_exceeded"
    assert "too long for every model" in refused.value.message
    assert ollama.requests_to("/api/chat") == []


@pytest.mark.parametrize(
    "api_config",
    [
        ApiConfig(
            port=0,
            rate_limit_burst=10_000,
            rate_limit_per_s=10_000,
            compat=CompatConfig(
                models=(CompatModel(name="aria"), CompatModel(name="aria-quiet", private=True)),
                private_clients=("python-httpx",),
            ),
        )
    ],
)
async def test_private_models_and_clients_are_never_mined(
    api: Api, oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    outcomes: asyncio.Queue[TurnOutcome] = asyncio.Queue()
    api.orchestrator.add_turn_observer(outcomes.put)
    for model in ("aria", "aria-quiet"):
        ollama.script("/api/chat", ollama_text("ok"))
        await oai.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "My cat is Tom."}]
        )
    ollama.script("/api/chat", ollama_text("ok"))
    raw = await api.client.post(
        "/v1/chat/completions",
        json={"model": "aria", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert raw.status_code == 200
    async with asyncio.timeout(5):
        private = [(await outcomes.get()).private for _ in range(3)]
    assert private == [False, True, True]


async def test_tool_choice_required_is_honoured_on_a_server_without_it(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    # Ollama has no tool_choice: ARIA instructs the model, rejects the reply that makes no
    # call, lets the model try once more, and hands the client the call it then writes as text.
    ollama.script(
        "/api/chat",
        ollama_text("Probably sunny."),
        ollama_text(
            '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>'
        ),
    )
    reply = await oai.chat.completions.create(
        model="aria",
        messages=[{"role": "user", "content": "Weather in Rome?"}],
        tools=[WEATHER_TOOL],
        tool_choice="required",
    )
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content in (None, "")
    [call] = choice.message.tool_calls or []
    assert call.type == "function"
    assert (call.function.name, json.loads(call.function.arguments)) == (
        "get_weather",
        {"city": "Rome"},
    )
    first, retry = (r.json() for r in ollama.requests_to("/api/chat"))
    assert [t["function"]["name"] for t in first["tools"]] == ["get_weather"]  # client's only
    assert first["messages"][-1]["role"] == "system"
    assert "calling one of the tools (get_weather)" in first["messages"][-1]["content"]
    assert "Probably sunny." in json.dumps(retry["messages"])
    assert "requires a call" in json.dumps(retry["messages"])


async def test_a_named_tool_choice_offers_that_tool_alone(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    other: Any = {
        "type": "function",
        "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}},
    }
    ollama.script("/api/chat", ollama_tool_calls([("get_weather", {"city": "Oslo"})]))
    reply = await oai.chat.completions.create(
        model="aria",
        messages=[{"role": "user", "content": "Weather in Oslo?"}],
        tools=[other, WEATHER_TOOL],
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
    )
    [call] = reply.choices[0].message.tool_calls or []
    assert call.type == "function"
    assert call.function.name == "get_weather"
    body = _last_chat(ollama)
    assert [t["function"]["name"] for t in body["tools"]] == ["get_weather"]
    assert "calling the tool get_weather" in body["messages"][-1]["content"]
