"""Events: facts published on the bus, rendered alike by the CLI, GUI and API.

Each event is a frozen ``kw_only`` dataclass with a kebab-case ``type``. Stages emit paired
``*-start``/``*-end`` events; every turn ends with ``run-end``; a failure becomes one ``error``
event with a stable ``code``. ``ts`` is wall-clock UNIX seconds, so stage latencies can be read
off the stream. ``lossy`` events may be dropped for a slow subscriber; others never are.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from aria_desktop.domain.chat import Usage

AssistantState = Literal[
    "idle", "listening", "thinking", "speaking", "acting", "muted", "error", "offline"
]
RunStatus = Literal["complete", "interrupted", "error", "cancelled"]


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of all events.

    Attributes:
        run_id: the turn this belongs to (None for events outside a turn).
        ts: wall-clock time of the fact, UNIX seconds.
    """

    type: ClassVar[str] = "event"
    lossy: ClassVar[bool] = False
    run_id: str | None = None
    ts: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``{"type": ..., <fields>}`` (nested dataclasses become dicts)."""
        data: dict[str, Any] = {"type": self.type}
        data.update(dataclasses.asdict(self))
        return data


@dataclass(frozen=True, kw_only=True)
class RunStart(Event):
    """A turn began. ``source`` is where it came from: text, voice, api, automation."""

    type: ClassVar[str] = "run-start"
    conversation_id: str
    source: str = "text"
    text: str = ""


@dataclass(frozen=True, kw_only=True)
class RunEnd(Event):
    """A turn ended (always published, in ``finally``).

    Attributes:
        status: complete, interrupted, error or cancelled.
        latency_ms: time from run-start to run-end, in milliseconds.
    """

    type: ClassVar[str] = "run-end"
    conversation_id: str
    status: RunStatus
    latency_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class ThinkStart(Event):
    """One model step began (a turn with tool calls has several). ``step`` counts from 1."""

    type: ClassVar[str] = "think-start"
    step: int = 1


@dataclass(frozen=True, kw_only=True)
class LlmDelta(Event):
    """A piece of reply text as it arrives."""

    type: ClassVar[str] = "llm-delta"
    text: str


@dataclass(frozen=True, kw_only=True)
class BackendFallback(Event):
    """The router moved on to the next backend; ``reason`` is the failure's error code."""

    type: ClassVar[str] = "backend-fallback"
    from_backend: str
    to_backend: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class ThinkEnd(Event):
    """One model step ended.

    Attributes:
        backend, model: who answered ("" if the step failed before any backend answered).
        usage: token counts of this step.
        first_token_ms: time from think-start to the first text or tool call, milliseconds.
        latency_ms: time from think-start to the end of the step, milliseconds.
    """

    type: ClassVar[str] = "think-end"
    step: int = 1
    backend: str = ""
    model: str = ""
    usage: Usage = field(default_factory=Usage)
    first_token_ms: float | None = None
    latency_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class ToolCallEvent(Event):
    """The model asked for a tool call (published before the policy decides)."""

    type: ClassVar[str] = "tool-call"
    call_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class ToolResultEvent(Event):
    """A tool call finished.

    Attributes:
        status: ok, error or denied.
        result: text returned to the model (possibly truncated for display).
        latency_ms: execution time in milliseconds (0 when not executed).
    """

    type: ClassVar[str] = "tool-result"
    call_id: str
    name: str
    status: Literal["ok", "error", "denied"]
    result: str
    latency_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class ActionConfirmRequest(Event):
    """A tool call needs the user's approval through an out-of-band channel.

    Attributes:
        request_id: identifies the request.
        nonce: must be echoed by the ``ConfirmAction`` command; the model never sees it.
        tool: tool name; summary: what would happen, in plain words.
        reason: why confirmation is needed (the policy rule).
        timeout_s: seconds until no answer counts as "deny".
    """

    type: ClassVar[str] = "action-confirm-request"
    request_id: str
    nonce: str
    tool: str
    summary: str
    reason: str
    timeout_s: float


@dataclass(frozen=True, kw_only=True)
class ActionConfirmResult(Event):
    """A confirmation request was answered (``approved``) or timed out (``timed_out``)."""

    type: ClassVar[str] = "action-confirm-result"
    request_id: str
    approved: bool
    timed_out: bool = False


@dataclass(frozen=True, kw_only=True)
class StateChanged(Event):
    """The assistant's visible state changed (drives the tray icon and status lines).

    Attributes:
        state: idle, listening, thinking, speaking, acting, muted, error, offline.
        backend: backend in use or last used ("" if none yet).
    """

    type: ClassVar[str] = "state-changed"
    state: AssistantState
    backend: str = ""


@dataclass(frozen=True, kw_only=True)
class ErrorEvent(Event):
    """A failure, reported once. ``code`` is the stable ``AriaError.code``."""

    type: ClassVar[str] = "error"
    code: str
    message: str
    hint: str = ""


@dataclass(frozen=True, kw_only=True)
class MessageSaved(Event):
    """A message was committed to storage (``status`` complete, interrupted or error)."""

    type: ClassVar[str] = "message-saved"
    conversation_id: str
    message_id: int
    role: str
    status: str
    backend: str = ""
    model: str = ""


# --- computer use ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ComputerControlChanged(Event):
    """Computer control was switched on or off (the GUI overlay and tray item follow it)."""

    type: ClassVar[str] = "computer-control-changed"
    enabled: bool


@dataclass(frozen=True, kw_only=True)
class ComputerTaskStart(Event):
    """A computer-use task began.

    Attributes:
        task: the user's words.
        dry_run: actions are decided and recorded but not performed.
        mode: ``vision`` (screenshots to the model) or ``text`` (numbered OCR elements).
        backend, model: who drives it (fixed for the task: no silent fallback).
    """

    type: ClassVar[str] = "computer-task-start"
    task: str
    dry_run: bool = False
    mode: str = "text"
    backend: str = ""
    model: str = ""


@dataclass(frozen=True, kw_only=True)
class ComputerTaskEnd(Event):
    """A computer-use task ended (always published).

    Attributes:
        status: complete, aborted, target_changed, stuck, error, budget_exhausted, timed_out.
        steps: model calls made; actions: actions performed (or recorded in a dry run).
        summary: the model's closing words, or why it stopped.
        latency_ms: from start to end, milliseconds.
    """

    type: ClassVar[str] = "computer-task-end"
    status: str
    steps: int = 0
    actions: int = 0
    summary: str = ""
    latency_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class ComputerActionStart(Event):
    """An action was proposed and the policy decided on it (execution follows unless denied).

    Attributes:
        action_id: identifies the action (pairs with ``computer-action-end``).
        action: the action, typed text redacted (``ComputerAction.redacted``).
        summary: plain words.
        action_class: read_only, reversible or consequential.
        verdict, rule: the policy's decision and the rule that made it.
        dry_run: nothing will really be performed.
    """

    type: ClassVar[str] = "computer-action-start"
    action_id: str
    action: dict[str, Any]
    summary: str
    action_class: str
    verdict: str
    rule: str
    dry_run: bool = False


@dataclass(frozen=True, kw_only=True)
class ComputerActionEnd(Event):
    """An action finished: ``status`` ok, denied, error, aborted or target_changed."""

    type: ClassVar[str] = "computer-action-end"
    action_id: str
    status: str
    detail: str = ""
    latency_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class ScreenTextFlagged(Event):
    """Text on screen looks like instructions to the assistant (possible prompt injection).

    It is only reported: screen text is data and never changes the policy.
    """

    type: ClassVar[str] = "screen-text-flagged"
    text: str
    pattern: str
