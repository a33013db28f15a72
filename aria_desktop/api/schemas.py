"""Request and response bodies of the HTTP API (pydantic), and their domain conversions.

Events travel as ``Event.to_dict()`` JSON and come back with ``domain.events.event_from_dict``
(the server and ``api.client`` share both).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from aria_desktop.domain.audio import Transcript
from aria_desktop.domain.automation import AutomationSpec
from aria_desktop.domain.chat import CapabilityStatus, Conversation, StoredMessage, Usage
from aria_desktop.domain.computer import ComputerActionOutcome, Grounding, ScreenText
from aria_desktop.domain.memory import Memory, MemoryCandidate, MemoryHit

__all__ = [
    "AutomationOut",
    "AutomationRunOut",
    "CancelIn",
    "CancelOut",
    "CapabilityOut",
    "ChatIn",
    "ChatReply",
    "ClickOut",
    "ComputerControlIn",
    "ComputerControlOut",
    "ConfirmIn",
    "ConversationCreate",
    "ConversationDetail",
    "ConversationOut",
    "ConversationRename",
    "DoIn",
    "DoOut",
    "ErrorDetail",
    "ErrorOut",
    "GroundingOut",
    "HealthOut",
    "ListenOut",
    "MemoryCandidateOut",
    "MemoryCreate",
    "MemoryHitOut",
    "MemoryOut",
    "MemorySearchIn",
    "MemoryUpdate",
    "MessageOut",
    "OcrBlockOut",
    "OcrLineOut",
    "OcrWordOut",
    "RegionIn",
    "ScreenClickIn",
    "ScreenElementOut",
    "ScreenFindIn",
    "ScreenOcrIn",
    "ScreenShotIn",
    "ScreenTextOut",
    "SettingsOut",
    "SettingsPatch",
    "SpeakIn",
    "StateOut",
    "TextMatchOut",
    "ToolCallOut",
    "TranscriptOut",
    "TurnIn",
    "TurnOut",
    "UsageOut",
]

_ID = Field(min_length=1, max_length=128)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _StrictTypes(BaseModel):
    """No unknown fields and no coercion (``false`` is not an importance, ``"5"`` no limit)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ErrorDetail(BaseModel):
    """What went wrong: a stable ``code`` and a message with a hint for people."""

    code: str
    message: str
    hint: str = ""


class ErrorOut(BaseModel):
    """Every error response other than request validation (422)."""

    error: ErrorDetail


class HealthOut(BaseModel):
    """Liveness: only the status and the version (no token needed)."""

    status: Literal["ok"]
    version: str


class UsageOut(BaseModel):
    """Token counts."""

    input_tokens: int = 0
    output_tokens: int = 0

    @classmethod
    def of(cls, usage: Usage) -> UsageOut:
        """From the domain value."""
        return cls(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens)


class ChatIn(_Strict):
    """Ask ARIA something.

    ``stream`` (default true) answers with Server-Sent Events; false waits for the whole reply.
    """

    message: str = Field(min_length=1, max_length=100_000, pattern=r"\S")
    conversation_id: str | None = Field(default=None, min_length=1, max_length=128)
    stream: bool = True
    backend: Literal["ollama", "anthropic", "openai"] | None = None


class TurnIn(_Strict):
    """Start a turn without waiting for it (``POST /turns``); events follow on ``/events``."""

    message: str = Field(min_length=1, max_length=100_000, pattern=r"\S")
    conversation_id: str | None = Field(default=None, min_length=1, max_length=128)
    backend: Literal["ollama", "anthropic", "openai"] | None = None
    source: Literal["text", "voice", "api", "automation"] = "api"


class TurnOut(BaseModel):
    """A started turn: its events carry ``run_id``."""

    run_id: str
    conversation_id: str


class ChatReply(BaseModel):
    """The whole reply of a turn (``stream=false``)."""

    run_id: str
    conversation_id: str
    status: Literal["complete", "interrupted", "error", "cancelled"]
    text: str
    backend: str
    model: str
    usage: UsageOut
    latency_ms: float
    error: ErrorDetail | None = None


class ToolCallOut(BaseModel):
    """A tool call an assistant message made."""

    id: str
    name: str
    arguments: dict[str, Any]


