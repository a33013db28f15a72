"""A real llama-server dying mid-reply, the router falling back, and its breaker closing again.

Whole orchestrator turns (real ``Router``, real backends, real servers); only the router's clock
is a fake one, so the breaker's reset time passes as an event rather than a sleep.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from aria_desktop.adapters.llm import BreakerPolicy, RetryPolicy, Router
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.domain.commands import StartTurn
from aria_desktop.domain.events import (
    BackendFallback,
    ErrorEvent,
    Event,
    LlmDelta,
    RunEnd,
    ThinkEnd,
)
from tests.fakes.harness import new_audit_log
from tests.fakes.ports import InMemoryConversationStore
from tests.llama.backends import anthropic_backend, openai_backend
from tests.llama.conftest import StartLlama
from tests.llama.server import ENDLESS, LlamaServer
from tests.llm.conftest import FakeClock

pytestmark = [pytest.mark.llama, pytest.mark.slow]

RESET_S = 30.0

Turn = Callable[..., Awaitable[tuple[list[Event], str]]]


@pytest.fixture
async def failover(
    llama: LlamaServer, start_llama: StartLlama
) -> AsyncIterator[tuple[LlamaServer, Router, FakeClock, Turn]]:
    # Never ends a reply early: it is always still streaming when the test kills it.
    primary_server = start_llama(extra_args=ENDLESS)
    clock = FakeClock()
    router = Router(
        {
            "primary": openai_backend(primary_server, name="primary"),
            # The other protocol, on the session's server: llama-server's Messages API.
            "secondary": anthropic_backend(llama, name="secondary"),
        },
        {"chat": ["primary", "secondary"]},
        retry=RetryPolicy(max_attempts=1),
        breaker=BreakerPolicy(failure_threshold=1, reset_s=RESET_S),
        monotonic=clock.monotonic,
        sleep=clock.sleep,
    )
    orchestrator = Orchestrator(
        model=router,
        store=InMemoryConversationStore(),
        audit=new_audit_log(),
        config=AgentConfig(max_tokens=200, flush_interval_s=0.05),
    )

    async def turn(
        text: str, conversation_id: str | None = None, *, on_delta: Callable[[], None] | None = None
    ) -> tuple[list[Event], str]:
        sub = orchestrator.bus.subscribe()
        try:
            handle = await orchestrator.handle(
                StartTurn(text=text, conversation_id=conversation_id)
            )
            events: list[Event] = []
            async with asyncio.timeout(90):
                async for event in sub:
                    if event.run_id != handle.run_id:
                        continue
                    events.append(event)
                    if isinstance(event, LlmDelta) and on_delta is not None:
                        on_delta()
                        on_delta = None
                    if isinstance(event, RunEnd):
                        break
            await handle.wait(timeout_s=10)
            return events, handle.conversation_id
        finally:
            sub.close()

    try:
        yield primary_server, router, clock, turn
    finally:
        await orchestrator.stop()
        await router.aclose()


def run_end(events: list[Event]) -> RunEnd:
    return next(e for e in events if isinstance(e, RunEnd))


def errors(events: list[Event]) -> list[str]:
    """What went wrong in a turn, for a failed assertion's message."""
    return [e.message for e in events if isinstance(e, ErrorEvent)]


def answered_by(events: list[Event]) -> list[str]:
    return [e.backend for e in events if isinstance(e, ThinkEnd)]


async def test_killed_mid_reply_is_interrupted_then_falls_back_and_recovers(
    failover: tuple[LlamaServer, Router, FakeClock, Turn],
) -> None:
    primary, router, clock, turn = failover

    # 1. The server dies while the reply streams: the turn ends interrupted, its text kept.
    events, conversation = await turn("Count from 1 to 100.", on_delta=primary.kill)
    assert run_end(events).status == "interrupted"
    assert "".join(e.text for e in events if isinstance(e, LlmDelta))
    assert router.breaker_state("primary") == "open"

    # 2. The next turn falls back to the other backend (the other protocol) and completes.
    events, _ = await turn("Say hello.", conversation)
    assert run_end(events).status == "complete", errors(events)
    fallbacks = [e for e in events if isinstance(e, BackendFallback)]
    assert [(f.from_backend, f.to_backend) for f in fallbacks] == [("primary", "secondary")]
    assert answered_by(events) == ["secondary"]

    # 3. The server is back; once the breaker's reset time has passed, its probe succeeds and
    #    the breaker closes: the primary answers again, with no fallback. It comes back ending
    #    its replies normally: an endless 200-token reply on a busy 2-core machine can outlast
    #    the backend's total timeout, which would fail the turn for a reason this test is not
    #    about.
    primary.restart(extra_args=())
    clock.advance(RESET_S)
    assert router.breaker_state("primary") == "half_open"
    events, _ = await turn("Say hello again.", conversation)
    assert run_end(events).status == "complete", errors(events)
    assert answered_by(events) == ["primary"]
    assert not [e for e in events if isinstance(e, BackendFallback)]
    assert router.breaker_state("primary") == "closed"
