"""Events: facts published on the bus, rendered alike by the CLI, GUI and API.

Each event is a frozen ``kw_only`` dataclass with a kebab-case ``type``. Stages emit paired
``*-start``/``*-end`` events; every turn ends with ``run-end``; a failure becomes one ``error``
event with a stable ``code``. ``ts`` is wall-clock UNIX seconds, so stage latencies can be read
off the stream. ``lossy`` events may be dropped for a slow subscriber; others never are.

This module holds the base ``Event`` and the events of a turn (run, model steps, tool calls,
confirmations, state, errors, saved messages, untrusted content); each other family has its
own module beside it: ``voice_events``, ``computer_events``, ``memory_events`` (memory and
knowledge), ``automation_events`` and ``settings_events`` (live settings, model warm-up).
``event_wire`` imports them all, so every ``type`` decodes.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from aria_desktop.domain.chat import PromptBudgeted, Usage
from aria_desktop.domain.locality import Locality

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
class LlmThinking(Event):
    """A piece of the model's reasoning as it arrives: shown folded, never spoken or answered."""

    type: ClassVar[str] = "llm-thinking"
    text: str


@dataclass(frozen=True, kw_only=True)
class BackendFallback(Event):
    """The router moved on to the next backend; ``reason`` is the failure's error code."""

    type: ClassVar[str] = "backend-fallback"
    from_backend: str
    to_backend: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class PromptFitted(Event):
    """The prompt was fitted to a backend's context window and some of it was left out.

    ``fit`` says for which backend, its window (Ollama's ``num_ctx``), the fitted prompt's
    estimated size and how many history messages, recalled items and tool schemas were left out.
    """

    type: ClassVar[str] = "prompt-fitted"
    fit: PromptBudgeted


@dataclass(frozen=True, kw_only=True)
class ThinkEnd(Event):
    """One model step ended.

    Attributes:
        backend, model: who answered ("" if the step failed before any backend answered).
        locality: ``local`` or ``cloud`` — whether that backend keeps the conversation on
            this machine/network; decided once at composition (``""`` when no backend
            answered). Front-ends show it as it is, never guess it from the name.
        usage: token counts of this step.
        first_token_ms: time from think-start to the first text or tool call, milliseconds.
        latency_ms: time from think-start to the end of the step, milliseconds.
    """

    type: ClassVar[str] = "think-end"
    step: int = 1
    backend: str = ""
    model: str = ""
    locality: Locality | Literal[""] = ""
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
class ToolCallRejectedEvent(Event):
    """The model wrote a tool call as text that ARIA could not use; it was not run.

    The text is neither shown as the answer nor spoken; the model is told what was wrong and
    may try once more (``core/text_calls.py``).

    Attributes:
        name: the tool the text named ("" when none could be read).
        reason: what was wrong.
        text: the start of what the model wrote.
    """

    type: ClassVar[str] = "tool-call-rejected"
    name: str
    reason: str
    text: str


@dataclass(frozen=True, kw_only=True)
class ClientToolCall(Event):
    """The model called one of the client's tools (a ``ClientTurn``): the client runs it.

    ARIA does not execute it; the turn ends after the step, and the client's next request
    carries the result.
    """

    type: ClassVar[str] = "client-tool-call"
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
        locality: where that backend runs, as its ``think-end`` said (``""`` if none yet), so
            a front-end that joins between turns can show it without guessing.
    """

    type: ClassVar[str] = "state-changed"
    state: AssistantState
    backend: str = ""
    locality: Locality | Literal[""] = ""


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


@dataclass(frozen=True, kw_only=True)
class UntrustedContentFlagged(Event):
    """Untrusted content looks like it tries to steer the assistant (possible prompt injection).

    One event per finding of the one injection scanner (``core/injection.py``), for every
    tool result and for screen text. It is reported to the user and noted to the model; it
    never grants anything: after it, the rest of the turn asks before acting.

    Attributes:
        source: where the content came from: the tool's name (``web_fetch``, ``screen_read``)
            or ``screen`` (the task loop's and the CLI's look at the screen).
        kind: ``instruction`` (reads like an order to an assistant), ``hidden`` (invisible
            characters or hidden page text) or ``tool-call`` (a tool call look-alike).
        text: the line or passage, shortened, invisible characters shown as ``<U+XXXX>``.
        pattern: what matched.
    """

    type: ClassVar[str] = "untrusted-content-flagged"
    source: str
    kind: str
    text: str
    pattern: str

    def warning(self) -> str:
        """The warning in plain words, the same in every front-end."""
        what = {
            "instruction": "looks like instructions to ARIA",
            "hidden": "hides text a reader would not see",
            "tool-call": "contains a tool-call look-alike",
        }.get(self.kind, "looks suspicious")
        where = "Text on the screen" if self.source == "screen" else f"Output of {self.source}"
        return (
            f"Warning: {where} {what} ({self.text[:80]!r}); ARIA ignores it and asks before "
            "any further action in this turn"
        )