class MessageOut(BaseModel):
    """A stored message."""

    id: int
    conversation_id: str
    role: Literal["system", "user", "assistant", "tool"]
    content: str
    status: Literal["complete", "interrupted", "error"]
    created_at: float
    tool_calls: list[ToolCallOut] = []
    tool_call_id: str | None = None
    name: str | None = None
    backend: str = ""
    model: str = ""
    usage: UsageOut = UsageOut()

    @classmethod
    def of(cls, message: StoredMessage) -> MessageOut:
        """From the domain value."""
        return cls(
            id=message.id,
            conversation_id=message.conversation_id,
            role=message.role,
            content=message.content,
            status=message.status,
            created_at=message.created_at,
            tool_calls=[
                ToolCallOut(id=c.id, name=c.name, arguments=c.arguments) for c in message.tool_calls
            ],
            tool_call_id=message.tool_call_id,
            name=message.name,
            backend=message.backend,
            model=message.model,
            usage=UsageOut.of(message.usage),
        )


class ConversationOut(BaseModel):
    """A conversation (times in UNIX seconds)."""

    id: str
    title: str
    created_at: float
    updated_at: float
    message_count: int = 0

    @classmethod
    def of(cls, conversation: Conversation) -> ConversationOut:
        """From the domain value."""
        return cls(
            id=conversation.id,
            title=conversation.title,
            created_at=conversation.created_at,
            updated_at=conversation.updated_at,
            message_count=conversation.message_count,
        )


class ConversationCreate(_Strict):
    """A new conversation's title."""

    title: str = Field(default="New conversation", min_length=1, max_length=500)


class ConversationRename(_Strict):
    """A conversation's new title."""

    title: str = Field(min_length=1, max_length=500)


class ConversationDetail(BaseModel):
    """A conversation with one page of its messages (oldest first).

    ``next_before_id`` fetches the page before this one (null when there is none).
    """

    conversation: ConversationOut
    messages: list[MessageOut]
    next_before_id: int | None = None


class ConfirmIn(_Strict):
    """The answer to an ``action-confirm-request``: it must echo that request's nonce."""

    approved: bool
    nonce: str = Field(min_length=1, max_length=256)


class CancelIn(_Strict):
    """Stop one turn (``run_id``) or every turn (null)."""

    run_id: str | None = Field(default=None, min_length=1, max_length=128)


class CancelOut(BaseModel):
    """How many turns were cancelled."""

    cancelled: int


class StateOut(BaseModel):
    """The assistant's visible state."""

    state: str


class CapabilityOut(BaseModel):
    """Whether a capability can be used now, and why not."""

    name: str
    available: bool
    reason: str = ""
    enabled: bool = True

    @classmethod
    def of(cls, status: CapabilityStatus) -> CapabilityOut:
        """From the domain value."""
        return cls(
            name=status.name,
            available=status.available,
            reason=status.reason,
            enabled=status.enabled,
        )


class SettingsOut(BaseModel):
    """Every setting as nested tables (secrets are never included: they live in the keyring).

    ``restart_required`` is true after a change: running parts keep their values until then.
    """

    settings: dict[str, Any]
    restart_required: bool = False


class SettingsPatch(_Strict):
    """Settings to change, by dotted key (``{"agent.max_steps": 4}``); all or nothing."""

    changes: dict[str, str | int | float | bool | list[str] | dict[str, list[str]]] = Field(
        min_length=1, max_length=100
    )


class AutomationOut(BaseModel):
    """A configured automation."""

    name: str
    prompt: str
    schedule: str
    webhook: bool
    conversation: str
    notify: bool
    post_url: str
    backend: str

    @classmethod
    def of(cls, spec: AutomationSpec) -> AutomationOut:
        """From the domain value."""
        return cls(
            name=spec.name,
            prompt=spec.prompt,
            schedule=spec.schedule,
            webhook=spec.webhook,
            conversation=spec.conversation,
            notify=spec.notify,
            post_url=spec.post_url,
            backend=spec.backend,
        )


class AutomationRunOut(BaseModel):
    """A started automation run; its events carry ``run_id``."""

    name: str
    run_id: str
    conversation_id: str


