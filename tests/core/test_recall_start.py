"""Context providers (memory, knowledge recall) start with the turn, side by side.

They are started when the turn is created, before its task runs, so a provider that knows at
once there is nothing to recall has answered by the time the turn asks, and the model request
goes out without another turn of the event loop (ARCHITECTURE.md: first-chunk latency).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from aria_desktop.domain.chat import ChatMessage
from aria_desktop.domain.commands import CancelTurn, StartTurn
from aria_desktop.domain.events import Event, RunStart
from tests.fakes.harness import FakeCore, fake_cores
from tests.fakes.ports import text_reply

CoreFactory = Callable[..., Awaitable[FakeCore]]


@pytest.fixture
async def make_core(tmp_path: Path) -> AsyncIterator[CoreFactory]:
    async with fake_cores(tmp_path) as make:
        yield make


async def test_recall_starts_before_the_turn_runs(make_core: CoreFactory) -> None:
    core = await make_core()
    happened: list[str] = []

    async def recall(text: str, conversation_id: str) -> list[ChatMessage]:
        happened.append("recall")
        return []

    def seen(event: Event) -> bool:
        if isinstance(event, RunStart):
            happened.append("run-start")
        return False

    core.orchestrator.add_context_provider(recall)
    sub = core.orchestrator.bus.subscribe(event_filter=seen)
    core.model.script(text_reply("Fine."))
    try:
        events, _ = await core.turn("hello")
    finally:
        sub.close()

    assert events[-1].status == "complete"  # type: ignore[attr-defined]
    assert happened == ["recall", "run-start"]


async def test_providers_run_side_by_side(make_core: CoreFactory) -> None:
    core = await make_core()
    started = {"memory": asyncio.Event(), "knowledge": asyncio.Event()}

    def provider(name: str, other: str) -> Callable[[str, str], Awaitable[list[ChatMessage]]]:
        async def recall(text: str, conversation_id: str) -> list[ChatMessage]:
            started[name].set()
            await started[other].wait()  # only finishes if the other one runs meanwhile
            return [ChatMessage(role="system", content=f"<{name}/>")]

        return recall

    core.orchestrator.add_context_provider(provider("memory", "knowledge"))
    core.orchestrator.add_context_provider(provider("knowledge", "memory"))
    core.model.script(text_reply("Both."))
    events, _ = await core.turn("both please")

    assert events[-1].status == "complete"  # type: ignore[attr-defined]
    sent = [m.content for m in core.model.requests[0].messages if m.role == "system"]
    assert sent[1:] == ["<memory/>", "<knowledge/>"]  # the providers' order, not finishing order


async def test_a_turn_cancelled_while_recall_runs_stops_the_providers(
    make_core: CoreFactory,
) -> None:
    core = await make_core()
    running, stopped = asyncio.Event(), asyncio.Event()

    async def slow_recall(text: str, conversation_id: str) -> list[ChatMessage]:
        running.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            stopped.set()
            raise
        return []

    core.orchestrator.add_context_provider(slow_recall)
    handle = await core.orchestrator.handle(StartTurn(text="never mind"))
    await asyncio.wait_for(running.wait(), 5)
    assert await core.orchestrator.handle(CancelTurn(run_id=handle.run_id)) == 1

    assert await handle.wait(5) == "cancelled"
    await asyncio.wait_for(stopped.wait(), 5)
    assert core.model.requests == []
