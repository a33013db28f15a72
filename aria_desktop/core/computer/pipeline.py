"""The one action pipeline every computer action goes through.

::

    propose -> context (what is at the target now) -> policy (pure, computer.policy)
            -> [confirmation, out of band; no answer = deny] -> re-verify the target
            -> execute (abortable, in a worker thread) -> audit (+ thumbnail) -> events

Actions from the task loop, from a chat turn's tools, from the CLI and from the API all come
here (``aria_desktop/ARCHITECTURE.md``, computer use). Expected failures never raise: the
outcome says what happened, and the audit log and the events say the same.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from aria_desktop.core.computer.config import ComputerConfig
from aria_desktop.core.confirm import ConfirmationBroker
from aria_desktop.core.ports import ActionPolicy, AuditSink, Clock, ComputerPort, ThumbnailSink
from aria_desktop.domain.computer import (
    ComputerAction,
    ComputerActionOutcome,
    ComputerDecision,
    Observation,
    TargetExpectation,
)
from aria_desktop.domain.computer_events import ComputerActionEnd, ComputerActionStart
from aria_desktop.domain.errors import AriaError, ComputerControlOffError, ComputerError
from aria_desktop.domain.events import AssistantState, Event

__all__ = ["USER_DRIVEN_SOURCES", "ActionHost", "ActionPipeline", "Decided", "deny", "off_decision"]

Decided = tuple[ComputerDecision, TargetExpectation | None]
"""A policy decision and what the target looked like when it was made."""

USER_DRIVEN_SOURCES = frozenset({"dictation"})
"""Actions the person drives while they happen (holding the dictation key): the control
switch, which lets ARIA act on its own, does not gate them; every other rule does (protected
windows, password fields, rate limits, the kill switch, the audit log)."""

_LOGGER = logging.getLogger(__name__)
_SETTLE_AFTER_CONFIRM_S = 0.15
_STATUS_BY_ERROR_CODE = {"target_changed": "target_changed", "action_aborted": "aborted"}
"""How a failed action ends, by the code of its ``ComputerError`` (any other code: error)."""


def deny(action: ComputerAction, rule: str, reason: str) -> ComputerDecision:
    """A refusal of ``action`` by ``rule``."""
    return ComputerDecision(
        verdict="deny", rule=rule, reason=reason, action_class="reversible", action=action
    )


def off_decision(action: ComputerAction) -> ComputerDecision:
    """The refusal while computer control is switched off."""
    return deny(
        action,
        "computer-off",
        "computer control is switched off; turn it on in the tray menu, with the API, or with "
        "`aria config set computer.enabled true`",
    )


class ActionHost(Protocol):
    """What the pipeline needs from the capability that owns it (``ComputerUse``)."""

    port: ComputerPort
    """Screen, OCR, windows and input."""
    policy: ActionPolicy
    """The safety policy."""
    audit: AuditSink
    """The audit log."""
    thumbnails: ThumbnailSink | None
    """Where audit thumbnails go (None: no thumbnails)."""
    config: ComputerConfig
    """The computer-use settings (the confirmation timeout)."""
    clock: Clock
    """Time source."""

    @property
    def enabled(self) -> bool:
        """Whether computer control is switched on."""
        ...

    @property
    def confirmations(self) -> ConfirmationBroker:
        """Where consequential actions are confirmed, out of band."""
        ...

    @property
    def state(self) -> AssistantState | None:
        """The assistant's visible state."""
        ...

    def flagged(self, run_id: str) -> bool:
        """Whether suspicious screen text was seen in this run."""
        ...

    def publish(self, event: Event) -> None:
        """Publish an event on the bus."""
        ...

    def set_state(self, state: AssistantState, run_id: str | None) -> None:
        """Show a visible state."""
        ...

    def restore_state(self, previous: AssistantState | None, run_id: str | None) -> None:
        """Show again what was shown before one action."""
        ...


@dataclass(frozen=True)
class _Attempt:
    """One action on its way through the pipeline: what every record of it carries."""

    action_id: str
    run_id: str | None
    source: str
    action: ComputerAction
    rule: str
    dry_run: bool
    observation: Observation | None

    @property
    def audit_base(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "action_id": self.action_id, "source": self.source}


