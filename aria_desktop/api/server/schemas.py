"""Request and response bodies of the HTTP API (pydantic), and their domain conversions.

Events travel as ``Event.to_dict()`` JSON and come back with ``domain.event_wire.event_from_dict``
(the server and ``api.client`` share both). Bodies whose fields mirror a domain dataclass read
it by attribute (``_FromDomain.of``); ``api.wire`` reads them back on the client side.
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from aria_desktop.domain.computer import ComputerActionOutcome, Grounding, ScreenText
from aria_desktop.domain.memory import MemoryQuery

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
    "PushToTalkIn",
    "PushToTalkOut",
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


class _Strict(BaseModel):
    """No unknown fields: a misspelt field is an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


class _FromDomain(BaseModel):
    """A response body read from the domain value's attributes (nested values too).

    One conversion for every body whose fields mirror a domain dataclass, instead of a
    hand-written field-by-field copy per class.
    """

    model_config = ConfigDict(from_attributes=True)

    @classmethod
    def of(cls, value: object) -> Self:
        """From the domain value (its attributes of the same names)."""
        return cls.model_validate(value)


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


class UsageOut(_FromDomain):
    """Token counts, and their cost from ``llm.prices`` (0 for local backends)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float = 0.0


# --- chat, turns and conversations ----------------------------------------------------------


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
    locality: Literal["local", "cloud", ""] = Field(
        default="",
        description=(
            "Where the answering backend runs: local (the conversation stays on this "
            "machine or network) or cloud; empty when no backend answered"
        ),
    )
    usage: UsageOut
    latency_ms: float
    error: ErrorDetail | None = None
    thinking: str = Field(default="", description="The model's reasoning, apart from the text")


class ToolCallOut(_FromDomain):
    """A tool call an assistant message made."""

    id: str
    name: str
    arguments: dict[str, Any]


class MessageOut(_FromDomain):
    """A stored message."""

    id: int
    conversation_id: str
    role: Literal["system", "user", "assistant", "tool"]
    content: str
    status: Literal["complete", "interrupted", "error"]
    created_at: float
    tool_calls: list[ToolCallOut] = Field(default=[])
    tool_call_id: str | None = None
    name: str | None = None
    backend: str = ""
    model: str = ""
    usage: UsageOut = UsageOut()
    thinking: str = Field(default="", description="The reply's reasoning, apart from content")


class ConversationOut(_FromDomain):
    """A conversation (times in UNIX seconds)."""

    id: str
    title: str
    created_at: float
    updated_at: float
    message_count: int = 0


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


class CapabilityOut(_FromDomain):
    """Whether a capability can be used now, and why not."""

    name: str
    available: bool
    reason: str = ""
    enabled: bool = True


# --- settings and automations --------------------------------------------------------------


class SettingsOut(BaseModel):
    """Every setting as nested tables; ``restart_required``: a change waits for a restart.

    Secrets stay in the keyring; only ``llm`` and ``voice`` apply live (ARCHITECTURE.md).
    """

    settings: dict[str, Any]
    restart_required: bool = False


class SettingsPatch(_Strict):
    """Settings to change, by dotted key (``{"agent.max_steps": 4}``); all or nothing."""

    changes: dict[str, str | int | float | bool | list[str] | dict[str, list[str]]] = Field(
        min_length=1, max_length=100
    )


class AutomationOut(_FromDomain):
    """A configured automation."""

    name: str
    prompt: str
    schedule: str
    webhook: bool
    conversation: str
    notify: bool
    post_url: str
    backend: str


class AutomationRunOut(BaseModel):
    """A started automation run; its events carry ``run_id``."""

    name: str
    run_id: str
    conversation_id: str


# --- long-term memory ------------------------------------------------------------------------

MemoryKindIn = Literal["fact", "preference", "event", "skill", "document"]
MemoryStatusIn = Literal["active", "superseded", "forgotten"]


class MemoryOut(_FromDomain):
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

    def to_query(self) -> MemoryQuery:
        """The domain query (an empty status list means active only)."""
        return MemoryQuery(
            text=self.query,
            limit=self.limit,
            kinds=tuple(self.kinds),
            subject=self.subject,
            statuses=tuple(self.statuses) or ("active",),
            since=self.since,
            until=self.until,
            min_similarity=self.min_similarity,
        )


class MemoryHitOut(_FromDomain):
    """A search result: higher ``score`` is better (comparable within one search only)."""

    memory: MemoryOut
    score: float
    lexical_rank: int | None = None
    vector_rank: int | None = None


class MemoryCandidateOut(_FromDomain):
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


# --- voice -------------------------------------------------------------------------------------


class SpeakIn(_StrictTypes):
    """Text to say; ``play`` also plays it on ARIA's speaker (the WAV is returned either way)."""

    text: str = Field(min_length=1, max_length=5000, pattern=r"\w")
    play: bool = False


class TranscriptOut(_FromDomain):
    """What speech-to-text heard (``audio_s`` seconds of audio, ``latency_ms`` to recognise)."""

    text: str
    language: str = ""
    audio_s: float = 0.0
    latency_ms: float = 0.0
    engine: str = ""


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
    """Read the whole screen, or only ``region``.

    ``unless_protected``: the whole screen, refused (409) while a window the computer policy
    protects is visible (what ARIA's MCP server asks for other programs).
    """

    region: RegionIn | None = None
    unless_protected: bool = False


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
            "untrusted-content-flagged",
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
