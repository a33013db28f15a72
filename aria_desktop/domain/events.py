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

from aria_desktop.domain.chat import PromptBudgeted, Usage
from aria_desktop.domain.knowledge import Citation
from aria_desktop.domain.locality import Locality as Locality  # re-exported: events carry it

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
class MemoryChanged(Event):
    """Long-term memory changed (the GUI shows "Remembered: ..." and refreshes its list).

    Attributes:
        memory_id: the memory (or inbox entry) concerned.
        action: added, reinforced, superseded (a new memory replaced an old one), updated,
            forgotten, inbox (a candidate awaits approval) or rejected.
        content: the memory's text.
        conversation_id: the conversation it came from, when it came from one.
    """

    type: ClassVar[str] = "memory-changed"
    memory_id: str
    action: str
    content: str = ""
    conversation_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class KnowledgeChanged(Event):
    """The knowledge base changed: a source added or removed, a rescan, a watched folder.

    Attributes:
        action: added, removed, rescanned or watched (a watched folder's change applied).
        location: the source concerned ("" for a rescan of all or a watcher batch).
        files_indexed, files_removed, chunks_embedded, problems: what the change did.
    """

    type: ClassVar[str] = "knowledge-changed"
    action: str
    location: str = ""
    files_indexed: int = 0
    files_removed: int = 0
    chunks_embedded: int = 0
    problems: int = 0


@dataclass(frozen=True, kw_only=True)
class KnowledgeCited(Event):
    """A turn's prompt got numbered document passages; the answer cites them as ``[n]``.

    Attributes:
        conversation_id: the turn's conversation (the front-ends link the reply's ``[n]``).
        citations: the references, numbered from 1.
    """

    type: ClassVar[str] = "knowledge-cited"
    conversation_id: str
    citations: tuple[Citation, ...] = ()


# --- voice --------------------------------------------------------------------------------------
#
# A voice turn reads: wake-start -> wake-end -> stt-start -> stt-vad-start -> stt-vad-end ->
# stt-end -> run-start ... llm-delta ... -> tts-start -> tts-end (-> stt-start for a follow-up).
# Wake and STT events come before the turn exists, so their ``run_id`` is None; TTS events carry
# the turn's run id. Every ``ts`` is wall-clock seconds, so stage latencies read off the stream.


@dataclass(frozen=True, kw_only=True)
class VoiceLoadStart(Event):
    """A voice model began loading in the background (``component``: wake, vad, stt, tts)."""

    type: ClassVar[str] = "voice-load-start"
    component: str
    model: str = ""


@dataclass(frozen=True, kw_only=True)
class VoiceLoadEnd(Event):
    """A voice model finished loading (``ok``) or failed (``error`` says why).

    Attributes:
        latency_ms: loading time in milliseconds.
    """

    type: ClassVar[str] = "voice-load-end"
    component: str
    model: str = ""
    ok: bool = True
    error: str = ""
    latency_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class WakeStart(Event):
    """ARIA started waiting for the wake word (``model``: the wake word model)."""

    type: ClassVar[str] = "wake-start"
    model: str = ""


@dataclass(frozen=True, kw_only=True)
class WakeEnd(Event):
    """Waiting for the wake word ended.

    Attributes:
        detected: True when the wake word was heard (False: muted, stopped, push-to-talk).
        name: the wake word model that fired ("" if none).
        score: its score (0..1).
    """

    type: ClassVar[str] = "wake-end"
    detected: bool = False
    name: str = ""
    score: float = 0.0


@dataclass(frozen=True, kw_only=True)
class SttStart(Event):
    """ARIA started listening to a command.

    Attributes:
        trigger: wake, push-to-talk, follow-up or file.
    """

    type: ClassVar[str] = "stt-start"
    trigger: str = "wake"


@dataclass(frozen=True, kw_only=True)
class SttVadStart(Event):
    """Voice activity detection heard speech begin."""

    type: ClassVar[str] = "stt-vad-start"


