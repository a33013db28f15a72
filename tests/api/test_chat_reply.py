"""The chat route folds a turn with ``TurnTranscript``: the reply and the SSE ``done`` event
carry the answering backend's locality (in process, over ASGI, with a scripted assistant)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from aria_desktop.api.app import create_app
from aria_desktop.api.config import ApiConfig
from aria_desktop.api.token import TokenFile
from aria_desktop.core.bus import EventBus, Subscription
from aria_desktop.domain.chat import TurnStarted, Usage
from aria_desktop.domain.commands import StartTurn
from aria_desktop.domain.events import (
    ErrorEvent,
    Event,
    LlmDelta,
    RunEnd,
    RunStart,
    ThinkEnd,
    ThinkStart,
)
from aria_desktop.domain.locality import Locality


class ScriptedAssistant:
    """Publishes one scripted turn (and a stray event of another run) when a turn starts."""

    def __init__(self, locality: Locality) -> None:
        self.bus = EventBus()
        self.locality = locality

    def subscribe(self) -> Subscription:
        return self.bus.subscribe()

    async def start_turn(self, command: StartTurn) -> TurnStarted:
        run, conversation = "run_1", "conv_1"
        script: list[Event] = [
            RunStart(run_id=run, conversation_id=conversation, text=command.text),
            ThinkStart(run_id=run, step=1),
            LlmDelta(run_id=run, text="Let me look. "),
            ThinkEnd(run_id=run, step=1, backend="ollama", model="small", locality="local"),
            LlmDelta(run_id="run_other", text="not this turn"),
            ThinkStart(run_id=run, step=2),
            LlmDelta(run_id=run, text="It is "),
            LlmDelta(run_id=run, text="sunny."),
            ErrorEvent(run_id=run, code="llm_timeout", message="first", hint=""),
            ErrorEvent(run_id=run, code="llm_error", message="second", hint=""),
            ThinkEnd(
                run_id=run,
                step=2,
                backend="openai",
                model="big",
                locality=self.locality,
                usage=Usage(input_tokens=7, output_tokens=3),
            ),
            RunEnd(run_id=run, conversation_id=conversation, status="complete", latency_ms=12.5),
        ]
        for event in script:
            self.bus.publish(event)
        return TurnStarted(run_id=run, conversation_id=conversation)


def _client(tmp_path: Path, assistant: ScriptedAssistant) -> httpx.AsyncClient:
    app = create_app(
        assistant,  # type: ignore[arg-type]
        config=ApiConfig(port=0),
        token=TokenFile(tmp_path / "token"),
        version="test",
        port=lambda: 0,
    )
    transport = httpx.ASGITransport(app=app.fastapi)
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


EXPECTED_REPLY: dict[str, Any] = {
    "run_id": "run_1",
    "conversation_id": "conv_1",
    "status": "complete",
    "text": "It is sunny.",
    "backend": "openai",
    "model": "big",
    "usage": {
        "input_tokens": 7,
        "output_tokens": 3,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "cost": 0.0,
    },
    "latency_ms": 12.5,
    "error": {"code": "llm_timeout", "message": "first", "hint": ""},
    "thinking": "",
}


@pytest.mark.parametrize("locality", ["cloud", "local"])
async def test_the_whole_reply_carries_the_last_steps_locality(
    tmp_path: Path, locality: Locality
) -> None:
    async with _client(tmp_path, ScriptedAssistant(locality)) as client:
        response = await client.post("/api/v1/chat", json={"message": "hi", "stream": False})
    assert response.status_code == 200
    assert response.json() == {**EXPECTED_REPLY, "locality": locality}


async def test_the_streamed_done_event_carries_the_locality(tmp_path: Path) -> None:
    async with _client(tmp_path, ScriptedAssistant("cloud")) as client:
        response = await client.post("/api/v1/chat", json={"message": "hi"})
    assert response.status_code == 200
    frames = [block.split("\n") for block in response.text.split("\n\n") if block.strip()]
    named = [(lines[0][7:], json.loads(lines[1][6:])) for lines in frames if len(lines) == 2]
    assert [name for name, _ in named] == [
        "start",
        "text-delta",
        "text-delta",
        "text-delta",
        "error",
        "error",
        "done",
    ]
    assert named[-1][1] == {**EXPECTED_REPLY, "locality": "cloud"}
