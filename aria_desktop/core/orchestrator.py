"""The orchestrator: the one place commands are handled and turns are run.

Front-ends send commands (``handle``) and render the event stream; they never call adapters.
Every turn runs as a named task owned here: it always publishes ``run-end`` (in ``finally``),
a failure becomes exactly one ``error`` event with a stable code, and ``stop()`` cancels and
awaits every task so nothing outlives the orchestrator.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

from aria_desktop.core.agent import AgentConfig, AgentLoop, AgentResult, AgentServices
from aria_desktop.core.bus import EventBus
from aria_desktop.core.clock import SystemClock
from aria_desktop.core.confirm import ConfirmationBroker
from aria_desktop.core.injection import scan_text
from aria_desktop.core.local_answer import publish_local_answer
from aria_desktop.core.ports import AuditSink, ChatModel, Clock, ConversationStore
from aria_desktop.core.skills.router import SkillRouter, SkillTurn
from aria_desktop.core.tools import PolicyHook, ToolRegistry, default_policy
from aria_desktop.core.turn_plan import PreparedTurn, TurnPlan, plan_turn
from aria_desktop.core.untrusted import fence_attachment
from aria_desktop.domain.chat import CapabilityStatus, ChatMessage
from aria_desktop.domain.commands import (
    CancelTurn,
    Command,
    ConfirmAction,
    StartTurn,
    StopEverything,
    TurnAttachment,
)
from aria_desktop.domain.errors import (
    AriaError,
    StreamInterruptedError,
    TurnDeadlineError,
)
from aria_desktop.domain.events import (
    AssistantState,
    ErrorEvent,
    RunEnd,
    RunStart,
    RunStatus,
    StateChanged,
)
from aria_desktop.domain.intents import IntentMatch
from aria_desktop.domain.locality import Locality

__all__ = [
    "CommandHandler",
    "ContextProvider",
    "Orchestrator",
    "TurnHandle",
    "TurnObserver",
    "TurnOutcome",
]

_LOGGER = logging.getLogger(__name__)
_CONTEXT_TIMEOUT_S = 2.0
_TURN_STATES: frozenset[str] = frozenset({"idle", "thinking", "acting", "error"})
"""States a turn's end may replace; listening/speaking (voice) and muted are not the turn's."""


@dataclass(frozen=True, kw_only=True)
class TurnOutcome:
    """What a finished turn was, for observers (memory extraction, notifications, ...).

    Attributes:
        run_id, conversation_id: identify the turn.
        source: where the text came from (text, voice, api, automation).
        user_text: what the user said.
        answer: the final answer text ("" unless ``status`` is complete).
        status: complete, interrupted, error or cancelled.
        backend, model: who answered the last step ("" if nobody did).
        private: the turn must not be mined for long-term memories (a private client).
    """

    run_id: str
    conversation_id: str
    source: str
    private: bool = False
    user_text: str
    answer: str
    status: RunStatus
    backend: str = ""
    model: str = ""


ContextProvider = Callable[[str, str], Awaitable[Sequence[ChatMessage]]]
"""``(user_text, conversation_id) -> messages`` placed after the system prompt of a turn.

Providers (e.g. long-term memory recall) return clearly fenced data; a provider that fails or
takes longer than 2 s is skipped for that turn, with a warning in the log.
"""

TurnObserver = Callable[[TurnOutcome], Awaitable[None]]
"""Called in the background after every turn; failures are logged, never raised."""

CommandHandler = Callable[[Any], Awaitable[Any]]
"""Handles one command type registered with ``Orchestrator.register_command``."""

StopHook = Callable[[], Awaitable[None]]
"""Called by the kill switch (``StopEverything``): stop speech, release keys, abort actions."""

CapabilityProbe = Callable[[], CapabilityStatus]
"""Reports whether a capability can be used now (cheap; called by the GUI and the API)."""


@dataclass(frozen=True, kw_only=True)
class TurnHandle:
    """A started turn: its ids and the task running it (``wait`` gives the final status)."""

    run_id: str
    conversation_id: str
    task: asyncio.Task[RunStatus]

    async def wait(self, timeout_s: float | None = None) -> RunStatus:
        """The turn's final status once it has ended."""
        async with asyncio.timeout(timeout_s):
            try:
                return await asyncio.shield(self.task)
            except asyncio.CancelledError:
                if self.task.cancelled():
                    return "cancelled"
                raise


