"""Every route over real HTTP on 127.0.0.1, against a full orchestrator and the Ollama test
server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from aria_desktop import __version__
from tests.api.conftest import Api
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text, ollama_tool_calls


async def read_sse(
    response: httpx.Response,
    *,
    until: str = "done",
    on_frame: Callable[[str, Any], Awaitable[None]] | None = None,
) -> list[tuple[str, Any]]:
    """(event name, data) pairs of an SSE response, up to and including ``until``.

    ``on_frame`` sees each frame as it arrives (to answer a confirmation mid-stream).
    """
    frames: list[tuple[str, Any]] = []
    name = ""
    async with asyncio.timeout(15):
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                frames.append((name, json.loads(line[6:])))
                if on_frame is not None:
                    await on_frame(name, frames[-1][1])
                if name in (until, "close"):
                    break
    return frames


async def answer_confirmation(
    client: httpx.AsyncClient, request: Any, *, nonce: str | None = None
) -> httpx.Response:
    """Approve an ``action-confirm-request`` (its data) through the API, with its nonce."""
    return await client.post(
        f"/api/v1/actions/{request['request_id']}/confirm",
        json={"approved": True, "nonce": request["nonce"] if nonce is None else nonce},
    )


async def test_health_needs_no_token_and_reveals_only_status_and_version(api: Api) -> None:
    async with httpx.AsyncClient(base_url=api.url) as anonymous:
        response = await anonymous.get("/api/v1/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "version": __version__}


async def test_chat_stream_event_order_for_a_turn_with_a_tool_call(
    api: Api, ollama: FakeOllama
) -> None:
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("echo", {"text": "ping"})], with_ids=True),
        ollama_text("The tool said ping.", chunks=3),
    )
    async with api.client.stream(
        "POST", "/api/v1/chat", json={"message": "use the tool"}
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        frames = await read_sse(response)
    names = [name for name, _ in frames]
    assert names == [
        "start",
        "tool-call",
        "tool-result",
        "text-delta",
        "text-delta",
        "text-delta",
        "done",
    ]
    assert frames[1][1]["name"] == "echo"
    assert frames[1][1]["arguments"] == {"text": "ping"}
    assert frames[2][1]["status"] == "ok"
    done = frames[-1][1]
    assert done["status"] == "complete"
    assert done["text"] == "The tool said ping."
    assert (done["backend"], done["model"]) == ("ollama", "llama3.2")
    assert done["usage"]["output_tokens"] == 14
    assert api.calls == [{"text": "ping"}]


async def test_chat_without_stream_returns_one_json_reply(api: Api, ollama: FakeOllama) -> None:
    ollama.script("/api/chat", ollama_text("Hello there."))
    response = await api.client.post("/api/v1/chat", json={"message": "hi", "stream": False})
    assert response.status_code == 200
    reply = response.json()
    assert reply["text"] == "Hello there."
    assert reply["status"] == "complete"
    detail = (await api.client.get(f"/api/v1/conversations/{reply['conversation_id']}")).json()
    assert [(m["role"], m["content"]) for m in detail["messages"]] == [
        ("user", "hi"),
        ("assistant", "Hello there."),
    ]


async def test_chat_in_an_unknown_conversation_is_404(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/chat", json={"message": "hi", "conversation_id": "nope", "stream": False}
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


async def test_confirmation_over_the_api_with_the_nonce(api: Api, ollama: FakeOllama) -> None:
    ollama.script(
        "/api/chat", ollama_tool_calls([("send", {"text": "mail"})]), ollama_text("Sent.")
    )

    async def confirm(name: str, data: Any) -> None:
        if name != "action-confirm-request":
            return
        wrong = await answer_confirmation(api.client, data, nonce="guessed")
        assert wrong.status_code == 409
        assert (await answer_confirmation(api.client, data)).status_code == 204

    async with api.client.stream("POST", "/api/v1/chat", json={"message": "send it"}) as response:
        frames = await read_sse(response, on_frame=confirm)
    names = [n for n, _ in frames]
    assert names.index("action-confirm-request") < names.index("action-confirm-result")
    assert frames[-1][1]["text"] == "Sent."
    assert api.calls == [{"text": "mail"}]


async def test_conversation_round_trip(api: Api) -> None:
    created = await api.client.post("/api/v1/conversations", json={"title": "Plans"})
    assert created.status_code == 201
    cid = created.json()["id"]
    listed = (await api.client.get("/api/v1/conversations")).json()
    assert [c["id"] for c in listed] == [cid]
    renamed = await api.client.patch(f"/api/v1/conversations/{cid}", json={"title": "Trips"})
    assert renamed.json()["title"] == "Trips"
    detail = (await api.client.get(f"/api/v1/conversations/{cid}")).json()
    assert detail["conversation"]["title"] == "Trips"
    assert detail["messages"] == []
    assert (await api.client.delete(f"/api/v1/conversations/{cid}")).status_code == 204
    assert (await api.client.get(f"/api/v1/conversations/{cid}")).status_code == 404
    assert (await api.client.delete(f"/api/v1/conversations/{cid}")).status_code == 404


async def test_messages_are_paginated_newest_page_first(api: Api, ollama: FakeOllama) -> None:
    cid = None
    for i in range(3):
        ollama.script("/api/chat", ollama_text(f"answer {i}"))
        body: dict[str, Any] = {"message": f"q{i}", "stream": False}
        if cid:
            body["conversation_id"] = cid
        cid = (await api.client.post("/api/v1/chat", json=body)).json()["conversation_id"]
    page = (await api.client.get(f"/api/v1/conversations/{cid}", params={"limit": 4})).json()
    assert [m["content"] for m in page["messages"]] == ["q1", "answer 1", "q2", "answer 2"]
    older = (
        await api.client.get(
            f"/api/v1/conversations/{cid}",
            params={"limit": 4, "before_id": page["next_before_id"]},
        )
    ).json()
    assert [m["content"] for m in older["messages"]] == ["q0", "answer 0"]
    assert older["next_before_id"] is None


async def test_events_stream_shows_a_turn(api: Api, ollama: FakeOllama) -> None:
    ollama.script("/api/chat", ollama_text("Hi.", chunks=1))
    async with api.client.stream(
        "GET", "/api/v1/events", params={"types": "run-start,llm-delta,run-end"}
    ) as response:
        lines = response.aiter_lines()
        assert await anext(lines) == ": ready"
        await api.client.post("/api/v1/chat", json={"message": "hi", "stream": False})
        frames = await read_sse_lines(lines, until="run-end")
    assert [n for n, _ in frames] == ["run-start", "llm-delta", "run-end"]
    assert frames[-1][1]["status"] == "complete"


async def read_sse_lines(lines: Any, *, until: str) -> list[tuple[str, Any]]:
    frames: list[tuple[str, Any]] = []
    name = ""
    async with asyncio.timeout(15):
        async for line in lines:
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                frames.append((name, json.loads(line[6:])))
                if name == until:
                    break
    return frames


async def test_cancel_stop_state_and_capabilities(api: Api) -> None:
    assert (await api.client.post("/api/v1/turns/cancel", json={})).json() == {"cancelled": 0}
    assert (await api.client.post("/api/v1/stop")).json() == {"cancelled": 0}
    assert (await api.client.get("/api/v1/state")).json() == {
        "state": "idle",
        "settings_problems": [],
    }
    assert (await api.client.get("/api/v1/capabilities")).json() == []


async def test_cancel_a_running_turn(api: Api, ollama: FakeOllama) -> None:
    ollama.script("/api/chat", ollama_text("slow " * 20, chunks=20, delay_s=0.2))
    async with api.client.stream("POST", "/api/v1/chat", json={"message": "go"}) as response:
        lines = response.aiter_lines()
        frames = await read_sse_lines(lines, until="text-delta")
        run_id = frames[0][1]["run_id"]
        cancelled = await api.client.post("/api/v1/turns/cancel", json={"run_id": run_id})
        assert cancelled.json() == {"cancelled": 1}
        rest = await read_sse_lines(lines, until="done")
    assert rest[-1][1]["status"] == "cancelled"


async def test_settings_get_and_patch_all_or_nothing(api: Api) -> None:
    current = (await api.client.get("/api/v1/settings")).json()
    assert current["settings"]["agent"]["max_steps"] == 8
    assert current["restart_required"] is False
    bad = await api.client.patch(
        "/api/v1/settings", json={"changes": {"agent.max_steps": 4, "log.level": "LOUD"}}
    )
    assert bad.status_code == 422
    assert bad.json()["error"]["code"] == "config_invalid"
    assert "max_steps" not in api.settings_path.read_text()
    good = await api.client.patch(
        "/api/v1/settings",
        json={"changes": {"agent.max_steps": 4, "api.allowed_origins": ["http://ha.local:8123"]}},
    )
    assert good.status_code == 200
    assert good.json()["settings"]["agent"]["max_steps"] == 4
    assert good.json()["restart_required"] is True
    assert "max_steps = 4" in api.settings_path.read_text()


async def test_settings_patch_refuses_secrets(api: Api) -> None:
    response = await api.client.patch(
        "/api/v1/settings", json={"changes": {"llm.anthropic.api_key": "sk-ant-api03-xxxxxxxxxx"}}
    )
    assert response.status_code == 422
    assert "xxxxxxxxxx" not in response.text


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v1/conversations"),
        ("POST", "/api/v1/conversations"),
        ("GET", "/api/v1/events"),
        ("GET", "/api/v1/settings"),
        ("POST", "/api/v1/hooks/x"),
        ("GET", "/openapi.json"),
    ],
)
async def test_every_route_but_health_needs_the_token(api: Api, method: str, path: str) -> None:
    async with httpx.AsyncClient(base_url=api.url) as anonymous:
        response = await anonymous.request(method, path)
        wrong = await anonymous.request(method, path, headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401
    assert wrong.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")


async def test_chat_stream_reports_a_tool_call_written_as_text_and_runs_the_retry(
    api: Api, ollama: FakeOllama
) -> None:
    ollama.script(
        "/api/chat",
        ollama_text('<tool_call>{"name": "echo", "arguments": {"words": "ping"}}</tool_call>'),
        ollama_text('<tool_call>{"name": "echo", "arguments": {"text": "ping"}}</tool_call>'),
        ollama_text("The tool said ping.", chunks=2),
    )
    async with api.client.stream(
        "POST", "/api/v1/chat", json={"message": "use the tool"}
    ) as response:
        frames = await read_sse(response)
    names = [name for name, _ in frames]
    assert names == [
        "start",
        "tool-call-rejected",
        "tool-call",
        "tool-result",
        "text-delta",
        "text-delta",
        "done",
    ]
    assert frames[1][1]["name"] == "echo"
    assert "'text' is a required property" in frames[1][1]["reason"]
    assert frames[-1][1]["text"] == "The tool said ping."
    assert api.calls == [{"text": "ping"}]


async def test_a_turn_started_with_an_attachment_gives_it_to_the_model_fenced(
    api: Api, ollama: FakeOllama
) -> None:
    ollama.script("/api/chat", ollama_text("Milk.", chunks=1))
    async with api.client.stream("GET", "/api/v1/events", params={"types": "run-end"}) as response:
        lines = response.aiter_lines()
        assert await anext(lines) == ": ready"
        started = await api.client.post(
            "/api/v1/turns",
            json={
                "message": "What is on my list?",
                "attachments": [{"source": "notes: notes://todo", "text": "- buy milk"}],
            },
        )
        assert started.status_code == 202
        await read_sse_lines(lines, until="run-end")
    sent = ollama.requests_to("/api/chat")[-1].json()["messages"]
    attached = [m for m in sent if '<attachment source="notes: notes://todo"' in m["content"]]
    assert len(attached) == 1
    assert "- buy milk" in attached[0]["content"]
    assert sent[-1] == {"role": "user", "content": "What is on my list?"}
