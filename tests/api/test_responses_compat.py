"""The official ``openai`` package drives ARIA's ``POST /v1/responses`` over a real socket, with
the scripted Ollama test server as the model behind ARIA: a whole response and a streamed one
(the client's own event types), instructions, a client function-tool round trip, a follow-up
by ``previous_response_id`` (per token; ``store: false`` keeps nothing), and errors in
OpenAI's shape."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from aria_desktop.api.server.responses_store import ResponseStore, token_key
from aria_desktop.domain.chat import ChatMessage
from tests.api.conftest import Api
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_error, ollama_text, ollama_tool_calls

WEATHER: Any = {
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


def _sent(ollama: FakeOllama) -> list[dict[str, Any]]:
    body: dict[str, Any] = ollama.requests_to("/api/chat")[-1].json()
    messages: list[dict[str, Any]] = body["messages"]
    return messages


async def test_a_whole_response_has_its_text_usage_and_the_instructions_reach_the_model(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_text("Paris.", prompt_eval_count=21, eval_count=3))
    reply = await oai.responses.create(
        model="aria", instructions="Answer in one word.", input="Capital of France?"
    )
    assert reply.object == "response"
    assert reply.status == "completed"
    assert reply.id.startswith("resp_")
    assert reply.output_text == "Paris."
    assert reply.output[0].type == "message"
    assert reply.usage is not None
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (21, 3)
    assert _sent(ollama) == [
        {"role": "system", "content": "Answer in one word."},
        {"role": "user", "content": "Capital of France?"},
    ]


async def test_a_streamed_response_arrives_as_the_clients_own_events_in_order(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_text("One two three four.", chunks=4, eval_count=4))
    events = [
        event
        async for event in await oai.responses.create(
            model="aria", input=[{"role": "user", "content": "Count to four."}], stream=True
        )
    ]
    kinds = [event.type for event in events]
    assert kinds[:4] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert kinds[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert "".join(deltas) == "One two three four."
    assert len(deltas) >= 2  # it streamed, not one piece at the end
    assert [e.sequence_number for e in events] == list(range(len(events)))
    completed = events[-1]
    assert completed.type == "response.completed"
    assert completed.response.output_text == "One two three four."
    assert completed.response.usage is not None


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_a_function_tool_round_trip_continues_by_previous_response_id(
    api: Api, oai: openai.AsyncOpenAI, ollama: FakeOllama, stream: bool
) -> None:
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("get_weather", {"city": "Oslo"})], with_ids=True),
        ollama_text("It is sunny in Oslo."),
    )
    if stream:
        events = [
            e
            async for e in await oai.responses.create(
                model="aria", input="Weather in Oslo?", tools=[WEATHER], stream=True
            )
        ]
        done = [e for e in events if e.type == "response.function_call_arguments.done"]
        assert len(done) == 1
        completed = events[-1]
        assert completed.type == "response.completed"
        first = completed.response
    else:
        first = await oai.responses.create(model="aria", input="Weather in Oslo?", tools=[WEATHER])
    calls = [item for item in first.output if item.type == "function_call"]
    assert len(calls) == 1
    call = calls[0]
    assert (call.name, json.loads(call.arguments)) == ("get_weather", {"city": "Oslo"})
    assert api.calls == []  # the client's tool is the client's to run
    final = await oai.responses.create(
        model="aria",
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "sunny"}],
        tools=[WEATHER],
    )
    assert final.output_text == "It is sunny in Oslo."
    assert final.previous_response_id == first.id
    sent = _sent(ollama)
    assert [m["role"] for m in sent if m["role"] != "system"] == ["user", "assistant", "tool"]
    assert sent[-1] == {"role": "tool", "content": "sunny", "tool_name": "get_weather"}
    conversations = await api.store.list_conversations()
    assert len(conversations) == 1  # one conversation, as with chat completions


async def test_a_follow_up_carries_the_conversation_but_not_the_earlier_instructions(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_text("Hello Ada."), ollama_text("Your name is Ada."))
    first = await oai.responses.create(
        model="aria", instructions="Be terse.", input="Hi, I am Ada."
    )
    second = await oai.responses.create(
        model="aria", previous_response_id=first.id, input="What is my name?"
    )
    assert second.output_text == "Your name is Ada."
    sent = _sent(ollama)
    texts = [(m["role"], m["content"]) for m in sent if m["role"] != "system"]
    assert texts == [
        ("user", "Hi, I am Ada."),
        ("assistant", "Hello Ada."),
        ("user", "What is my name?"),
    ]
    assert not any("Be terse." in m["content"] for m in sent)


async def test_store_false_keeps_nothing_to_continue(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_text("Noted."))
    unstored = await oai.responses.create(model="aria", input="Remember 7.", store=False)
    with pytest.raises(openai.BadRequestError) as missing:
        await oai.responses.create(
            model="aria", previous_response_id=unstored.id, input="Which number?"
        )
    assert missing.value.code == "previous_response_not_found"


def test_a_kept_response_is_found_only_with_the_credentials_that_made_it_and_the_oldest_go() -> (
    None
):
    store = ResponseStore(limit=2)
    mine, theirs = token_key("Bearer one"), token_key("Bearer two")
    store.put("resp_a", mine, [ChatMessage(role="user", content="a")])
    assert store.get("resp_a", theirs) is None
    assert store.get("resp_a", mine) == (ChatMessage(role="user", content="a"),)
    store.put("resp_b", mine, [])
    store.put("resp_c", mine, [])
    assert store.get("resp_a", mine) is None  # the least recently used went first
    assert len(store) == 2


async def test_errors_come_in_openai_shape_whole_and_streamed(
    oai: openai.AsyncOpenAI, ollama: FakeOllama
) -> None:
    with pytest.raises(openai.NotFoundError):
        await oai.responses.create(model="gpt-9", input="hi")
    with pytest.raises(openai.BadRequestError):
        await oai.responses.create(model="aria", input=[])
    ollama.script("/api/chat", ollama_error(404, 'model "llama3.2" not found'))
    with pytest.raises(openai.APIStatusError) as failed:
        await oai.responses.create(model="aria", input="x")
    assert failed.value.status_code == 503
    ollama.script("/api/chat", ollama_error(404, 'model "llama3.2" not found'))
    events = [e async for e in await oai.responses.create(model="aria", input="x", stream=True)]
    assert events[-1].type == "response.failed"
    assert events[-1].response.error is not None
    assert "not found" in events[-1].response.error.message