# --- long-term memory ------------------------------------------------------------------------

MemoryKindIn = Literal["fact", "preference", "event", "skill", "document"]
MemoryStatusIn = Literal["active", "superseded", "forgotten"]


class MemoryOut(BaseModel):
    """One remembered statement (see ``domain.memory.Memory``; times are UNIX seconds)."""

    id: str
    content: str
    kind: str
    subject: str
    importance: float
    confidence: float
    status: str
    provenance: str
    conversation_id: str | None = None
    message_ids: list[int] = Field(default_factory=list)
    topic: str = ""
    created_at: float
    updated_at: float
    last_accessed_at: float | None = None
    access_count: int = 0
    embedding_model: str = ""
    supersedes: str | None = None
    superseded_by: str | None = None

    @classmethod
    def of(cls, memory: Memory) -> MemoryOut:
        """From the domain value."""
        return cls(
            id=memory.id,
            content=memory.content,
            kind=memory.kind,
            subject=memory.subject,
            importance=memory.importance,
            confidence=memory.confidence,
            status=memory.status,
            provenance=memory.provenance,
            conversation_id=memory.conversation_id,
            message_ids=list(memory.message_ids),
            topic=memory.topic,
            created_at=memory.created_at,
            updated_at=memory.updated_at,
            last_accessed_at=memory.last_accessed_at,
            access_count=memory.access_count,
            embedding_model=memory.embedding_model,
            supersedes=memory.supersedes,
            superseded_by=memory.superseded_by,
        )


class MemoryCreate(_StrictTypes):
    """Remember something (a near-duplicate reinforces the memory already there)."""

    content: str = Field(min_length=1, max_length=2000, pattern=r"\S")
    kind: MemoryKindIn = "fact"
    subject: str = Field(default="user", min_length=1, max_length=200, pattern=r"\S")
    importance: float = Field(default=0.5, ge=0.0, le=1.0)


class MemoryUpdate(_StrictTypes):
    """Correct a memory in place; fields left out stay as they are."""

    content: str | None = Field(default=None, min_length=1, max_length=2000, pattern=r"\S")
    kind: MemoryKindIn | None = None
    subject: str | None = Field(default=None, min_length=1, max_length=200, pattern=r"\S")
    importance: float | None = Field(default=None, ge=0.0, le=1.0)


def _active_only() -> list[MemoryStatusIn]:
    return ["active"]


class MemorySearchIn(_StrictTypes):
    """Search memories by meaning and keywords (plain words, never query syntax)."""

    query: str = Field(min_length=1, max_length=2000, pattern=r"\S")
    limit: int = Field(default=10, ge=1, le=100)
    kinds: list[MemoryKindIn] = Field(default_factory=list, max_length=5)
    subject: str | None = Field(default=None, min_length=1, max_length=200, pattern=r"\S")
    statuses: list[MemoryStatusIn] = Field(default_factory=_active_only, max_length=3)
    since: float | None = Field(default=None, ge=0.0, le=1e11)
    until: float | None = Field(default=None, ge=0.0, le=1e11)
    min_similarity: float = Field(default=0.2, ge=0.0, le=1.0)


class MemoryHitOut(BaseModel):
    """A search result: higher ``score`` is better (comparable within one search only)."""

    memory: MemoryOut
    score: float
    lexical_rank: int | None = None
    vector_rank: int | None = None

    @classmethod
    def of(cls, hit: MemoryHit) -> MemoryHitOut:
        """From the domain value."""
        return cls(
            memory=MemoryOut.of(hit.memory),
            score=hit.score,
            lexical_rank=hit.lexical_rank,
            vector_rank=hit.vector_rank,
        )


class MemoryCandidateOut(BaseModel):
    """A proposed memory waiting in the inbox for approval."""

    id: str
    content: str
    kind: str
    subject: str
    topic: str = ""
    importance: float
    confidence: float
    conversation_id: str | None = None
    message_ids: list[int] = Field(default_factory=list)
    created_at: float

    @classmethod
    def of(cls, candidate: MemoryCandidate) -> MemoryCandidateOut:
        """From the domain value."""
        return cls(
            id=candidate.id,
            content=candidate.content,
            kind=candidate.kind,
            subject=candidate.subject,
            topic=candidate.topic,
            importance=candidate.importance,
            confidence=candidate.confidence,
            conversation_id=candidate.conversation_id,
            message_ids=list(candidate.message_ids),
            created_at=candidate.created_at,
        )


