"""A failed turn does not poison the conversation, with a real llama-server.

Found from outside (issue "what checks from outside found", §3): after a failed turn the failed
question stayed in the history and was merged into the next one, so the next turn failed too.
Here one turn fails on the real server's window (a message no fitting can make fit: the server's
2048 tokens, learned from ``/props``); what the next turn sends is the request the real server
renders and answers. (The session's server: no start-up of its own.)
"""

from __future__ import annotations

import asyncio

import pytest

from aria_desktop.adapters.llm import BreakerPolicy, RetryPolicy, Router
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.domain.commands import StartTurn
from aria_desktop.domain.events import RunEnd, RunStatus
from tests.fakes.harness import new_audit_log
from tests.fakes.ports import InMemoryConversationStore
from tests.llama.server import LlamaServer
from tests.llama.test_llama_fit_and_json import recording_backend

pytestmark = [pytest.mark.llama, pytest.mark.slow]

FIRST = "My name is Ada. Say hello to me."
LOST = "Summarise this, please: " + "the keeper watched the sea from the lamp room. " * 400
THIRD = "What is my name?"


async def test_the_turn_after_a_failed_one_sends_whole_exchanges_and_completes(
    llama: LlamaServer,
) -> None:
    server = llama
    backend = recording_backend("openai", server)
    router = Router(
        {"llama": backend},
        {"chat": ["llama"]},
        retry=RetryPolicy(max_attempts=1),
        breaker=BreakerPolicy(failure_threshold=5, reset_s=60.0),
    )
    orchestrator = Orchestrator(
        model=router,
        store=InMemoryConversationStore(),
        audit=new_audit_log(),
        config=AgentConfig(max_tokens=24, flush_interval_s=0.05),
    )

    async def turn(text: str, conversation_id: str | None) -> tuple[RunStatus, str]:
        async with orchestrator.bus.subscribe() as events:
            handle = await orchestrator.handle(
                StartTurn(text=text, conversation_id=conversation_id)
            )
            async with asyncio.timeout(120):
                async for event in events:
                    if isinstance(event, RunEnd) and event.run_id == handle.run_id:
                        break
        return await handle.wait(timeout_s=10), handle.conversation_id

    try:
        status, conversation = await turn(FIRST, None)
        assert status == "complete"
        status, _ = await turn(LOST, conversation)
        assert status == "error"  # too long for the only model
        status, _ = await turn(THIRD, conversation)
        assert status == "complete", server.tail()
    finally:
        await orchestrator.stop()
        await router.aclose()

    sent = backend.sent[-1]
    said = [(m.role, m.content) for m in sent.messages if m.role in ("user", "assistant")]
    assert [role for role, _ in said] == ["user", "assistant", "user"]
    assert said[0][1].endswith(FIRST)
    assert said[-1][1].endswith(THIRD)
    assert all("lamp room" not in content for _, content in said)  # the failed one is left out
