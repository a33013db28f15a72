"""An orchestrator on in-memory ports, and the helpers orchestrator and agent tests share.

``fake_cores`` builds orchestrators whose chat model is a :class:`ScriptedChatModel` and whose
conversations live in an :class:`InMemoryConversationStore`; the audit log is the real one in a
temporary folder (its records are part of what the agent tests check). ``TurnHarness`` works
with any orchestrator, so adapter tests over HTTP and SQLite use the same helpers.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.ports import ConversationStore
from aria_desktop.core.tools import PolicyHook, Tool
from aria_desktop.domain.commands import ConfirmAction, StartTurn
from aria_desktop.domain.events import ActionConfirmRequest, Event, RunEnd
from tests.fakes.audit import MemoryAuditStore
from tests.fakes.ports import InMemoryConversationStore, ScriptedChatModel

__all__ = [
    "FakeCore",
    "TurnHarness",
    "answering",
    "event_types",
    "fake_cores",
    "new_audit_log",
]


def new_audit_log() -> AuditLog:
    """A real audit log (hash chain, verification) on the in-memory store, for one orchestrator."""
    return AuditLog(MemoryAuditStore())


def event_types(events: list[Event]) -> list[str]:
    """The events' ``type`` names, in order."""
    return [event.type for event in events]


class TurnHarness:
    """An orchestrator plus what its tests need: running a turn, an echo tool, its stores."""

    def __init__(
        self, orchestrator: Orchestrator, store: ConversationStore, audit: AuditLog
    ) -> None:
        self.orchestrator = orchestrator
        self.store = store
        self.audit = audit
        self.calls: list[dict[str, Any]] = []
        """Arguments of every call the echo tool executed."""

    async def turn(
        self, text: str, conversation_id: str | None = None, *, timeout_s: float = 15.0
    ) -> tuple[list[Event], str]:
        """Run one turn to its ``run-end``; returns its events (in order) and the conversation."""
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
        """A tool that records its arguments in :attr:`calls` and echoes ``text`` back."""

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


class FakeCore(TurnHarness):
    """A :class:`TurnHarness` on the in-memory ports; script replies on :attr:`model`."""

    def __init__(
        self,
        orchestrator: Orchestrator,
        model: ScriptedChatModel,
        store: InMemoryConversationStore,
        audit: AuditLog,
    ) -> None:
        super().__init__(orchestrator, store, audit)
        self.model = model


@contextlib.asynccontextmanager
async def fake_cores(
    folder: Path,
) -> AsyncIterator[Callable[..., Awaitable[FakeCore]]]:
    """A factory of :class:`FakeCore` (keyword arguments: ``config``, ``policy``).

    Every orchestrator it made is stopped on exit, so no turn outlives the test.
    """
    made: list[Orchestrator] = []

    async def make(
        *, config: AgentConfig | None = None, policy: PolicyHook | None = None
    ) -> FakeCore:
        model = ScriptedChatModel()
        store = InMemoryConversationStore()
        audit = new_audit_log()
        extra: dict[str, Any] = {} if policy is None else {"policy": policy}
        orchestrator = Orchestrator(
            model=model,
            store=store,
            audit=audit,
            config=config or AgentConfig(flush_interval_s=0.05),
            **extra,
        )
        made.append(orchestrator)
        return FakeCore(orchestrator, model, store, audit)

    try:
        yield make
    finally:
        for orchestrator in made:
            await orchestrator.stop()


@contextlib.asynccontextmanager
async def answering(
    orchestrator: Orchestrator, answer: bool | None
) -> AsyncIterator[list[ActionConfirmRequest]]:
    """Answer every confirmation request (None: never answer); yields the requests seen."""
    seen: list[ActionConfirmRequest] = []
    sub = orchestrator.bus.subscribe()

    async def loop() -> None:
        async for event in sub:
            if isinstance(event, ActionConfirmRequest):
                seen.append(event)
                if answer is not None:
                    await orchestrator.handle(
                        ConfirmAction(
                            request_id=event.request_id, nonce=event.nonce, approved=answer
                        )
                    )

    task = asyncio.create_task(loop())
    try:
        yield seen
    finally:
        task.cancel()
        sub.close()