# --- voice -------------------------------------------------------------------------------------


class SpeakIn(_StrictTypes):
    """Text to say; ``play`` also plays it on ARIA's speaker (the WAV is returned either way)."""

    text: str = Field(min_length=1, max_length=5000, pattern=r"\w")
    play: bool = False


class TranscriptOut(BaseModel):
    """What speech-to-text heard (``audio_s`` seconds of audio, ``latency_ms`` to recognise)."""

    text: str
    language: str = ""
    audio_s: float = 0.0
    latency_ms: float = 0.0
    engine: str = ""

    @classmethod
    def of(cls, transcript: Transcript) -> TranscriptOut:
        """From the domain value."""
        return cls(
            text=transcript.text,
            language=transcript.language,
            audio_s=transcript.audio_s,
            latency_ms=transcript.latency_ms,
            engine=transcript.engine,
        )


class ListenOut(BaseModel):
    """A listen turn was started: what to watch on ``GET /events``."""

    status: Literal["listening"] = "listening"
    events: list[str] = Field(
        default_factory=lambda: [
            "stt-vad-start",
            "stt-vad-end",
            "stt-start",
            "stt-end",
            "run-start",
            "llm-delta",
            "run-end",
            "tts-start",
            "tts-end",
            "error",
        ]
    )


class PushToTalkIn(_StrictTypes):
    """A push-to-talk key event from a remote button or script.

    ``press`` starts listening and ``release`` ends the command (hold-to-talk: a command that
    is never released still ends at ``voice.vad.max_s``); ``toggle`` starts or ends it;
    ``listen`` starts listening and ends at the next pause (like ``POST /listen``).
    """

    action: Literal["press", "release", "toggle", "listen"]


class PushToTalkOut(BaseModel):
    """The key event was taken: what to watch on ``GET /events``."""

    action: Literal["press", "release", "toggle", "listen"]
    events: list[str] = Field(default_factory=lambda: ListenOut().events)


# --- computer use ------------------------------------------------------------------------------

_PX = 100_000
"""Largest coordinate or size accepted, physical pixels (far beyond any real screen)."""


class RegionIn(_StrictTypes):
    """A screen area, physical pixels of the virtual screen (clipped to the screen)."""

    x: int = Field(ge=0, le=_PX)
    y: int = Field(ge=0, le=_PX)
    width: int = Field(ge=1, le=_PX)
    height: int = Field(ge=1, le=_PX)

    def as_tuple(self) -> tuple[int, int, int, int]:
        """``(x, y, width, height)`` as the commands take it."""
        return (self.x, self.y, self.width, self.height)


class ScreenShotIn(_StrictTypes):
    """Which screen to capture: 0 = all monitors (default), 1.. = one monitor."""

    monitor: int = Field(default=0, ge=0, le=16)


class ScreenOcrIn(_StrictTypes):
    """Read the whole screen, or only ``region``."""

    region: RegionIn | None = None


class ScreenFindIn(_StrictTypes):
    """Find ``text`` on screen (case and spacing ignored, fuzzy), optionally in ``region``."""

    text: str = Field(min_length=1, max_length=500, pattern=r"\S")
    region: RegionIn | None = None


class ScreenClickIn(_StrictTypes):
    """Click ``text`` through the safety policy; ``dry_run`` decides and records, does nothing."""

    text: str = Field(min_length=1, max_length=500, pattern=r"\S")
    dry_run: bool = False


class OcrWordOut(BaseModel):
    """One word: ``box`` is ``[x, y, width, height]`` in physical pixels, confidence 0..100."""

    text: str
    confidence: float
    box: list[int]
    line: int


class OcrLineOut(BaseModel):
    """One line of text and its box (physical pixels)."""

    id: int
    text: str
    box: list[int]
    block: int


class OcrBlockOut(BaseModel):
    """A block of lines and its box (physical pixels)."""

    id: int
    text: str
    box: list[int]


