"""The orchestrator: turns, events, cancellation, observers, commands and state.

Core logic runs on in-memory ports (tests/fakes/ports.py: a scripted chat model and an
in-memory conversation store), so those tests fail only for a reason in the core. The tests at
the end ("adapters") run turns end to end through the real router and backends over HTTP to
the protocol test servers, with SQLite in a temporary file: what only the adapters can show
(fallback between backends, a cut or truncated HTTP stream, closing the stream on cancel).
Tool handling in the agent loop: tests/core/test_agent_loop.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.llm import BreakerPolicy, OllamaBackend, RetryPolicy, Router, Timeouts
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.core.orchestrator import Orchestrator, TurnOutcome
from aria_desktop.core.ports import Assistant
from aria_desktop.domain.chat import CapabilityStatus, ChatMessage, TextDelta, Usage
from aria_desktop.domain.commands import CancelTurn, Command, StartTurn, StopEverything
from aria_desktop.domain.errors import NoBackendError, NotFoundError, StorageError
from aria_desktop.domain.events import BackendFallback, ErrorEvent, LlmDelta, RunEnd
from tests.fakes import FakeAnthropic, FakeOllama
from tests.fakes.harness import FakeCore, TurnHarness, event_types, fake_cores, new_audit_log
from tests.fakes.http_server import Drop, Send, Sleep
from tests.fakes.ollama_server import (
    chat_line,
    ollama_error,
    ollama_stream,
    ollama_text,
)
from tests.fakes.ports import Hang, Raise, text_reply

CoreFactory = Callable[..., Awaitable[FakeCore]]


@pytest.fixture
async def make_core(tmp_path: Path) -> AsyncIterator[CoreFactory]:
    async with fake_cores(tmp_path) as make:
        yield make


# --- core logic, on in-memory ports ----------------------------------------------------------


async def test_streamed_reply_events_and_stored_messages(make_core: CoreFactory) -> None:
    core = await make_core()
    core.model.script(
        text_reply("Hello there, human.", chunks=4, usage=Usage(input_tokens=12, output_tokens=7))
    )
    events, conversation_id = await core.turn("Hi")
    assert event_types(events) == [
        "run-start",
        "state-changed",
        "think-start",
        "llm-delta",
        "llm-delta",
        "llm-delta",
        "llm-delta",
        "message-saved",
        "think-end",
        "state-changed",
        "run-end",
    ]
    assert "".join(e.text for e in events if isinstance(e, LlmDelta)) == "Hello there, human."
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status == "complete"
    messages = await core.store.list_messages(conversation_id)
    assert [(m.role, m.status) for m in messages] == [
        ("user", "complete"),
        ("assistant", "complete"),
    ]
    assert messages[1].content == "Hello there, human."
    assert (messages[1].backend, messages[1].model) == ("fake", "fake-model")
    assert messages[1].usage.output_tokens == 7
    [sent] = core.model.requests
    assert sent.messages[0].role == "system"
    assert (sent.messages[-1].role, sent.messages[-1].content) == ("user", "Hi")


async def test_history_is_sent_on_the_next_turn(make_core: CoreFactory) -> None:
    core = await make_core()
    core.model.script(text_reply("First answer."), text_reply("Second answer."))
    _, conversation_id = await core.turn("one")
    await core.turn("two", conversation_id)
    sent = core.model.requests[1].messages
    assert [(m.role, m.content) for m in sent[1:]] == [
        ("user", "one"),
        ("assistant", "First answer."),
        ("user", "two"),
    ]


async def test_cancel_closes_the_model_stream_and_saves_partial_text(
    make_core: CoreFactory,
) -> None:
    core = await make_core()
    core.model.script([TextDelta(text="Thinking slowly"), Hang()])
    async with core.orchestrator.bus.subscribe() as sub:
        handle = await core.orchestrator.handle(StartTurn(text="slow please"))
        async with asyncio.timeout(5):
            async for event in sub:
                if isinstance(event, LlmDelta):
                    break
    await asyncio.wait_for(core.model.hanging.wait(), 5)
    assert await core.orchestrator.handle(CancelTurn(run_id=handle.run_id)) == 1
    assert await handle.wait(timeout_s=5) == "cancelled"
    assert core.model.closed.is_set()
    messages = await core.store.list_messages(handle.conversation_id)
    assert [(m.role, m.status, m.content) for m in messages] == [
        ("user", "complete", "slow please"),
        ("assistant", "interrupted", "Thinking slowly"),
    ]


async def test_turn_deadline_stops_a_hanging_model(make_core: CoreFactory) -> None:
    core = await make_core(config=AgentConfig(turn_deadline_s=0.5))
    core.model.script([Hang()])
    events, conversation_id = await core.turn("hang")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [e.code for e in errors] == ["turn_deadline"]
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status == "error"
    assert core.model.closed.is_set()
    messages = await core.store.list_messages(conversation_id)
    assert messages[0].role == "user"


async def test_a_model_error_gives_one_error_event_with_its_hint(make_core: CoreFactory) -> None:
    core = await make_core()
    core.model.script([Raise(NoBackendError("Every backend failed.", hint="Start Ollama."))])
    events, conversation_id = await core.turn("anyone?")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [(e.code, e.hint) for e in errors] == [("no_backend", "Start Ollama.")]
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status == "error"
    # The failed reply keeps why, for a window that reopens the conversation later.
    reply = (await core.store.list_messages(conversation_id))[-1]
    assert (reply.role, reply.status, reply.error_code, reply.error_message) == (
        "assistant",
        "error",
        "no_backend",
        "Every backend failed.",
    )


async def test_unknown_conversation_is_refused(make_core: CoreFactory) -> None:
    core = await make_core()
    with pytest.raises(NotFoundError):
        await core.orchestrator.handle(StartTurn(text="hi", conversation_id="nope"))
    assert core.model.requests == []


async def test_stop_cancels_running_turns(make_core: CoreFactory) -> None:
    core = await make_core()
    core.model.script([Hang()])
    handle = await core.orchestrator.handle(StartTurn(text="wait"))
    await asyncio.wait_for(core.model.hanging.wait(), 5)  # the turn is inside the model call
    await core.orchestrator.stop(timeout_s=5)
    assert handle.task.done()
    assert core.orchestrator.running_turns == []


async def test_a_reply_without_text_completes_with_an_empty_answer(
    make_core: CoreFactory,
) -> None:
    core = await make_core()
    core.model.script(text_reply(""))
    events, conversation_id = await core.turn("say nothing")
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status == "complete"
    assistant = [
        m for m in await core.store.list_messages(conversation_id) if m.role == "assistant"
    ]
    assert [(m.status, m.content) for m in assistant] == [("complete", "")]


async def test_context_providers_add_fenced_data_and_a_failing_one_is_skipped(
    make_core: CoreFactory,
) -> None:
    core = await make_core()

    async def recall(text: str, conversation_id: str) -> list[ChatMessage]:
        return [ChatMessage(role="system", content=f"<memories>about {text}</memories>")]

    async def broken(text: str, conversation_id: str) -> list[ChatMessage]:
        raise StorageError("disk on fire")

    core.orchestrator.add_context_provider(broken)
    core.orchestrator.add_context_provider(recall)
    core.model.script(text_reply("Noted."))
    events, _ = await core.turn("Dana")
    assert events[-1].status == "complete"  # type: ignore[attr-defined]
    sent = core.model.requests[0].messages
    assert (sent[1].role, sent[1].content) == ("system", "<memories>about Dana</memories>")


async def test_turn_observers_get_the_outcome_in_the_background(make_core: CoreFactory) -> None:
    core = await make_core()
    seen: asyncio.Queue[TurnOutcome] = asyncio.Queue()

    async def observer(outcome: TurnOutcome) -> None:
        await seen.put(outcome)

    core.orchestrator.add_turn_observer(observer)
    core.model.script(text_reply("Observed answer.", backend="ollama"))
    _, conversation_id = await core.turn("watch this")
    outcome = await asyncio.wait_for(seen.get(), 5)
    assert (outcome.user_text, outcome.answer, outcome.status) == (
        "watch this",
        "Observed answer.",
        "complete",
    )
    assert outcome.conversation_id == conversation_id
    assert outcome.backend == "ollama"


async def test_capabilities_register_their_own_commands(make_core: CoreFactory) -> None:
    core = await make_core()

    @dataclass(frozen=True, kw_only=True)
    class Ping(Command):
        value: int

    async def on_ping(command: Ping) -> int:
        return command.value + 1

    core.orchestrator.register_command(Ping, on_ping)
    assert await core.orchestrator.handle(Ping(value=41)) == 42
    with pytest.raises(ValueError, match="already has a handler"):
        core.orchestrator.register_command(StartTurn, on_ping)


async def test_local_assistant_drives_turns_and_conversations(make_core: CoreFactory) -> None:
    core = await make_core()
    assistant: Assistant = LocalAssistant(core.orchestrator)
    core.model.script(text_reply("Hi from the facade."))
    async with assistant.subscribe() as sub:
        started = await assistant.start_turn(StartTurn(text="hello"))
        async with asyncio.timeout(10):
            async for event in sub:
                if isinstance(event, RunEnd) and event.run_id == started.run_id:
                    break
    assert assistant.state == "idle"
    [conversation] = await assistant.list_conversations()
    assert conversation.id == started.conversation_id
    await assistant.rename_conversation(conversation.id, "Greetings")
    assert (await assistant.get_conversation(conversation.id)).title == "Greetings"  # type: ignore[union-attr]
    messages = await assistant.list_messages(conversation.id)
    assert [m.content for m in messages] == ["hello", "Hi from the facade."]
    await assistant.delete_conversation(conversation.id)
    with pytest.raises(NotFoundError):
        await assistant.list_messages(conversation.id)


async def test_kill_switch_cancels_turns_and_runs_every_stop_hook(make_core: CoreFactory) -> None:
    core = await make_core()
    stopped: list[str] = []

    async def stop_speech() -> None:
        stopped.append("speech")

    async def broken_hook() -> None:
        raise RuntimeError("hook failed")

    core.orchestrator.add_stop_hook(stop_speech)
    core.orchestrator.add_stop_hook(broken_hook)
    core.model.script([Hang()])
    handle = await core.orchestrator.handle(StartTurn(text="long task"))
    await asyncio.wait_for(core.model.hanging.wait(), 5)  # the turn is inside the model call
    assert await core.orchestrator.handle(StopEverything()) == 1
    assert await handle.wait(timeout_s=5) == "cancelled"
    assert stopped == ["speech"]


async def test_capability_probes_report_availability(make_core: CoreFactory) -> None:
    core = await make_core()
    core.orchestrator.register_capability(
        "voice", lambda: CapabilityStatus(name="voice", available=False, reason="no microphone")
    )
    assistant = LocalAssistant(core.orchestrator)
    assert await assistant.capabilities() == [
        CapabilityStatus(name="voice", available=False, reason="no microphone")
    ]


async def test_turn_end_keeps_a_state_another_component_owns(make_core: CoreFactory) -> None:
    """A turn ending while its answer is spoken must not flicker speaking -> idle -> speaking."""
    core = await make_core()
    states: list[str] = []
    sub = core.orchestrator.bus.subscribe(event_filter=lambda e: e.type == "state-changed")

    async def collect() -> None:
        async for event in sub:
            states.append(event.state)  # type: ignore[attr-defined]

    collector = asyncio.create_task(collect())
    # What the voice pipeline does: show "speaking" as soon as the first sentence plays.
    speak_sub = core.orchestrator.bus.subscribe(event_filter=lambda e: e.type == "llm-delta")

    async def speak_on_first_delta() -> None:
        await speak_sub.get(timeout_s=10)
        core.orchestrator.set_state("speaking")

    speaker = asyncio.create_task(speak_on_first_delta())
    core.model.script(text_reply("Here is the long spoken answer.", chunks=4))
    events, _ = await core.turn("Tell me something")
    await speaker
    assert events[-1].status == "complete"  # type: ignore[attr-defined]
    assert core.orchestrator.state == "speaking"  # the turn's end left voice's state alone
    core.orchestrator.set_state("idle")  # voice finishes speaking
    # A typed turn that fails still ends in "error"; the next good one returns to idle.
    core.model.script([Raise(NoBackendError("Every backend failed."))])
    failed, _ = await core.turn("again?")
    assert failed[-1].status == "error"  # type: ignore[attr-defined]
    core.model.script(text_reply("Fine."))
    await core.turn("and now?")
    # Every state change was published before its turn's run-end: closing the subscription
    # now lets the collector drain them all and stop.
    sub.close()
    speak_sub.close()
    await asyncio.wait_for(collector, 5)
    assert states == ["thinking", "speaking", "idle", "thinking", "error", "thinking", "idle"]


# --- adapters: the real router, backends over HTTP, SQLite -------------------------------------

FAST = Timeouts(connect_s=1.0, first_token_s=5.0, stall_s=5.0, total_s=20.0)
NO_WAIT_RETRY = RetryPolicy(max_attempts=2, base_delay_s=0.0, max_delay_s=0.0)


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def anthropic() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
async def harness_factory(
    tmp_path: Path, ollama: FakeOllama, anthropic: FakeAnthropic
) -> AsyncIterator[Callable[..., Awaitable[TurnHarness]]]:
    opened: list[tuple[Orchestrator, Router, Database]] = []

    async def make(chain: tuple[str, ...] = ("ollama", "anthropic")) -> TurnHarness:
        db = await Database.open(tmp_path / f"aria{len(opened)}.db")
        store = SQLiteConversationStore(db)
        router = Router(
            {
                "ollama": OllamaBackend(base_url=ollama.url, model="llama3.2", timeouts=FAST),
                "anthropic": AnthropicBackend(
                    api_key="sk-ant-test-key-000000",
                    model="claude-sonnet-5-5",
                    base_url=anthropic.url,
                    timeouts=FAST,
                ),
            },
            {"chat": chain},
            retry=NO_WAIT_RETRY,
            breaker=BreakerPolicy(failure_threshold=5, reset_s=30.0),
        )
        audit = new_audit_log()
        orchestrator = Orchestrator(
            model=router, store=store, audit=audit, config=AgentConfig(flush_interval_s=0.05)
        )
        opened.append((orchestrator, router, db))
        return TurnHarness(orchestrator, store, audit)

    yield make
    for orchestrator, router, db in opened:
        await orchestrator.stop()
        await router.aclose()
        await db.close()


async def test_a_streamed_reply_over_http_is_stored_with_its_backend_model_and_usage(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory()
    ollama.script("/api/chat", ollama_text("Hello there, human.", chunks=4))
    events, conversation_id = await h.turn("Hi")
    assert "".join(e.text for e in events if isinstance(e, LlmDelta)) == "Hello there, human."
    messages = await h.store.list_messages(conversation_id)
    assert [(m.role, m.status) for m in messages] == [
        ("user", "complete"),
        ("assistant", "complete"),
    ]
    assert (messages[1].backend, messages[1].model) == ("ollama", "llama3.2")
    assert messages[1].usage.output_tokens == 7
    sent = ollama.requests_to("/api/chat")[0].json()
    assert sent["messages"][0]["role"] == "system"
    assert sent["messages"][-1] == {"role": "user", "content": "Hi"}


async def test_fallback_to_anthropic_mid_conversation_records_the_answering_model(
    harness_factory: Any, ollama: FakeOllama, anthropic: FakeAnthropic
) -> None:
    h = await harness_factory()
    ollama.script("/api/chat", ollama_text("Local answer."))
    _, conversation_id = await h.turn("first")
    ollama.script("/api/chat", ollama_error(500, "boom"), ollama_error(500, "boom"))
    events, _ = await h.turn("second", conversation_id)
    fallback = [e for e in events if isinstance(e, BackendFallback)]
    assert [(f.from_backend, f.to_backend) for f in fallback] == [("ollama", "anthropic")]
    messages = await h.store.list_messages(conversation_id)
    assistant = [m for m in messages if m.role == "assistant"]
    assert [(m.backend, m.model, m.status) for m in assistant] == [
        ("ollama", "llama3.2", "complete"),
        ("anthropic", "claude-sonnet-5-5", "complete"),
    ]
    assert assistant[1].content == "Hello from fake Claude."
    # The cloud model got the whole conversation, local answer included.
    sent = anthropic.requests_to("/v1/messages")[0].json()
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]


async def test_stream_cut_midway_keeps_partial_text_as_interrupted(
    harness_factory: Any, ollama: FakeOllama, anthropic: FakeAnthropic
) -> None:
    h = await harness_factory()
    ollama.script(
        "/api/chat",
        ollama_stream(
            [Send(chat_line("llama3.2", "Partial ")), Send(chat_line("llama3.2", "text")), Drop()]
        ),
    )
    events, conversation_id = await h.turn("tell me")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [e.code for e in errors] == ["llm_stream_interrupted"]
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status == "interrupted"
    messages = await h.store.list_messages(conversation_id)
    assert [(m.role, m.status, m.content) for m in messages] == [
        ("user", "complete", "tell me"),
        ("assistant", "interrupted", "Partial text"),
    ]
    # Text was already shown: no silent second answer from the fallback.
    assert anthropic.requests_to("/v1/messages") == []


async def test_truncated_tool_call_never_executes(harness_factory: Any, ollama: FakeOllama) -> None:
    h = await harness_factory(chain=("ollama",))
    h.register_echo()
    ollama.script(
        "/api/chat",
        ollama_stream(
            [
                Send(
                    chat_line(
                        "llama3.2", "", [{"function": {"name": "echo", "arguments": {"text": "x"}}}]
                    )
                ),
                Send(b'{"model":"llama3.2","message":{"role":"assistant","content":"", "tool_'),
                Drop(),
            ]
        ),
    )
    events, conversation_id = await h.turn("go")
    assert h.calls == []
    assert not [e for e in events if e.type == "tool-call"]
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status in {"interrupted", "error"}
    assistant = [m for m in await h.store.list_messages(conversation_id) if m.role == "assistant"]
    assert assistant
    assert all(not m.tool_calls for m in assistant)


async def test_cancel_closes_the_http_stream_and_saves_partial_text(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory()
    ollama.script(
        "/api/chat",
        ollama_stream([Send(chat_line("llama3.2", "Thinking slowly"))] + [Sleep(0.2)] * 100),
    )
    sub = h.orchestrator.bus.subscribe()
    handle = await h.orchestrator.handle(StartTurn(text="slow please"))
    async with asyncio.timeout(5):
        async for event in sub:
            if isinstance(event, LlmDelta):
                break
    assert await h.orchestrator.handle(CancelTurn(run_id=handle.run_id)) == 1
    assert await handle.wait(timeout_s=5) == "cancelled"
    assert await ollama.wait_disconnect(timeout_s=2.0)
    messages = await h.store.list_messages(handle.conversation_id)
    assert [(m.role, m.status, m.content) for m in messages] == [
        ("user", "complete", "slow please"),
        ("assistant", "interrupted", "Thinking slowly"),
    ]
    sub.close()


async def test_no_usable_backend_gives_one_error_with_a_hint(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory(chain=("ollama",))
    ollama.script("/api/chat", ollama_error(503, "down"), ollama_error(503, "down"))
    events, _ = await h.turn("anyone?")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1
    assert errors[0].code == "no_backend"
    assert errors[0].hint
