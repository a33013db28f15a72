"""A whole chat turn against a small-window model: the turn records what the budget left out
(``prompt-fitted``), and a message no backend's window can hold ends as a clear error event."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from aria_desktop.adapters.llm import BreakerPolicy, OllamaBackend, RetryPolicy, Router, Timeouts
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.domain.chat import NewMessage, PromptBudgeted
from aria_desktop.domain.event_wire import event_from_dict
from aria_desktop.domain.events import ErrorEvent, PromptFitted, RunEnd
from tests.fakes import FakeOllama
from tests.fakes.harness import TurnHarness, new_audit_log

FAST = Timeouts(connect_s=1.0, first_token_s=5.0, stall_s=5.0, total_s=20.0)


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        server.context_length = 2048
        yield server


@pytest.fixture
async def harness(tmp_path: Path, ollama: FakeOllama) -> AsyncIterator[TurnHarness]:
    db = await Database.open(tmp_path / "aria.db")
    store = SQLiteConversationStore(db)
    router = Router(
        {"ollama": OllamaBackend(base_url=ollama.url, model="llama3.2", timeouts=FAST)},
        {"chat": ("ollama",)},
        retry=RetryPolicy(max_attempts=1, base_delay_s=0.0),
        breaker=BreakerPolicy(failure_threshold=100, reset_s=30.0),
    )
    audit = new_audit_log()
    orchestrator = Orchestrator(
        model=router,
        store=store,
        audit=audit,
        config=AgentConfig(flush_interval_s=0.05, max_tokens=256),
    )
    yield TurnHarness(orchestrator, store, audit)
    await orchestrator.stop()
    await router.aclose()
    await db.close()


async def test_a_turn_records_how_many_history_messages_were_left_out(
    harness: TurnHarness, ollama: FakeOllama
) -> None:
    conversation = await harness.store.create_conversation("long chat")
    for i in range(40):
        await harness.store.add_message(
            conversation.id, NewMessage(role="user", content=f"Question {i}. " * 15)
        )
        await harness.store.add_message(
            conversation.id, NewMessage(role="assistant", content=f"Answer {i}. " * 15)
        )
    events, _ = await harness.turn("What did I ask first?", conversation.id)
    (fitted,) = [e for e in events if isinstance(e, PromptFitted)]
    end = events[-1]
    assert isinstance(end, RunEnd)
    assert end.status == "complete"
    (body,) = [r.json() for r in ollama.requests_to("/api/chat")]
    assert fitted.fit.backend == "ollama"
    assert fitted.fit.context_tokens == body["options"]["num_ctx"] == 2048
    assert fitted.fit.dropped_messages > 0
    sent = body["messages"]
    assert sent[-1] == {"role": "user", "content": "What did I ask first?"}
    assert sent[0]["role"] == "system"
    # Every stored message is either sent or counted as left out (system prompt + newest aside).
    assert len(sent) - 2 + fitted.fit.dropped_messages == 80


async def test_a_message_no_window_can_hold_ends_as_a_clear_error(
    harness: TurnHarness, ollama: FakeOllama
) -> None:
    events, conversation_id = await harness.turn("Summarise: " + "lorem ipsum dolor " * 800)
    (error,) = [e for e in events if isinstance(e, ErrorEvent)]
    end = events[-1]
    assert isinstance(end, RunEnd)
    assert end.status == "error"
    assert "does not fit the model's context window" in error.message
    assert "larger context window" in (error.hint or "")
    assert ollama.requests_to("/api/chat") == []
    # The user's words are kept even so.
    stored = await harness.store.list_messages(conversation_id)
    assert stored[0].content.startswith("Summarise: lorem ipsum")


def test_prompt_fitted_crosses_the_api_wire_whole() -> None:
    fit = PromptBudgeted(
        backend="ollama", context_tokens=4096, estimated_tokens=3000, dropped_messages=12
    )
    event = PromptFitted(run_id="r1", fit=fit)
    assert event_from_dict(json.loads(json.dumps(event.to_dict()))) == event
