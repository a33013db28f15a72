"""The agent loop: LLM stream -> tool calls -> results -> LLM, until a plain answer.

Bounded by ``max_steps`` (the last step offers no tools, so the model must answer in words) and
by the turn deadline the orchestrator wraps around it; cancellable at any await. Persistence is
arranged so that streaming is never slowed by disk: the assistant row is created concurrently
with the model request, its text is flushed in the background while streaming (status
``interrupted`` until the reply completes), and a cut, cancelled or crashed reply therefore
stays in storage as ``interrupted`` — never lost, never shown as complete. One streamed step
is ``core/agent_step.py``; what differs between own and client turns is ``core/turn_plan.py``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Literal

from aria_desktop.core import text_calls
from aria_desktop.core.agent_step import ModelSteps
from aria_desktop.core.bus import EventBus
from aria_desktop.core.confirm import ConfirmationBroker
from aria_desktop.core.injection import scan_text
from aria_desktop.core.ports import AuditSink, ChatModel, Clock, ConversationStore
from aria_desktop.core.tools import PolicyDecision, PolicyHook, Tool, ToolRegistry
from aria_desktop.core.turn_tools import TurnTools
from aria_desktop.core.untrusted import ContentFlagger, ToolText, fence_tool_result
from aria_desktop.domain import chat, events
from aria_desktop.domain import errors as e
from aria_desktop.domain.commands import GenerationOptions
from aria_desktop.domain.locality import Locality

__all__ = ["AgentConfig", "AgentLoop", "AgentResult", "AgentServices"]

_LOGGER = logging.getLogger(__name__)
_MAX_TOOL_RESULT_CHARS = 16_000
_AUDIT_VALUE_CHARS = 500


@dataclass(frozen=True, kw_only=True)
class AgentConfig:
    """Limits and prompt of the agent loop.

    Attributes:
        max_steps: model calls per turn (tool round-trips + the final answer).
        turn_deadline_s: wall time allowed for a whole turn, seconds.
        history_token_budget: estimated tokens of history put in each prompt.
        confirm_timeout_s: seconds a confirmation request waits before counting as deny.
        system_prompt: the system message.
        max_tokens: cap on tokens per model reply.
        flush_interval_s: how often streamed text is saved while it arrives, seconds.
        think: ``llm.think`` (``auto``, ``on``, ``off``), passed on with each request.
        think_budget_tokens: reasoning tokens a backend with a thinking budget may spend.
    """

    max_steps: int = 8
    turn_deadline_s: float = 300.0
    history_token_budget: int = 6000
    confirm_timeout_s: float = 60.0
    system_prompt: str = "You are ARIA, a helpful desktop assistant."
    max_tokens: int = 2048
    flush_interval_s: float = 0.5
    think: chat.ThinkMode = "auto"
    think_budget_tokens: int = 2048


@dataclass(kw_only=True)
class AgentResult:
    """What a turn produced: final text and who answered the last step (and where it runs)."""

    text: str = ""
    backend: str = ""
    model: str = ""
    locality: Locality | Literal[""] = ""
    usage: chat.Usage = field(default_factory=chat.Usage)
    steps: int = 0
    client_calls: tuple[chat.ToolCall, ...] = ()


_DEFAULT_TOOLS = TurnTools()


@dataclass(kw_only=True)
class _Turn:
    run_id: str
    conversation_id: str
    backend: str | None
    user_saved: Awaitable[object] | None
    flagged_by: str = ""
    """The tool whose result the scanner flagged in this turn ("" while none was)."""
    agent: str = "chat"
    retried_rejected: bool = False
    """Whether the model already had its one retry after unusable calls (core/text_calls.py)."""


ToolStatus = Literal["ok", "error", "denied"]


@dataclass(frozen=True)
class _Outcome:
    """A finished call: the model's (fenced) view of its result and the user's (raw) view.

    The raw view is what the tool-call record keeps (a repeated call is fenced again on its way
    back); the fenced view is the tool message the model sees now and in later turns' history.
    """

    status: ToolStatus
    output: str
    shown: str


@dataclass(frozen=True, kw_only=True)
class AgentServices:
    """What the agent loop works with; the orchestrator builds one set.

    Attributes:
        model: streams each step's reply.
        tools: the registered tools (specs, validation, handlers).
        store: keeps the conversation's messages and tool-call records.
        bus: carries the turn's events.
        audit: records every call, decision and confirmation.
        policy: decides whether a call runs, asks first or is refused.
        confirmations: asks the user when the policy says so.
        clock: times steps and calls.
    """

    model: ChatModel
    tools: ToolRegistry
    store: ConversationStore
    bus: EventBus
    audit: AuditSink
    policy: PolicyHook
    confirmations: ConfirmationBroker
    clock: Clock


class AgentLoop:
    """Runs the steps of one turn; owned by the orchestrator."""

    def __init__(self, services: AgentServices, config: AgentConfig) -> None:
        self._services = services
        self._config = config
        self._flagger = ContentFlagger(services.bus.publish)
        self._steps = ModelSteps(
            model=services.model,
            store=services.store,
            bus=services.bus,
            clock=services.clock,
            flush_interval_s=config.flush_interval_s,
        )

    async def run(
        self,
        *,
        run_id: str,
        conversation_id: str,
        prompt: list[chat.ChatMessage],
        backend: str | None = None,
        user_saved: Awaitable[object] | None = None,
        tools: TurnTools = _DEFAULT_TOOLS,
    ) -> AgentResult:
        """Run steps until the model answers without tool calls; returns the final answer.

        A step that calls one of ``tools.client`` ends the turn: those calls are published as
        ``client-tool-call`` events and returned in ``client_calls``, not run.
        """
        turn = _Turn(
            run_id=run_id,
            conversation_id=conversation_id,
            backend=backend,
            user_saved=user_saved,
            agent=tools.agent,
        )
        try:
            return await self._run_steps(turn, list(prompt), tools)
        finally:
            self._flagger.forget_run(run_id)

    async def _run_steps(
        self, turn: _Turn, messages: list[chat.ChatMessage], tools: TurnTools
    ) -> AgentResult:
        result = AgentResult()
        client_names = {spec.name for spec in tools.client}
        offered = self._offered(tools, client_names)
        for step in range(1, self._config.max_steps + 1):
            last = step == self._config.max_steps
            request = self._request(messages, () if last else offered, tools.options, turn.run_id)
            reply = await self._steps.run(
                request,
                run_id=turn.run_id,
                conversation_id=turn.conversation_id,
                step=step,
                agent=turn.agent,
                backend=turn.backend,
                after=turn.user_saved,
            )
            turn.user_saved = None
            text, calls, end, rejected = reply.text, reply.calls, reply.end, reply.rejected
            if rejected:
                text_calls.report_rejected(self._services.bus.publish, turn.run_id, rejected)
                if not calls:
                    if turn.retried_rejected:
                        raise text_calls.give_up(rejected)
                    turn.retried_rejected = True
                    messages.extend(text_calls.retry_messages(text, rejected))
                    continue
            result = AgentResult(
                text=text,
                backend=end.backend,
                model=end.model,
                locality=end.locality,
                usage=end.usage,
                steps=step,
            )
            if not calls:
                return result
            client_calls = tuple(call for call in calls if call.name in client_names)
            if client_calls:
                self._publish_client_calls(turn, client_calls)
                result.client_calls = client_calls
                return result
            if last:
                break
            messages.append(
                chat.ChatMessage(
                    role="assistant",
                    content=text,
                    tool_calls=tuple(calls),
                    thinking=reply.thought.text,
                    thinking_signature=reply.thought.signature,
                )
            )
            await self._run_calls(turn, calls, messages)
            if rejected:
                messages.append(text_calls.feedback_message(rejected))
        raise e.TurnDeadlineError(
            f"The model was still calling tools after {self._config.max_steps} steps.",
            hint="Raise agent.max_steps or ask for a smaller task.",
        )

    def _offered(self, tools: TurnTools, client_names: set[str]) -> tuple[chat.ToolSpec, ...]:
        """The tools a step may call: ARIA's (all, or the turn's own) beside the client's."""
        own = self._services.tools.specs() if tools.own is None else tools.own
        offered = tuple(s for s in own if s.name not in client_names) + tools.client
        if tools.options.tool_choice is not None and tools.client:
            offered = tools.client  # the client asked for a call of one of its tools
        return offered

    def _publish_client_calls(self, turn: _Turn, calls: tuple[chat.ToolCall, ...]) -> None:
        """Calls of the client's tools end the turn: the client runs them, not ARIA."""
        for call in calls:
            self._services.bus.publish(
                events.ClientToolCall(
                    run_id=turn.run_id,
                    call_id=call.id,
                    name=call.name,
                    arguments=call.arguments,
                )
            )

    async def _run_calls(
        self, turn: _Turn, calls: list[chat.ToolCall], messages: list[chat.ChatMessage]
    ) -> None:
        """Run each call in order, store its result and add it to the next step's prompt."""
        for call in calls:
            status, output = await self._run_tool(turn, call)
            saved = await self._services.store.add_message(
                turn.conversation_id,
                chat.NewMessage(
                    role="tool",
                    content=output,
                    tool_call_id=call.id,
                    name=call.name,
                    status="complete" if status == "ok" else "error",
                ),
            )
            self._services.bus.publish(
                events.MessageSaved(
                    run_id=turn.run_id,
                    conversation_id=turn.conversation_id,
                    message_id=saved.id,
                    role="tool",
                    status=saved.status,
                )
            )
            messages.append(
                chat.ChatMessage(role="tool", content=output, tool_call_id=call.id, name=call.name)
            )

    def _request(
        self,
        messages: list[chat.ChatMessage],
        offered: tuple[chat.ToolSpec, ...],
        options: GenerationOptions,
        turn_id: str = "",
    ) -> chat.ChatRequest:
        """One step's request: the prompt, the tools offered and the generation options."""
        vision = any(message.images for message in messages)
        return chat.ChatRequest(
            messages=tuple(messages),
            tools=offered,
            needs=frozenset({"vision"}) if vision else frozenset(),
            max_tokens=options.max_tokens or self._config.max_tokens,
            temperature=options.temperature,
            stop=options.stop,
            response_format=options.response_format,
            context_tokens=options.context_tokens,
            tool_choice=options.tool_choice if offered else None,
            think=options.think or self._config.think,
            think_budget_tokens=self._config.think_budget_tokens,
            turn_id=turn_id,
        )

    async def _run_tool(self, turn: _Turn, call: chat.ToolCall) -> tuple[ToolStatus, str]:
        """Execute one call at most once: policy, confirmation, handler, audit, storage."""
        self._services.bus.publish(
            events.ToolCallEvent(
                run_id=turn.run_id, call_id=call.id, name=call.name, arguments=call.arguments
            )
        )
        previous = await self._services.store.begin_tool_call(turn.conversation_id, call)
        if previous is not None:
            if previous.status == "pending":
                status: ToolStatus = "error"
                output = _error_payload(
                    e.ToolFailedError(
                        "An earlier attempt of this call did not finish; it is not run again.",
                        hint="Ask the user whether to retry.",
                    )
                )
            else:
                status, output = previous.status, previous.result
            _LOGGER.info("Tool call %s already recorded (%s); not executed again", call.id, status)
            self._publish_result(turn, call, status, output, 0.0)
            return status, self._fence(turn, call.name, output, ()) if status == "ok" else output

        started = self._services.clock.monotonic()
        outcome = await self._decide_and_execute(turn, call)
        latency_ms = (self._services.clock.monotonic() - started) * 1000
        await self._services.store.finish_tool_call(
            turn.conversation_id, call.id, status=outcome.status, result=outcome.shown
        )
        await self._services.audit.append(
            "tool-result",
            {
                "run_id": turn.run_id,
                "call_id": call.id,
                "tool": call.name,
                "status": outcome.status,
                "latency_ms": round(latency_ms, 3),
                "result": outcome.shown[:_AUDIT_VALUE_CHARS],
            },
        )
        self._publish_result(turn, call, outcome.status, outcome.shown, latency_ms)
        return outcome.status, outcome.output

    async def _decide_and_execute(self, turn: _Turn, call: chat.ToolCall) -> _Outcome:
        await self._services.audit.append(
            "tool-call",
            {
                "run_id": turn.run_id,
                "conversation_id": turn.conversation_id,
                "call_id": call.id,
                "tool": call.name,
                "arguments": _clip(call.arguments),
            },
        )
        try:
            tool = self._services.tools.validate(call)
        except e.ToolError as exc:
            await self._audit_decision(turn, call, "deny", "invalid-call", exc.message)
            return _failed("error", exc)
        decision = _after_flagged(turn, tool, await self._services.policy(tool, call))
        await self._audit_decision(turn, call, decision.verdict, decision.rule, decision.reason)
        if decision.verdict == "deny":
            return _failed(
                "denied",
                e.ToolDeniedError(
                    f"Refused by the safety policy (rule {decision.rule})"
                    + (f": {decision.reason}" if decision.reason else ".")
                ),
            )
        if decision.verdict == "confirm":
            outcome = await self._services.confirmations.request(
                run_id=turn.run_id,
                tool=call.name,
                summary=decision.summary or tool.describe_call(call.arguments),
                reason=decision.reason or decision.rule,
                timeout_s=self._config.confirm_timeout_s,
            )
            await self._services.audit.append(
                "confirmation",
                {
                    "run_id": turn.run_id,
                    "call_id": call.id,
                    "request_id": outcome.request_id,
                    "approved": outcome.approved,
                    "timed_out": outcome.timed_out,
                },
            )
            if not outcome.approved:
                why = "did not answer in time" if outcome.timed_out else "declined"
                return _failed("denied", e.ToolDeniedError(f"The user {why}."))
        return await self._execute(turn, tool, call)

    async def _execute(self, turn: _Turn, tool: Tool, call: chat.ToolCall) -> _Outcome:
        try:
            value = await tool.handler(call.arguments)
        except e.AriaError as exc:
            return _failed("error", exc)
        except Exception as exc:
            _LOGGER.exception("Tool %s failed", call.name)
            return _failed("error", e.ToolFailedError(f"{call.name} failed: {exc}"))
        hidden: tuple[str, ...] = ()
        if isinstance(value, ToolText):
            output, hidden = value.text, value.hidden
        elif isinstance(value, str):
            output = value
        else:
            output = json.dumps(value, ensure_ascii=False)
        if len(output) > _MAX_TOOL_RESULT_CHARS:
            output = output[:_MAX_TOOL_RESULT_CHARS] + "\n[truncated]"
        return _Outcome("ok", self._fence(turn, call.name, output, hidden), output)

    def _fence(self, turn: _Turn, name: str, output: str, hidden: tuple[str, ...]) -> str:
        """The one tool-result path: scan, flag to the user, fence for the model.

        A flagged result marks the turn: every later call that is not read-only asks
        (``_after_flagged``), whatever the model makes of the warning.
        """
        findings = scan_text(output, tool_names=self._services.tools.names(), hidden=hidden)
        if findings:
            turn.flagged_by = turn.flagged_by or name
            self._flagger.flag(name, findings, turn.run_id)
        return fence_tool_result(name, output, findings)

    async def _audit_decision(
        self, turn: _Turn, call: chat.ToolCall, verdict: str, rule: str, reason: str
    ) -> None:
        await self._services.audit.append(
            "policy-decision",
            {
                "run_id": turn.run_id,
                "call_id": call.id,
                "tool": call.name,
                "verdict": verdict,
                "rule": rule,
                "reason": reason,
            },
        )

    def _publish_result(
        self,
        turn: _Turn,
        call: chat.ToolCall,
        status: ToolStatus,
        output: str,
        latency_ms: float,
    ) -> None:
        self._services.bus.publish(
            events.ToolResultEvent(
                run_id=turn.run_id,
                call_id=call.id,
                name=call.name,
                status=status,
                result=output[:2000],
                latency_ms=latency_ms,
            )
        )