class Orchestrator:
    """Owns the event bus, the agent loop and all running turns."""

    def __init__(
        self,
        *,
        model: ChatModel,
        store: ConversationStore,
        audit: AuditSink,
        bus: EventBus | None = None,
        tools: ToolRegistry | None = None,
        policy: PolicyHook = default_policy,
        config: AgentConfig | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.bus = bus or EventBus()
        self.tools = tools or ToolRegistry()
        self.store = store
        self.config = config or AgentConfig()
        self._clock = clock or SystemClock()
        self.confirmations = ConfirmationBroker(self.bus)
        self._agent = AgentLoop(
            AgentServices(
                model=model,
                tools=self.tools,
                store=store,
                bus=self.bus,
                audit=audit,
                policy=policy,
                confirmations=self.confirmations,
                clock=self._clock,
            ),
            self.config,
        )
        self._turns: dict[str, TurnHandle] = {}
        self._state: AssistantState = "idle"
        self._last_backend = ""
        self._last_locality: Locality | Literal[""] = ""
        self._stopping = False
        self._context_providers: list[ContextProvider] = []
        self._observers: list[TurnObserver] = []
        self._handlers: dict[type[Command], CommandHandler] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._stop_hooks: list[StopHook] = []
        self._capabilities: dict[str, CapabilityProbe] = {}
        self._skills: SkillRouter | None = None

    def set_skills(self, skills: SkillRouter | None) -> None:
        """Answer the sentences ``skills`` recognise locally, before any model (None: never)."""
        self._skills = skills

    @property
    def skills(self) -> SkillRouter | None:
        """The everyday skills turns ask first (None when there are none)."""
        return self._skills

    def add_stop_hook(self, hook: StopHook) -> None:
        """Run ``hook`` when the kill switch fires (must finish quickly: target 200 ms)."""
        self._stop_hooks.append(hook)

    def register_capability(self, name: str, probe: CapabilityProbe) -> None:
        """Let front-ends ask whether ``name`` is usable (tray items, API, doctor)."""
        self._capabilities[name] = probe

    def capabilities(self) -> list[CapabilityStatus]:
        """Status of every registered capability, by name."""
        statuses = []
        for name in sorted(self._capabilities):
            try:
                statuses.append(self._capabilities[name]())
            except Exception as exc:
                _LOGGER.exception("Capability probe %s failed", name)
                statuses.append(CapabilityStatus(name=name, available=False, reason=str(exc)))
        return statuses

    def add_context_provider(self, provider: ContextProvider) -> None:
        """Add messages (e.g. recalled memories) to every turn's prompt."""
        self._context_providers.append(provider)

    def add_turn_observer(self, observer: TurnObserver) -> None:
        """Run ``observer`` in the background after every turn."""
        self._observers.append(observer)

    def register_command(self, command_type: type[Command], handler: CommandHandler) -> None:
        """Let a capability (voice, computer use, memory) handle its own command type."""
        built_in = (StartTurn, CancelTurn, ConfirmAction, StopEverything)
        if command_type in self._handlers or command_type in built_in:
            raise ValueError(f"{command_type.__name__} already has a handler")
        self._handlers[command_type] = handler

    def handles(self, command_type: type[Command]) -> bool:
        """Whether a capability registered ``command_type`` (or it is built in)."""
        built_in = (StartTurn, CancelTurn, ConfirmAction, StopEverything)
        return command_type in self._handlers or command_type in built_in

    def spawn(self, coro: Awaitable[Any], *, name: str) -> asyncio.Task[Any]:
        """Run a named background task owned by the orchestrator (cancelled on ``stop``)."""

        async def guarded() -> Any:
            try:
                return await coro
            except asyncio.CancelledError:
                raise
            except Exception:
                _LOGGER.exception("Background task %s failed", name)
                return None

        def finished(task: asyncio.Task[Any]) -> None:
            self._background.discard(task)
            if isinstance(coro, Coroutine):
                coro.close()  # cancelled before it started (a stop right after start): no warning

        task = asyncio.create_task(guarded(), name=name)
        self._background.add(task)
        task.add_done_callback(finished)
        return task

    def set_state(self, state: AssistantState, run_id: str | None = None) -> None:
        """Publish a visible state change (voice and computer use drive it too)."""
        self._set_state(state, run_id)

    @property
    def state(self) -> AssistantState:
        """The assistant's current visible state."""
        return self._state

    @property
    def running_turns(self) -> list[str]:
        """Run ids of turns in progress."""
        return list(self._turns)

    @overload
    async def handle(self, command: StartTurn) -> TurnHandle: ...

    @overload
    async def handle(self, command: CancelTurn) -> int: ...

    @overload
    async def handle(self, command: ConfirmAction) -> None: ...

    @overload
    async def handle(self, command: Command) -> Any: ...

    async def handle(self, command: Command) -> Any:
        """Execute one command.

        Returns:
            ``StartTurn`` -> ``TurnHandle``; ``CancelTurn`` -> number of turns cancelled;
            ``ConfirmAction`` -> None (raises ``ConfirmationError`` when refused).
        """
        if isinstance(command, StartTurn):
            return await self._start_turn(command)
        if isinstance(command, CancelTurn):
            return self._cancel(command.run_id)
        if isinstance(command, ConfirmAction):
            self.confirmations.answer(command.request_id, command.nonce, command.approved)
            return None
        if isinstance(command, StopEverything):
            return await self._stop_everything()
        handler = self._handlers.get(type(command))
        if handler is not None:
            return await handler(command)
        raise TypeError(f"unknown command {type(command).__name__}")

    async def _start_turn(self, command: StartTurn) -> TurnHandle:
        if self._stopping:
            raise AriaError("ARIA is shutting down.", hint="Try again after it restarts.")
        plan = await plan_turn(
            command, store=self.store, config=self.config, tools=self.tools, clock=self._clock
        )
        run_id, conversation_id = secrets.token_hex(8), plan.conversation.id
        # A turn with attachments is about them: the model answers, never a local skill.
        local = None if command.attachments else self._local_match(plan)
        # Recall starts here, before the turn's task: it runs first and is usually done by the
        # time the turn asks (ARCHITECTURE.md: first-chunk latency). A local answer needs none.
        context = self._start_context(plan.text, conversation_id) if plan.text and not local else []
        if command.attachments:
            context.append(asyncio.create_task(_attached(command.attachments)))
        task = asyncio.create_task(
            self._run_turn(run_id, plan, context, local), name=f"aria-turn-{run_id}"
        )
        handle = TurnHandle(run_id=run_id, conversation_id=conversation_id, task=task)
        self._turns[run_id] = handle
        task.add_done_callback(lambda _task: self._turns.pop(run_id, None))
        if context:  # a turn that ended before it asked stops its providers too
            task.add_done_callback(lambda _task: _cancel_all(context))
        return handle

    async def _run_turn(
        self,
        run_id: str,
        plan: TurnPlan,
        recall: Sequence[asyncio.Task[list[ChatMessage]]] = (),
        local: IntentMatch | None = None,
    ) -> RunStatus:
        """Run one turn to its end: a failure becomes one ``error`` event, never an exception."""
        started = self._clock.monotonic()
        self.bus.publish(
            RunStart(
                run_id=run_id,
                conversation_id=plan.conversation.id,
                source=plan.command.source,
                text=plan.text,
            )
        )
        self._set_state("thinking", run_id)
        status: RunStatus = "error"
        result: AgentResult | None = None
        user_saved: asyncio.Task[object] | None = None
        try:
            prepared = await plan.prepare(await self._context(recall))
            user_saved = asyncio.create_task(prepared.saving, name=f"aria-user-message-{run_id}")
            result = await self._answer(run_id, plan, prepared, user_saved, local)
            self._last_backend, self._last_locality = result.backend, result.locality
            status = "complete"
        except asyncio.CancelledError:
            status = "cancelled"
            raise
        except StreamInterruptedError as exc:
            status = "interrupted"
            self._publish_error(run_id, exc)
        except AriaError as exc:
            status = "error"
            self._publish_error(run_id, exc)
        except Exception as exc:
            _LOGGER.exception("Turn %s failed unexpectedly", run_id)
            status = "error"
            self._publish_error(
                run_id,
                AriaError(
                    f"Something went wrong: {exc.__class__.__name__}.",
                    hint="Details are in the log file (`aria config path`).",
                ),
            )
        finally:
            await self._end_turn(run_id, plan, status, result, user_saved, started)
        return status

    async def _answer(
        self,
        run_id: str,
        plan: TurnPlan,
        prepared: PreparedTurn,
        user_saved: asyncio.Task[object],
        local: IntentMatch | None = None,
    ) -> AgentResult:
        """The agent's (or a local skill's) answer and the plan's finish, within the deadline."""
        try:
            async with asyncio.timeout(self.config.turn_deadline_s):
                if local is not None and self._skills is not None:
                    turn = SkillTurn(
                        source=plan.command.source, conversation_id=plan.conversation.id
                    )
                    reply = await self._skills.run(local, turn)
                    result = await publish_local_answer(
                        reply,
                        run_id=run_id,
                        conversation_id=plan.conversation.id,
                        bus=self.bus,
                        store=self.store,
                        clock=self._clock,
                        user_saved=user_saved,
                    )
                    await plan.finish(result)
                    return result
                result = await self._agent.run(
                    run_id=run_id,
                    conversation_id=plan.conversation.id,
                    prompt=prepared.prompt,
                    backend=plan.command.backend,
                    user_saved=user_saved,
                    tools=prepared.tools,
                )
                await plan.finish(result)
                return result
        except TimeoutError:
            raise TurnDeadlineError(
                f"The turn took longer than {self.config.turn_deadline_s:g} s and was stopped.",
                hint="Raise agent.turn_deadline_s or check that the model server is healthy.",
            ) from None

    async def _end_turn(
        self,
        run_id: str,
        plan: TurnPlan,
        status: RunStatus,
        result: AgentResult | None,
        user_saved: asyncio.Task[object] | None,
        started: float,
    ) -> None:
        """Whatever happened: wait for the user's message, end the state, tell everyone."""
        if user_saved is not None:
            # The user's words are stored even when the turn fails or is cancelled.
            try:
                await asyncio.shield(user_saved)
            except Exception as exc:
                _LOGGER.error("Could not save the user's message: %s", exc)
        self._end_turn_state(status, run_id)
        self.bus.publish(
            RunEnd(
                run_id=run_id,
                conversation_id=plan.conversation.id,
                status=status,
                latency_ms=(self._clock.monotonic() - started) * 1000,
            )
        )
        if self._observers and not self._stopping:
            outcome = TurnOutcome(
                run_id=run_id,
                conversation_id=plan.conversation.id,
                source=plan.command.source,
                user_text=plan.user_text,
                answer=result.text if result is not None and status == "complete" else "",
                status=status,
                backend=result.backend if result is not None else "",
                model=result.model if result is not None else "",
                private=plan.private,
            )
            for observer in self._observers:
                self.spawn(observer(outcome), name=f"aria-turn-observer-{run_id}")

    def _local_match(self, plan: TurnPlan) -> IntentMatch | None:
        """The everyday command the turn states, when a local skill answers it (else None).

        Asked before recall starts, so a local answer waits for nothing: a recogniser that
        fails sends the sentence to the model rather than failing the turn.
        """
        text = plan.local_text
        if self._skills is None or not text or plan.command.backend is not None:
            return None
        try:
            return self._skills.match(text, plan.command.source)
        except Exception:
            _LOGGER.exception("Recognising %r failed; the model answers it", text[:80])
            return None

    def _start_context(
        self, text: str, conversation_id: str
    ) -> list[asyncio.Task[list[ChatMessage]]]:
        """Start every context provider (memory, knowledge) side by side, one task each.

        They come before the model request, so the turn waits for the slowest, not for their
        sum; a failing or slow provider is skipped (``ContextProvider``).
        """

        async def one(provider: ContextProvider) -> list[ChatMessage]:
            try:
                async with asyncio.timeout(_CONTEXT_TIMEOUT_S):
                    return list(await provider(text, conversation_id))
            except (AriaError, TimeoutError) as exc:
                _LOGGER.warning("Context provider skipped for this turn: %s", exc or "timed out")
                return []

        return [
            asyncio.create_task(one(provider), name=f"aria-context-{conversation_id}")
            for provider in self._context_providers
        ]

    @staticmethod
    async def _context(recall: Sequence[asyncio.Task[list[ChatMessage]]]) -> list[ChatMessage]:
        """The providers' messages, in the providers' order.

        Started with the turn, they usually answer before the turn asks (nothing to recall is
        known on the loop), so the turn goes on without another turn of the event loop.
        """
        if all(task.done() for task in recall):
            results = [task.result() for task in recall]
        else:
            results = list(await asyncio.gather(*recall))
        return [message for messages in results for message in messages]

    def _publish_error(self, run_id: str, exc: AriaError) -> None:
        self.bus.publish(
            ErrorEvent(run_id=run_id, code=exc.code, message=exc.message, hint=exc.hint)
        )

    def _end_turn_state(self, status: RunStatus, run_id: str) -> None:
        """Leave the states a turn owns (thinking, acting, idle, error); keep the others.

        Voice owns listening and speaking, the microphone owns muted: when a turn ends while
        its answer is still being spoken, resetting to idle here and back to speaking there
        would make every client see speaking -> idle -> speaking. The owner of such a state
        returns to idle itself when it is done.
        """
        if self._state not in _TURN_STATES:
            return
        self._set_state("error" if status == "error" else "idle", run_id)

    def _set_state(self, state: AssistantState, run_id: str | None = None) -> None:
        if state == "idle" and len(self._turns) > 1:
            return  # other turns are still thinking
        if state != self._state:
            self._state = state
            self.bus.publish(
                StateChanged(
                    run_id=run_id,
                    state=state,
                    backend=self._last_backend,
                    locality=self._last_locality,
                )
            )

    def _cancel(self, run_id: str | None) -> int:
        handles = list(self._turns.values())
        if run_id is not None:
            handles = [h for h in handles if h.run_id == run_id]
        for handle in handles:
            handle.task.cancel()
        if run_id is None:
            self.confirmations.deny_all()
        return len(handles)

    async def _stop_everything(self) -> int:
        """Kill switch: cancel all turns, deny confirmations, run every stop hook at once."""
        cancelled = self._cancel(None)
        results = await asyncio.gather(
            *(hook() for hook in self._stop_hooks), return_exceptions=True
        )
        for result in results:
            if isinstance(result, BaseException):
                _LOGGER.error("A stop hook failed: %s", result)
        return cancelled

    async def stop(self, timeout_s: float = 10.0) -> None:
        """Cancel every turn and wait for them (bounded); no new turn starts afterwards."""
        self._stopping = True
        tasks = [handle.task for handle in self._turns.values()] + list(self._background)
        self.confirmations.deny_all()
        for task in tasks:
            task.cancel()
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=timeout_s)
            if pending:
                _LOGGER.warning("%d turn(s) did not stop within %.1f s", len(pending), timeout_s)


async def _attached(attachments: Sequence[TurnAttachment]) -> list[ChatMessage]:
    """The user's attachments as fenced, scanned system messages (untrusted data)."""
    return [
        ChatMessage(
            role="system",
            content=fence_attachment(item.source, item.text, scan_text(item.text)),
        )
        for item in attachments
    ]


def _cancel_all(tasks: Sequence[asyncio.Task[Any]]) -> None:
    for task in tasks:
        task.cancel()
