"""Orchestrator + agent loop end to end: real router and backends over HTTP to the protocol
test servers, real SQLite storage in a temporary file, real audit log."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.orchestrator import Orchestrator, TurnOutcome
from aria_desktop.core.ports import Assistant
from aria_desktop.core.tools import PolicyDecision, Tool
from aria_desktop.domain.chat import CapabilityStatus, ChatMessage, ToolCall
from aria_desktop.domain.commands import (
    CancelTurn,
    Command,
    ConfirmAction,
    StartTurn,
    StopEverything,
)
from aria_desktop.domain.errors import ConfirmationError, NotFoundError, StorageError
from aria_desktop.domain.events import (
    ActionConfirmRequest,
    BackendFallback,
    ErrorEvent,
    Event,
    LlmDelta,
    RunEnd,
    ToolResultEvent,
)
from aria_desktop.llm import BreakerPolicy, OllamaBackend, RetryPolicy, Router, Timeouts
from aria_desktop.llm.anthropic import AnthropicBackend
from aria_desktop.memory.conversations import SQLiteConversationStore
from aria_desktop.memory.database import Database
from tests.fakes import FakeAnthropic, FakeOllama
from tests.fakes.audit import MemoryAuditStore
from tests.fakes.http_server import Drop, Hang, Send, Sleep
from tests.fakes.ollama_server import (
    chat_line,
    done_line,
    ollama_error,
    ollama_stream,
    ollama_text,
    ollama_tool_calls,
)

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


class Harness:
    """An orchestrator wired to real adapters, plus the helpers tests need."""

    def __init__(self, orchestrator: Orchestrator, store: SQLiteConversationStore, audit: AuditLog):
        self.orchestrator = orchestrator
        self.store = store
        self.audit = audit
        self.calls: list[dict[str, Any]] = []

    async def turn(
        self, text: str, conversation_id: str | None = None, *, timeout_s: float = 15.0
    ) -> tuple[list[Event], str]:
        """Run one turn; returns its events (in order) and the conversation id."""
        sub = self.orchestrator.bus.subscribe()
        try:
            handle = await self.orchestrator.handle(
                StartTurn(text=text, conversation_id=conversation_id)
            )
            events: list[Event] = []
            async with asyncio.timeout(timeout_s):
                async for event in sub:
                    if event.run_id == handle.run_id:
                        events.append(event)
                        if isinstance(event, RunEnd):
                            break
            await handle.wait(timeout_s=5)
            return events, handle.conversation_id
        finally:
            sub.close()

    def register_echo(self, permission: Any = "read_only", name: str = "echo") -> None:
        async def handler(args: dict[str, Any]) -> dict[str, Any]:
            self.calls.append(args)
            return {"echoed": args["text"]}

        self.orchestrator.tools.register(
            Tool(
                name=name,
                description="Echo text back",
                parameters={
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"],
                },
                permission=permission,
                handler=handler,
            )
        )


@pytest.fixture
async def harness_factory(
    tmp_path: Path, ollama: FakeOllama, anthropic: FakeAnthropic
) -> AsyncIterator[Any]:
    opened: list[tuple[Orchestrator, Router, Database]] = []

    async def make(
        chain: tuple[str, ...] = ("ollama", "anthropic"),
        config: AgentConfig | None = None,
        policy: Any = None,
    ) -> Harness:
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
        audit = AuditLog(MemoryAuditStore())
        kwargs: dict[str, Any] = {}
        if policy is not None:
            kwargs["policy"] = policy
        orchestrator = Orchestrator(
            model=router,
            store=store,
            audit=audit,
            config=config or AgentConfig(flush_interval_s=0.05),
            **kwargs,
        )
        opened.append((orchestrator, router, db))
        return Harness(orchestrator, store, audit)

    yield make
    for orchestrator, router, db in opened:
        await orchestrator.stop()
        await router.aclose()
        await db.close()


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


async def test_streamed_reply_events_and_stored_messages(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory()
    ollama.script("/api/chat", ollama_text("Hello there, human.", chunks=4))
    events, conversation_id = await h.turn("Hi")
    assert types(events) == [
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
    messages = await h.store.list_messages(conversation_id)
    assert [(m.role, m.status) for m in messages] == [
        ("user", "complete"),
        ("assistant", "complete"),
    ]
    assert messages[1].content == "Hello there, human."
    assert (messages[1].backend, messages[1].model) == ("ollama", "llama3.2")
    assert messages[1].usage.output_tokens == 7
    sent = ollama.requests_to("/api/chat")[0].json()
    assert sent["messages"][0]["role"] == "system"
    assert sent["messages"][-1] == {"role": "user", "content": "Hi"}


async def test_history_is_sent_on_the_next_turn(harness_factory: Any, ollama: FakeOllama) -> None:
    h = await harness_factory()
    ollama.script("/api/chat", ollama_text("First answer."), ollama_text("Second answer."))
    _, conversation_id = await h.turn("one")
    await h.turn("two", conversation_id)
    sent = ollama.requests_to("/api/chat")[1].json()["messages"]
    assert [(m["role"], m["content"]) for m in sent[1:]] == [
        ("user", "one"),
        ("assistant", "First answer."),
        ("user", "two"),
    ]


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


async def test_tool_call_runs_once_and_its_result_goes_back_to_the_model(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory()
    h.register_echo()
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("echo", {"text": "ping"})], with_ids=True),
        ollama_text("The tool said ping."),
    )
    events, conversation_id = await h.turn("use the tool")
    assert h.calls == [{"text": "ping"}]
    order = [
        t for t in types(events) if t in {"think-start", "tool-call", "tool-result", "run-end"}
    ]
    assert order == ["think-start", "tool-call", "tool-result", "think-start", "run-end"]
    second = ollama.requests_to("/api/chat")[1].json()["messages"]
    assert second[-1]["role"] == "tool"
    assert json.loads(second[-1]["content"]) == {"echoed": "ping"}
    messages = await h.store.list_messages(conversation_id)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1].tool_calls[0].name == "echo"
    kinds = [r.kind for r in h.audit.records()]
    assert kinds == ["tool-call", "policy-decision", "tool-result"]
    assert h.audit.verify().ok


async def test_a_repeated_tool_call_id_is_not_executed_twice(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory()
    h.register_echo()
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("echo", {"text": "once"})], with_ids=True),
        ollama_tool_calls([("echo", {"text": "once"})], with_ids=True),
        ollama_text("Done."),
    )
    events, _ = await h.turn("go")
    assert h.calls == [{"text": "once"}]
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [r.status for r in results] == ["ok", "ok"]
    assert results[0].result == results[1].result


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


async def test_consequential_tool_waits_for_approval_with_the_right_nonce(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory()
    h.register_echo(permission="consequential")
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("echo", {"text": "send it"})]),
        ollama_text("Sent."),
    )
    sub = h.orchestrator.bus.subscribe()
    handle = await h.orchestrator.handle(StartTurn(text="send"))
    async with asyncio.timeout(10):
        request = None
        async for event in sub:
            if isinstance(event, ActionConfirmRequest):
                request = event
                break
    assert request is not None
    assert h.calls == []
    with pytest.raises(ConfirmationError):
        await h.orchestrator.handle(
            ConfirmAction(request_id=request.request_id, nonce="forged", approved=True)
        )
    await h.orchestrator.handle(
        ConfirmAction(request_id=request.request_id, nonce=request.nonce, approved=True)
    )
    assert await handle.wait(timeout_s=10) == "complete"
    assert h.calls == [{"text": "send it"}]
    # The model never saw the nonce.
    for sent in ollama.requests_to("/api/chat"):
        assert request.nonce not in sent.body.decode()
    sub.close()


async def test_unanswered_confirmation_times_out_to_deny(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory(config=AgentConfig(confirm_timeout_s=0.2))
    h.register_echo(permission="consequential")
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("echo", {"text": "delete all"})]),
        ollama_text("I was not allowed."),
    )
    events, _ = await h.turn("delete")
    assert h.calls == []
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert result.status == "denied"
    assert "did not answer in time" in result.result
    confirmations = [r for r in h.audit.records() if r.kind == "confirmation"]
    assert confirmations[0].data["timed_out"] is True


async def test_policy_denial_is_reported_to_the_model_and_audited(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    async def deny_all(tool: Tool, call: ToolCall) -> PolicyDecision:
        return PolicyDecision(verdict="deny", rule="deny:test", reason="tests deny everything")

    h = await harness_factory(policy=deny_all)
    h.register_echo()
    ollama.script("/api/chat", ollama_tool_calls([("echo", {"text": "x"})]), ollama_text("Denied."))
    events, _ = await h.turn("try")
    assert h.calls == []
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert result.status == "denied"
    assert "deny:test" in result.result
    decision = next(r for r in h.audit.records() if r.kind == "policy-decision")
    assert decision.data["rule"] == "deny:test"


async def test_invalid_tool_arguments_are_refused_before_execution(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory()
    h.register_echo()
    ollama.script("/api/chat", ollama_tool_calls([("echo", {"txt": 1})]), ollama_text("Oops."))
    events, _ = await h.turn("bad args")
    assert h.calls == []
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert result.status == "error"
    assert "tool_arguments_invalid" in result.result


async def test_last_step_offers_no_tools_so_the_model_must_answer(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory(config=AgentConfig(max_steps=2))
    h.register_echo()
    ollama.script(
        "/api/chat", ollama_tool_calls([("echo", {"text": "a"})]), ollama_text("Final words.")
    )
    events, _ = await h.turn("loop")
    requests = [r.json() for r in ollama.requests_to("/api/chat")]
    assert [bool(r.get("tools")) for r in requests] == [True, False]
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status == "complete"


async def test_turn_deadline_stops_a_hanging_backend(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory(chain=("ollama",), config=AgentConfig(turn_deadline_s=0.5))
    ollama.script("/api/chat", ollama_stream([Hang()]))
    events, conversation_id = await h.turn("hang")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [e.code for e in errors] == ["turn_deadline"]
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status == "error"
    messages = await h.store.list_messages(conversation_id)
    assert messages[0].role == "user"


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


async def test_unknown_conversation_is_refused(harness_factory: Any) -> None:
    h = await harness_factory()
    with pytest.raises(NotFoundError):
        await h.orchestrator.handle(StartTurn(text="hi", conversation_id="nope"))


async def test_stop_cancels_running_turns(harness_factory: Any, ollama: FakeOllama) -> None:
    h = await harness_factory()
    ollama.script("/api/chat", ollama_stream([Hang()]))
    handle = await h.orchestrator.handle(StartTurn(text="wait"))
    await asyncio.sleep(0.1)
    await h.orchestrator.stop(timeout_s=5)
    assert handle.task.done()
    assert h.orchestrator.running_turns == []


async def test_done_line_without_text_completes_with_empty_answer(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory()
    ollama.script("/api/chat", ollama_stream([Send(done_line("llama3.2"))]))
    events, conversation_id = await h.turn("say nothing")
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status == "complete"
    assistant = [m for m in await h.store.list_messages(conversation_id) if m.role == "assistant"]
    assert assistant[0].status == "complete"


async def test_context_providers_add_fenced_data_and_a_failing_one_is_skipped(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory()

    async def recall(text: str, conversation_id: str) -> list[ChatMessage]:
        return [ChatMessage(role="system", content=f"<memories>about {text}</memories>")]

    async def broken(text: str, conversation_id: str) -> list[ChatMessage]:
        raise StorageError("disk on fire")

    h.orchestrator.add_context_provider(broken)
    h.orchestrator.add_context_provider(recall)
    ollama.script("/api/chat", ollama_text("Noted."))
    events, _ = await h.turn("Dana")
    assert events[-1].status == "complete"  # type: ignore[attr-defined]
    sent = ollama.requests_to("/api/chat")[0].json()["messages"]
    assert sent[1] == {"role": "system", "content": "<memories>about Dana</memories>"}


async def test_turn_observers_get_the_outcome_in_the_background(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory()
    seen: asyncio.Queue[TurnOutcome] = asyncio.Queue()

    async def observer(outcome: TurnOutcome) -> None:
        await seen.put(outcome)

    h.orchestrator.add_turn_observer(observer)
    ollama.script("/api/chat", ollama_text("Observed answer."))
    _, conversation_id = await h.turn("watch this")
    outcome = await asyncio.wait_for(seen.get(), 5)
    assert (outcome.user_text, outcome.answer, outcome.status) == (
        "watch this",
        "Observed answer.",
        "complete",
    )
    assert outcome.conversation_id == conversation_id
    assert outcome.backend == "ollama"


async def test_capabilities_register_their_own_commands(harness_factory: Any) -> None:
    h = await harness_factory()

    @dataclass(frozen=True, kw_only=True)
    class Ping(Command):
        value: int

    async def on_ping(command: Ping) -> int:
        return command.value + 1

    h.orchestrator.register_command(Ping, on_ping)
    assert await h.orchestrator.handle(Ping(value=41)) == 42
    with pytest.raises(ValueError, match="already has a handler"):
        h.orchestrator.register_command(StartTurn, on_ping)


async def test_local_assistant_drives_turns_and_conversations(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory()
    assistant: Assistant = LocalAssistant(h.orchestrator)
    ollama.script("/api/chat", ollama_text("Hi from the facade."))
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


async def test_kill_switch_cancels_turns_and_runs_every_stop_hook(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    h = await harness_factory()
    stopped: list[str] = []

    async def stop_speech() -> None:
        stopped.append("speech")

    async def broken_hook() -> None:
        raise RuntimeError("hook failed")

    h.orchestrator.add_stop_hook(stop_speech)
    h.orchestrator.add_stop_hook(broken_hook)
    ollama.script("/api/chat", ollama_stream([Hang()]))
    handle = await h.orchestrator.handle(StartTurn(text="long task"))
    await asyncio.sleep(0.1)
    assert await h.orchestrator.handle(StopEverything()) == 1
    assert await handle.wait(timeout_s=5) == "cancelled"
    assert stopped == ["speech"]


async def test_capability_probes_report_availability(harness_factory: Any) -> None:
    h = await harness_factory()
    h.orchestrator.register_capability(
        "voice", lambda: CapabilityStatus(name="voice", available=False, reason="no microphone")
    )
    assistant = LocalAssistant(h.orchestrator)
    assert await assistant.capabilities() == [
        CapabilityStatus(name="voice", available=False, reason="no microphone")
    ]


async def test_turn_end_keeps_a_state_another_component_owns(
    harness_factory: Any, ollama: FakeOllama
) -> None:
    """A turn ending while its answer is spoken must not flicker speaking -> idle -> speaking."""
    h = await harness_factory(chain=("ollama",))
    states: list[str] = []
    sub = h.orchestrator.bus.subscribe(event_filter=lambda e: e.type == "state-changed")

    async def collect() -> None:
        async for event in sub:
            states.append(event.state)  # type: ignore[attr-defined]

    collector = asyncio.create_task(collect())
    # What the voice pipeline does: show "speaking" as soon as the first sentence plays.
    speak_sub = h.orchestrator.bus.subscribe(event_filter=lambda e: e.type == "llm-delta")

    async def speak_on_first_delta() -> None:
        await speak_sub.get(timeout_s=10)
        h.orchestrator.set_state("speaking")

    speaker = asyncio.create_task(speak_on_first_delta())
    ollama.script("/api/chat", ollama_text("Here is the long spoken answer.", chunks=4))
    events, _ = await h.turn("Tell me something")
    await speaker
    assert events[-1].status == "complete"  # type: ignore[attr-defined]
    assert h.orchestrator.state == "speaking"  # the turn's end left voice's state alone
    h.orchestrator.set_state("idle")  # voice finishes speaking
    # A typed turn that fails still ends in "error"; the next good one returns to idle.
    ollama.script("/api/chat", ollama_error(503, "down"), ollama_error(503, "down"))
    failed, _ = await h.turn("again?")
    assert failed[-1].status == "error"  # type: ignore[attr-defined]
    ollama.script("/api/chat", ollama_text("Fine.", chunks=1))
    await h.turn("and now?")
    await asyncio.sleep(0.05)
    sub.close()
    speak_sub.close()
    await collector
    assert states == ["thinking", "speaking", "idle", "thinking", "error", "thinking", "idle"]