def _after_flagged(turn: _Turn, tool: Tool, decision: PolicyDecision) -> PolicyDecision:
    """After a flagged result, nothing but read-only tools runs without asking in this turn."""
    if turn.flagged_by and decision.verdict == "allow" and tool.permission != "read_only":
        return PolicyDecision(
            verdict="confirm",
            rule="untrusted:flagged-content",
            reason=f"a result of {turn.flagged_by} earlier in this turn looked like an attempt "
            "to steer ARIA",
        )
    return decision


def _failed(status: ToolStatus, exc: e.AriaError) -> _Outcome:
    """A call that did not run (or failed): ARIA's own words, not fenced."""
    payload = _error_payload(exc)
    return _Outcome(status, payload, payload)


def _error_payload(exc: e.AriaError) -> str:
    """A tool failure as the JSON the model receives."""
    payload: dict[str, Any] = {"error": exc.code, "message": exc.message}
    if exc.hint:
        payload["hint"] = exc.hint
    return json.dumps(payload, ensure_ascii=False)


def _clip(arguments: dict[str, Any]) -> dict[str, Any]:
    """Arguments with long string values shortened for the audit log."""
    clipped: dict[str, Any] = {}
    for key, value in arguments.items():
        if isinstance(value, str) and len(value) > _AUDIT_VALUE_CHARS:
            clipped[key] = value[:_AUDIT_VALUE_CHARS] + "…"
        else:
            clipped[key] = value
    return clipped