class ActionPipeline:
    """Decides, confirms, re-verifies, performs and records actions for one ``ComputerUse``.

    Args:
        computer: the capability (port, policy, audit, switch, bus, confirmations).
    """

    def __init__(self, computer: ActionHost) -> None:
        """Nothing in flight yet."""
        self._computer = computer
        self._in_flight: set[asyncio.Future[Any]] = set()
        self._thumbnails_by_observation: dict[int, str] = {}

    def pending(self) -> list[asyncio.Future[Any]]:
        """Actions running in worker threads now (the kill switch waits for them)."""
        return [f for f in self._in_flight if not f.done()]

    async def decide(
        self,
        action: ComputerAction,
        *,
        task_id: str,
        observation: Observation | None,
        dry_run: bool,
        source: str = "computer",
    ) -> Decided:
        """Context + policy (+ what the target looked like), without asking or acting."""
        computer = self._computer
        if not dry_run and not computer.enabled and source not in USER_DRIVEN_SOURCES:
            return off_decision(action), None
        port = computer.port
        context = await asyncio.to_thread(port.context_for, action, observation)
        decision = computer.policy.evaluate(
            action, context, task_id=task_id, now_s=computer.clock.monotonic()
        )
        if (
            decision.verdict == "allow"
            and decision.action_class != "read_only"
            and computer.flagged(task_id)
        ):
            # Flagged screen text never makes an action silent: the rest of the run asks.
            decision = replace(
                decision,
                verdict="confirm",
                rule="untrusted:flagged-content",
                reason="text on the screen looked like instructions to ARIA",
            )
        expectation = None
        if decision.verdict != "deny" and decision.action_class != "read_only":
            expectation = await asyncio.to_thread(port.expect, decision.action, observation)
        return decision, expectation

    async def perform(
        self,
        action: ComputerAction,
        *,
        run_id: str | None,
        task_id: str,
        observation: Observation | None = None,
        dry_run: bool = False,
        decided: Decided | None = None,
        source: str = "computer",
    ) -> ComputerActionOutcome:
        """Decide (unless ``decided`` already), confirm if needed, re-verify and perform."""
        action_id = secrets.token_hex(6)
        audit = self._computer.audit
        await audit.append(
            "computer-proposal",
            {
                "run_id": run_id,
                "action_id": action_id,
                "source": source,
                "action": action.redacted(),
                "dry_run": dry_run,
            },
        )
        confirmed_already = decided is not None
        if decided is None:
            try:
                decided = await self.decide(
                    action, task_id=task_id, observation=observation, dry_run=dry_run, source=source
                )
            except AriaError as exc:
                decided = (deny(action, f"context:{exc.code}", exc.message), None)
        decision, expectation = decided
        attempt = _Attempt(
            action_id, run_id, source, decision.action, decision.rule, dry_run, observation
        )
        await audit.append(
            "computer-decision",
            {
                **attempt.audit_base,
                "verdict": decision.verdict,
                "rule": decision.rule,
                "reason": decision.reason,
                "action_class": decision.action_class,
            },
        )
        start = self._start_event(attempt, decision)
        if decision.verdict == "deny":
            self._computer.publish(start)
            refused = f"Refused by the safety policy (rule {decision.rule}): {decision.reason}"
            return await self._finish(attempt, "denied", refused, 0.0)
        if decision.verdict == "confirm" and not confirmed_already:
            approved, why = await self._ask(attempt, decision)
            if not approved:
                self._computer.publish(start)
                return await self._finish(attempt, "denied", f"The user {why}; nothing was done.")
            await asyncio.sleep(_SETTLE_AFTER_CONFIRM_S)
        self._computer.publish(start)
        return await self._execute(attempt, expectation)

    @staticmethod
    def _start_event(attempt: _Attempt, decision: ComputerDecision) -> ComputerActionStart:
        return ComputerActionStart(
            run_id=attempt.run_id,
            action_id=attempt.action_id,
            action=attempt.action.redacted(),
            summary=attempt.action.describe(),
            action_class=decision.action_class,
            verdict=decision.verdict,
            rule=decision.rule,
            dry_run=attempt.dry_run,
        )

    async def _execute(
        self, attempt: _Attempt, expectation: TargetExpectation | None
    ) -> ComputerActionOutcome:
        """Re-verify and act in a worker thread; the kill switch aborts it."""
        computer = self._computer
        previous_state = computer.state
        computer.set_state("acting", attempt.run_id)
        if not self._in_flight:
            # A kill switch earlier left the abort flag set; nothing runs now, so clear it.
            computer.port.reset()
        started = computer.clock.monotonic()
        status = "ok"
        detail = ""
        try:
            user_driven = attempt.source in USER_DRIVEN_SOURCES
            if not attempt.dry_run and not computer.enabled and not user_driven:
                raise ComputerControlOffError("Computer control was switched off.")
            detail = await self._blocking(
                self._verify_and_perform, attempt.action, expectation, attempt.dry_run
            )
        except asyncio.CancelledError:
            computer.port.abort()
            latency_ms = (computer.clock.monotonic() - started) * 1000
            await self._finish(attempt, "aborted", "Stopped by the kill switch.", latency_ms)
            computer.restore_state(previous_state, attempt.run_id)
            raise
        except ComputerError as exc:
            status, detail = _STATUS_BY_ERROR_CODE.get(exc.code, "error"), exc.message
        computer.restore_state(previous_state, attempt.run_id)
        latency_ms = (computer.clock.monotonic() - started) * 1000
        return await self._finish(attempt, status, detail, latency_ms)

    def _verify_and_perform(
        self, action: ComputerAction, expectation: TargetExpectation | None, dry_run: bool
    ) -> str:
        port = self._computer.port
        if expectation is not None:
            port.verify(expectation, action)
        return port.perform(action, dry_run=dry_run)

    async def _blocking(self, fn: Callable[..., str], *args: Any) -> str:
        """Run ``fn`` in a worker thread, tracked so the kill switch can wait for it."""
        future = asyncio.ensure_future(asyncio.to_thread(fn, *args))
        self._in_flight.add(future)
        future.add_done_callback(self._in_flight.discard)
        return await future

    async def _ask(self, attempt: _Attempt, decision: ComputerDecision) -> tuple[bool, str]:
        """Out-of-band confirmation (no answer in time = deny), audited."""
        computer, run_id = self._computer, attempt.run_id
        outcome = await computer.confirmations.request(
            run_id=run_id,
            tool="computer",
            summary=attempt.action.describe(),
            reason=decision.reason or decision.rule,
            timeout_s=computer.config.confirm_timeout_s,
        )
        await computer.audit.append(
            "confirmation",
            {
                "run_id": run_id,
                "action_id": attempt.action_id,
                "request_id": outcome.request_id,
                "approved": outcome.approved,
                "timed_out": outcome.timed_out,
            },
        )
        return outcome.approved, ("did not answer in time" if outcome.timed_out else "declined")

    async def _thumbnail(self, attempt: _Attempt) -> str:
        """The audit thumbnail of the screen the action was decided on ("" when none)."""
        sink, observation = self._computer.thumbnails, attempt.observation
        if sink is None or observation is None:
            return ""
        thumbnail = self._thumbnails_by_observation.get(observation.id, "")
        if not thumbnail:
            try:
                thumbnail = await asyncio.to_thread(
                    sink.save, observation.screenshot.png, label=attempt.action.kind
                )
            except Exception as exc:  # a full disk must not stop the audit record
                _LOGGER.warning("Could not store an audit thumbnail: %s", exc)
            self._thumbnails_by_observation = {observation.id: thumbnail}
        return thumbnail

    async def _finish(
        self, attempt: _Attempt, status: str, detail: str, latency_ms: float = 0.0
    ) -> ComputerActionOutcome:
        """Audit the result, publish ``computer-action-end`` and build the outcome."""
        thumbnail = "" if status == "aborted" else await self._thumbnail(attempt)
        await self._computer.audit.append(
            "computer-result",
            {
                **attempt.audit_base,
                "status": status,
                "detail": detail[:500],
                "latency_ms": round(latency_ms, 3),
                "dry_run": attempt.dry_run,
                "thumbnail": thumbnail,
            },
        )
        self._computer.publish(
            ComputerActionEnd(
                run_id=attempt.run_id,
                action_id=attempt.action_id,
                status=status,
                detail=detail[:500],
                latency_ms=latency_ms,
            )
        )
        return ComputerActionOutcome(
            status=status,  # type: ignore[arg-type]
            action=attempt.action.redacted(),
            rule=attempt.rule,
            detail=detail,
            dry_run=attempt.dry_run,
        )