@dataclass(frozen=True, kw_only=True)
class SttVadEnd(Event):
    """The command ended.

    Attributes:
        reason: silence (endpoint reached), max_length, released (push-to-talk), no_speech,
            cancelled.
        audio_ms: length of the captured command audio, in milliseconds.
    """

    type: ClassVar[str] = "stt-vad-end"
    reason: str = "silence"
    audio_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class SttEnd(Event):
    """Speech-to-text finished.

    Attributes:
        text: the transcript ("" when nothing intelligible was said or on failure).
        language: language code.
        latency_ms: transcription time in milliseconds.
        engine: which recogniser was used.
    """

    type: ClassVar[str] = "stt-end"
    text: str = ""
    language: str = ""
    latency_ms: float = 0.0
    engine: str = ""


@dataclass(frozen=True, kw_only=True)
class TtsStart(Event):
    """ARIA started speaking a reply (sentence by sentence as the reply streams)."""

    type: ClassVar[str] = "tts-start"


@dataclass(frozen=True, kw_only=True)
class TtsEnd(Event):
    """ARIA stopped speaking.

    Attributes:
        status: complete, interrupted (wake word, push-to-talk, kill switch) or error.
        sentences: sentences spoken.
        audio_ms: audio handed to the output, in milliseconds.
        first_audio_ms: time from tts-start to the first audio handed to the output, ms.
    """

    type: ClassVar[str] = "tts-end"
    status: str = "complete"
    sentences: int = 0
    audio_ms: float = 0.0
    first_audio_ms: float | None = None


@dataclass(frozen=True, kw_only=True)
class AudioLevel(Event):
    """Microphone level for meters (about 12 per second; dropped for slow subscribers).

    Attributes:
        rms_dbfs: loudness of the last frame in dB relative to full scale (-100..0).
        speech: whether the voice activity detector considers the frame speech (only
            meaningful while listening to a command).
    """

    type: ClassVar[str] = "audio-level"
    lossy: ClassVar[bool] = True
    rms_dbfs: float
    speech: bool = False


# --- automations -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class AutomationStart(Event):
    """An automation began (a webhook call, a schedule firing or a manual run).

    Attributes:
        name: the automation's name in the settings.
        trigger: webhook, schedule or manual.
        conversation_id: the conversation its turn runs in.
    """

    type: ClassVar[str] = "automation-start"
    name: str
    trigger: str
    conversation_id: str = ""


@dataclass(frozen=True, kw_only=True)
class AutomationEnd(Event):
    """An automation finished; front-ends show ``result`` as a notification when ``notify``.

    Attributes:
        name: the automation's name.
        trigger: webhook, schedule or manual.
        status: the turn's status (complete, interrupted, error, cancelled).
        result: the answer text ("" unless complete).
        notify: whether the user asked to be notified of the result.
        delivered_to: the URL the result was POSTed to ("" when none was configured).
        delivery_error: why that POST failed ("" when it succeeded or there was none).
    """

    type: ClassVar[str] = "automation-end"
    name: str
    trigger: str
    status: RunStatus
    conversation_id: str = ""
    result: str = ""
    notify: bool = False
    delivered_to: str = ""
    delivery_error: str = ""


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


# --- live settings and model warm-up (ARCHITECTURE.md: settings applied live) ---------------

ModelLoadState = Literal["loading", "ready", "failed"]


@dataclass(frozen=True, kw_only=True)
class ModelStatus(Event):
    """The local chat model's load state (the tray's "Loading model…", "model" capability).

    ``trigger``: start, wake, settings or reply; ``load_ms``: the load time;
    ``code``/``error``/``hint``: why it failed and what to do.
    """

    type: ClassVar[str] = "model-status"
    status: ModelLoadState
    backend: str = ""
    model: str = ""
    trigger: str = ""
    load_ms: float = 0.0
    code: str = ""
    error: str = ""
    hint: str = ""


@dataclass(frozen=True, kw_only=True)
class SettingsApplied(Event):
    """Changed ``sections`` took effect without a restart: the next turn uses them.

    ``backend``, ``model``, ``locality``: the chat chain's first backend now (the badge);
    ``restart_needed``: changed sections that wait for a restart.
    """

    type: ClassVar[str] = "settings-applied"
    sections: tuple[str, ...] = ()
    backend: str = ""
    model: str = ""
    locality: Locality | Literal[""] = ""
    restart_needed: tuple[str, ...] = ()