class ScreenElementOut(BaseModel):
    """A label-like run of words, numbered in reading order (what models point at)."""

    id: int
    text: str
    box: list[int]
    confidence: float


class ScreenTextOut(BaseModel):
    """What OCR read: ``region`` read, elements, lines, blocks and words (``ocr_ms`` to read)."""

    region: list[int]
    ocr_ms: float
    text: str
    elements: list[ScreenElementOut]
    lines: list[OcrLineOut]
    blocks: list[OcrBlockOut]
    words: list[OcrWordOut]

    @classmethod
    def of(cls, text: ScreenText) -> ScreenTextOut:
        """From the domain value."""
        return cls(
            region=text.region.as_list(),
            ocr_ms=round(text.ocr_ms, 1),
            text=text.text,
            elements=[
                ScreenElementOut(id=e.id, text=e.text, box=e.box.as_list(), confidence=e.confidence)
                for e in text.elements
            ],
            lines=[
                OcrLineOut(id=ln.id, text=ln.text, box=ln.box.as_list(), block=ln.block)
                for ln in text.lines
            ],
            blocks=[OcrBlockOut(id=b.id, text=b.text, box=b.box.as_list()) for b in text.blocks],
            words=[
                OcrWordOut(text=w.text, confidence=w.confidence, box=w.box.as_list(), line=w.line)
                for w in text.words
            ],
        )


class TextMatchOut(BaseModel):
    """Where the text is.

    ``box`` is ``[x, y, w, h]`` and ``center`` ``[x, y]``, physical pixels; ``score`` is the
    similarity to the query, 0..1.
    """

    text: str
    box: list[int]
    center: list[int]
    score: float
    exact: bool


class GroundingOut(BaseModel):
    """Where a text is on screen.

    ``found`` (one best match), ``ambiguous`` (every candidate listed: ARIA never guesses) or
    ``not_found``.
    """

    query: str
    status: Literal["found", "ambiguous", "not_found"]
    matches: list[TextMatchOut]

    @classmethod
    def of(cls, grounding: Grounding) -> GroundingOut:
        """From the domain value."""
        return cls(
            query=grounding.query,
            status=grounding.status,
            matches=[
                TextMatchOut(
                    text=m.text,
                    box=m.box.as_list(),
                    center=[m.center.x, m.center.y],
                    score=m.score,
                    exact=m.exact,
                )
                for m in grounding.matches
            ],
        )


class ClickOut(BaseModel):
    """How a click ended.

    ``ok`` (done, or recorded with ``dry_run``) or ``denied`` (by the policy rule ``rule``, or
    the user declined or did not answer the confirmation in time).
    """

    status: Literal["ok", "denied"]
    action: dict[str, Any]
    rule: str = ""
    detail: str = ""
    dry_run: bool = False

    @classmethod
    def of(cls, outcome: ComputerActionOutcome) -> ClickOut:
        """From the domain value (only ``ok``/``denied``; the route maps the rest to errors)."""
        return cls(
            status="ok" if outcome.status == "ok" else "denied",
            action=outcome.action,
            rule=outcome.rule,
            detail=outcome.detail,
            dry_run=outcome.dry_run,
        )


class DoIn(_StrictTypes):
    """A task for ARIA to do on the screen, in the user's words."""

    task: str = Field(min_length=1, max_length=10_000, pattern=r"\S")
    dry_run: bool = False
    backend: Literal["ollama", "anthropic", "openai"] | None = None


class DoOut(BaseModel):
    """A started computer-use task: follow it on ``GET /events`` by ``run_id``."""

    run_id: str
    events: list[str] = Field(
        default_factory=lambda: [
            "computer-task-start",
            "computer-action-start",
            "action-confirm-request",
            "computer-action-end",
            "screen-text-flagged",
            "computer-task-end",
        ]
    )


class ComputerControlIn(_StrictTypes):
    """Switch computer control (real mouse and keyboard) on or off."""

    enabled: bool


class ComputerControlOut(BaseModel):
    """Whether computer control is on, and whether computer use can work here (and why not)."""

    enabled: bool
    available: bool
    reason: str = ""
