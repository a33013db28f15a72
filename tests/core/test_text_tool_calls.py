"""A model that writes its tool call as text: run for real, never shown, never spoken.

Real backends (the scripted Ollama and OpenAI-compatible servers over HTTP) behind the real
router and orchestrator, a real tool, a real SQLite conversation store; the speech path is the
one the voice pipeline uses (``llm-delta`` events -> ``SentenceSplitter`` ->
``SpeechService.speak_stream``) with a text-recording speech engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.llm import OllamaBackend, RetryPolicy, Router, Timeouts
from aria_desktop.adapters.llm.openai_compat import OpenAICompatBackend
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.tools import Tool, ToolRegistry
from aria_desktop.core.voice.speech import SpeechService
from aria_desktop.core.voice.speech_text import SentenceSplitter
from aria_desktop.domain.audio import SpeechAudio
from aria_desktop.domain.commands import StartTurn
from aria_desktop.domain.events import (
    ErrorEvent,
    Event,
    LlmDelta,
    RunEnd,
    ToolCallRejectedEvent,
    ToolResultEvent,
)
from tests.fakes import FakeOllama
from tests.fakes.audit import MemoryAuditStore
from tests.fakes.http_server import Drop, FakeHTTPServer, Reply, Send, Step
from tests.fakes.ollama_server import chat_line, ollama_stream, ollama_text
from tests.fakes.openai_server import FakeOpenAI, chunk, finish, openai_stream, text_steps

FAST = Timeouts(connect_s=1.0, first_token_s=5.0, stall_s=5.0, total_s=20.0)
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
SHAPES = {
    "bare-json": '{"name": "get_weather", "arguments": {"city": "Paris"}}',
    "tag": CALL,
    "fenced-json": '```json\n{"tool": "get_weather", "parameters": {"city": "Paris"}}\n```',
    "llama-python-tag": '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}',
    "mistral": '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]',
}
BAD_CALL = '{"name": "get_weather", "arguments": {"town": "Paris"}}'


def openai_text(text: str) -> Reply:
    return openai_stream([*text_steps(text, chunks=5), *finish()])


@dataclass
class Backend:
    """One scripted server and how it answers and what it was sent."""

    name: str
    server: FakeHTTPServer
    path: str
    reply: Callable[[str], Reply]
    weather: list[dict[str, Any]] = field(default_factory=list)

    def script(self, *texts: str) -> None:
        self.server.script(self.path, *(self.reply(text) for text in texts))

    def sent(self) -> list[list[dict[str, Any]]]:
        """The messages of each request the server received."""
        return [r.json()["messages"] for r in self.server.requests_to(self.path)]


class RecordingTts:
    """A speech engine that keeps the text it was asked to say (and returns silence)."""

    name = "recording-tts"
    sample_rate_hz = 16_000

    def __init__(self) -> None:
        self.said: list[str] = []

    async def load(self) -> None:
        return None

    async def synthesize(self, text: str) -> AsyncGenerator[SpeechAudio, None]:
        self.said.append(text)
        yield SpeechAudio(pcm=b"\0\0" * 160, sample_rate_hz=16_000, text=text)

    async def aclose(self) -> None:
        return None


class SilentSink:
    """An audio output that plays nothing at once (only what reaches it matters here)."""

    name = "silent"

    async def write(self, audio: SpeechAudio) -> None:
        return None

    async def drain(self) -> None:
        return None

    def stop(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


@pytest.fixture(params=["ollama", "openai"])
async def rig(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    ollama, openai = FakeOllama(), FakeOpenAI()
    with ollama, openai:
        db = await Database.open(tmp_path / "aria.db")
        backend = (
            Backend("ollama", ollama, "/api/chat", lambda t: ollama_text(t, chunks=6))
            if request.param == "ollama"
            else Backend("openai", openai, "/v1/chat/completions", openai_text)
        )
        router = Router(
            {
                "ollama": OllamaBackend(base_url=ollama.url, model="qwen2.5:0.5b", timeouts=FAST),
                "openai": OpenAICompatBackend(
                    base_url=openai.url, model="smollm2", api_key=None, timeouts=FAST
                ),
            },
            {"chat": (backend.name,)},
            retry=RetryPolicy(max_attempts=1, base_delay_s=0.0, max_delay_s=0.0),
        )
        tools = ToolRegistry()

        async def get_weather(args: dict[str, Any]) -> dict[str, Any]:
            backend.weather.append(args)
            return {"city": args["city"], "sky": "sunny"}

        tools.register(
            Tool(
                name="get_weather",
                description="Current weather in a city.",
                parameters={
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                    "additionalProperties": False,
                },
                permission="read_only",
                handler=get_weather,
            )
        )
        store = SQLiteConversationStore(db)
        orchestrator = Orchestrator(
            model=router,
            store=store,
            audit=AuditLog(MemoryAuditStore()),
            tools=tools,
            config=AgentConfig(flush_interval_s=0.05),
        )
        try:
            yield orchestrator, backend, store
        finally:
            await orchestrator.stop()
            await router.aclose()
            await db.close()


async def spoken_turn(orchestrator: Orchestrator, text: str) -> tuple[list[Event], list[str]]:
    """One turn's events, and what the voice pipeline's speech path would have said."""
    tts = RecordingTts()
    speech = SpeechService(bus=orchestrator.bus, tts=tts, stt=None, sink=SilentSink())
    events: list[Event] = []
    sub = orchestrator.bus.subscribe()
    try:
        handle = await orchestrator.handle(StartTurn(text=text, source="voice"))

        async def sentences() -> AsyncIterator[str]:
            splitter = SentenceSplitter()
            async for event in sub:
                if event.run_id != handle.run_id:
                    continue
                events.append(event)
                if isinstance(event, LlmDelta):
                    for sentence in splitter.feed(event.text):
                        yield sentence
                elif isinstance(event, RunEnd):
                    for sentence in splitter.flush():
                        yield sentence
                    return

        async with asyncio.timeout(15):
            await speech.speak_stream(sentences(), run_id=handle.run_id)
        return events, tts.said
    finally:
        sub.close()


def shown(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, LlmDelta))


@pytest.mark.parametrize("shape", list(SHAPES))
async def test_a_tool_call_written_as_text_is_run_and_never_shown_or_spoken(
    rig: Any, shape: str
) -> None:
    orchestrator, backend, store = rig
    backend.script(SHAPES[shape], "It is sunny in Paris.")
    events, said = await spoken_turn(orchestrator, "What's the weather in Paris?")

    assert backend.weather == [{"city": "Paris"}]  # the real tool ran, once
    [result] = [e for e in events if isinstance(e, ToolResultEvent)]
    assert (result.name, result.status) == ("get_weather", "ok")
    assert shown(events) == "It is sunny in Paris."
    assert said == ["It is sunny in Paris."]
    assert next(e for e in events if isinstance(e, RunEnd)).status == "complete"
    # the model's next request carries the call as a real call and its result
    second = backend.sent()[1]
    assert [m.get("content") for m in second if m["role"] == "assistant"] in ([""], [None])
    assert any(m["role"] == "tool" and "sunny" in m["content"] for m in second)
    # and storage keeps the call, not the text
    [conversation] = await store.list_conversations()
    stored = await store.list_messages(conversation.id)
    first_reply = next(m for m in stored if m.role == "assistant")
    assert first_reply.content == ""
    assert [c.name for c in first_reply.tool_calls] == ["get_weather"]


async def test_a_bad_call_is_reported_to_the_model_which_tries_once_more(rig: Any) -> None:
    orchestrator, backend, _store = rig
    backend.script(BAD_CALL, CALL, "Sunny.")
    events, said = await spoken_turn(orchestrator, "Weather in Paris?")

    [rejected] = [e for e in events if isinstance(e, ToolCallRejectedEvent)]
    assert rejected.name == "get_weather"
    assert "'city' is a required property" in rejected.reason
    assert backend.weather == [{"city": "Paris"}]
    assert said == ["Sunny."]
    assert "town" not in shown(events)
    retry = backend.sent()[1]
    assert retry[-2] == {"role": "assistant", "content": BAD_CALL}
    assert retry[-1]["role"] == "user"
    assert "'city' is a required property" in retry[-1]["content"]


async def test_two_bad_calls_end_the_turn_with_a_clear_error_and_nothing_spoken(
    rig: Any,
) -> None:
    orchestrator, backend, _store = rig
    backend.script(BAD_CALL, '<tool_call>{"name": "launch_rockets", "arguments": {}}</tool_call>')
    events, said = await spoken_turn(orchestrator, "Weather in Paris?")

    assert backend.weather == []
    assert len([e for e in events if isinstance(e, ToolCallRejectedEvent)]) == 2
    [error] = [e for e in events if isinstance(e, ErrorEvent)]
    assert error.code == "llm_invalid_tool_call"
    assert "launch_rockets" in error.message
    assert error.hint
    assert next(e for e in events if isinstance(e, RunEnd)).status == "error"
    assert shown(events) == ""
    assert said == []


async def test_a_reply_cut_inside_a_written_call_keeps_only_the_text_before_it(rig: Any) -> None:
    orchestrator, backend, store = rig
    pieces = ["Let me check. ", '<tool_call>{"name": "get_weather", "argu']
    if backend.name == "ollama":
        reply = ollama_stream([*(Send(chat_line("qwen2.5:0.5b", p)) for p in pieces), Drop()])
    else:
        steps: list[Step] = [chunk({"content": p}) for p in pieces]
        reply = openai_stream([*steps, Drop()])
    backend.server.script(backend.path, reply)
    events, said = await spoken_turn(orchestrator, "Weather in Paris?")

    assert next(e for e in events if isinstance(e, RunEnd)).status == "interrupted"
    assert shown(events) == "Let me check."
    assert said == ["Let me check."]
    assert backend.weather == []
    [conversation] = await store.list_conversations()
    reply_row = next(m for m in await store.list_messages(conversation.id) if m.role == "assistant")
    assert (reply_row.status, reply_row.content) == ("interrupted", "Let me check.")
