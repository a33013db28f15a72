"""Where the answering model runs reaches the events: ``think-end`` and ``state-changed``.

Real backends (Ollama and Anthropic test servers over HTTP) behind the real router, so the
locality each backend carries from its construction is what the agent and orchestrator publish.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aria_desktop.adapters.llm import OllamaBackend, RetryPolicy, Router, Timeouts
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.domain.commands import StartTurn
from aria_desktop.domain.events import Event, RunEnd, StateChanged, ThinkEnd
from tests.fakes import FakeAnthropic, FakeOllama
from tests.fakes.anthropic_server import anthropic_text
from tests.fakes.audit import MemoryAuditStore
from tests.fakes.ollama_server import ollama_text

FAST = Timeouts(connect_s=1.0, first_token_s=5.0, stall_s=5.0, total_s=20.0)
Rig = tuple[Orchestrator, FakeOllama, FakeAnthropic]


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    ollama, anthropic = FakeOllama(), FakeAnthropic()
    with ollama, anthropic:
        db = await Database.open(tmp_path / "aria.db")
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
            {"chat": ("ollama", "anthropic")},
            retry=RetryPolicy(max_attempts=1, base_delay_s=0.0, max_delay_s=0.0),
        )
        orchestrator = Orchestrator(
            model=router,
            store=SQLiteConversationStore(db),
            audit=AuditLog(MemoryAuditStore()),
            config=AgentConfig(flush_interval_s=0.05),
        )
        try:
            yield orchestrator, ollama, anthropic
        finally:
            await orchestrator.stop()
            await router.aclose()
            await db.close()


async def turn_events(orchestrator: Orchestrator, command: StartTurn) -> list[Event]:
    """The events of one turn, up to its run-end."""
    sub = orchestrator.bus.subscribe()
    try:
        handle = await orchestrator.handle(command)
        events: list[Event] = []
        async with asyncio.timeout(15):
            async for event in sub:
                if event.run_id == handle.run_id:
                    events.append(event)
                    if isinstance(event, RunEnd):
                        return events
        return events
    finally:
        sub.close()


async def test_think_end_and_state_changed_carry_the_answering_backends_locality(
    rig: Rig,
) -> None:
    core, ollama, anthropic = rig
    ollama.script("/api/chat", ollama_text("Local answer."))
    anthropic.script("/v1/messages", anthropic_text("Cloud answer."))
    for backend, expected in (("ollama", "local"), ("anthropic", "cloud")):
        events = await turn_events(core, StartTurn(text="Where?", backend=backend))
        [think_end] = [e for e in events if isinstance(e, ThinkEnd)]
        assert (think_end.backend, think_end.locality) == (backend, expected)
        idle = [e for e in events if isinstance(e, StateChanged) and e.state == "idle"]
        assert [(e.backend, e.locality) for e in idle] == [(backend, expected)]
