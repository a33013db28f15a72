"""Protocols the core needs from the outside world; adapters satisfy them structurally."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, Protocol, Self

from aria_desktop.domain.audio import AudioClip, SpeechAudio, Transcript, WakeDetection
from aria_desktop.domain.chat import (
    CapabilityStatus,
    ChatRequest,
    Conversation,
    LLMChunk,
    MessageBody,
    NewMessage,
    StoredMessage,
    ToolCall,
    ToolCallRecord,
    TurnStarted,
)
from aria_desktop.domain.commands import Command, ConfirmAction, StartTurn
from aria_desktop.domain.computer import (
    ActionContext,
    ComputerAction,
    ComputerDecision,
    Grounding,
    Observation,
    Point,
    Rect,
    Screenshot,
    ScreenText,
    TargetExpectation,
    WindowInfo,
)
from aria_desktop.domain.config import ServerCheck, SettingInfo
from aria_desktop.domain.events import AssistantState, Event
from aria_desktop.domain.homeassistant import EntityState
from aria_desktop.domain.knowledge import (
    Citation,
    IngestOutcome,
    IngestReport,
    KnowledgeFile,
    KnowledgeHit,
    KnowledgeQuery,
    KnowledgeSource,
    KnowledgeStatus,
)
from aria_desktop.domain.memory import (
    ACTIVE_MEMORIES,
    Memory,
    MemoryAction,
    MemoryCandidate,
    MemoryDraft,
    MemoryEdit,
    MemoryFilter,
    MemoryHit,
    MemoryQuery,
    NewMemory,
)
from aria_desktop.domain.web import WebPage


class Clock(Protocol):
    """Time source, injected so tests and benchmarks control it."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin, never going backwards."""
        ...

    def time(self) -> float:
        """Wall-clock UNIX seconds."""
        ...


class ChatModel(Protocol):
    """What the agent loop talks to: the router over the fallback chain.

    ``stream`` yields what the backends' ``stream_chat`` yields (``llm.router.ChatBackend``:
    the core never holds a backend, only this router) plus ``FallbackNotice`` values; the final
    ``StreamEnd`` names the backend and model that answered.
    """

    def stream(
        self, request: ChatRequest, *, agent: str = "chat", backend: str | None = None
    ) -> AsyncGenerator[LLMChunk, None]: ...


class ConversationStore(Protocol):
    """Persistence of conversations, messages and tool executions (async; never blocks)."""

    async def create_conversation(
        self, title: str, *, conversation_id: str | None = None
    ) -> Conversation:
        """A new, empty conversation; with ``conversation_id``, under that (fresh) id.

        A caller that picks the id can start work that names the conversation before the
        write lands (``core/client_turns.py``).
        """
        ...

    async def get_conversation(self, conversation_id: str) -> Conversation | None: ...

    async def list_conversations(
        self, *, limit: int = 50, offset: int = 0
    ) -> list[Conversation]: ...

    async def rename_conversation(self, conversation_id: str, title: str) -> None: ...

    async def delete_conversation(self, conversation_id: str) -> None: ...

    async def add_message(self, conversation_id: str, message: NewMessage) -> StoredMessage: ...

    async def find_conversation_key(self, keys: Sequence[str]) -> tuple[str, str] | None:
        """The first of ``keys`` (in the order given) that names a conversation, and its id.

        Keys are digests of message sequences a stateless client may continue
        (``core/client_turns.py``); a deleted conversation's keys are gone with it.
        """
        ...

    async def set_conversation_key(self, key: str, conversation_id: str) -> None:
        """Let ``key`` name ``conversation_id`` (NotFoundError: no such conversation)."""
        ...

    async def update_message(self, message_id: int, body: MessageBody) -> None:
        """Replace content, status and calls; backend, model and usage only when given."""
        ...

    async def list_messages(
        self, conversation_id: str, *, limit: int | None = None, before_id: int | None = None
    ) -> list[StoredMessage]:
        """Messages oldest first; with ``limit``, the newest ``limit`` (before ``before_id``)."""
        ...

    async def begin_tool_call(self, conversation_id: str, call: ToolCall) -> ToolCallRecord | None:
        """Record a call as pending; return the existing record if this id was seen before."""
        ...

    async def finish_tool_call(
        self, conversation_id: str, call_id: str, *, status: str, result: str
    ) -> None:
        """Store a call's outcome (status ok, error or denied) and the result text."""
        ...


class MemoryStore(Protocol):
    """Long-term memory persistence and hybrid search (``memory.store.SQLiteMemoryStore``).

    ``add`` applies the lifecycle rules (near-duplicates reinforce, same subject+topic or an
    explicit ``supersedes`` replaces); ``search`` updates access statistics when the query
    says ``touch``. Missing ids raise ``NotFoundError``; bad values ``MemoryInvalidError``.
    """

    @property
    def vector_search_available(self) -> bool: ...

    async def has_active(self) -> bool:
        """Whether any active memory exists."""
        ...

    async def touch(self, ids: Sequence[str]) -> None:
        """Record that these memories were used now (access statistics)."""
        ...

    @property
    def vector_status(self) -> str: ...

    async def add(self, draft: MemoryDraft) -> tuple[Memory, MemoryAction]: ...

    async def update(self, memory_id: str, edit: MemoryEdit) -> Memory: ...

    async def forget(self, memory_id: str) -> Memory: ...

    async def get(self, memory_id: str) -> Memory | None: ...

    async def list_memories(self, which: MemoryFilter = ACTIVE_MEMORIES) -> list[Memory]: ...

    async def search(self, query: MemoryQuery) -> list[MemoryHit]: ...

    async def decay(
        self, *, after_days: float, per_day: float, floor: float, now: float | None = None
    ) -> int: ...

    async def add_candidate(self, draft: MemoryDraft) -> MemoryCandidate | None:
        """Put ``draft`` in the inbox (its provenance is ``conversation`` whatever it says)."""
        ...

    async def list_candidates(self) -> list[MemoryCandidate]: ...

    async def approve_candidate(self, candidate_id: str) -> tuple[Memory, MemoryAction]: ...

    async def reject_candidate(self, candidate_id: str) -> None: ...


class AuditSink(Protocol):
    """Append-only, hash-chained record of tool calls and policy decisions."""

    async def append(self, kind: str, data: Mapping[str, Any]) -> int:
        """Append one record; return its sequence number."""
        ...


class AuditStore(Protocol):
    """Where the audit log's lines and its checkpoint are kept (``core.audit.AuditLog``'s store).

    A store keeps bytes, not records: the record format, the hash chain and verification stay
    in ``core.audit``, so a store only has to keep what it is given, in order and durably (the
    file adapter is ``storage.audit_file``; see ``aria_desktop/ARCHITECTURE.md``).
    """

    @property
    def location(self) -> str:
        """Where the log lives, for messages (a path, or a name for an in-memory store)."""
        ...

    def read_log(self) -> bytes:
        """The whole log as stored; ``b""`` when there is none yet.

        Raises:
            AuditLogError: the log exists but cannot be read.
        """
        ...

    def read_checkpoint(self) -> bytes | None:
        """The checkpoint as stored; None when there is none yet.

        Raises:
            AuditLogError: the checkpoint exists but cannot be read (the message says why).
        """
        ...

    async def append(self, line: bytes, checkpoint: bytes) -> None:
        """Add ``line`` (newline-terminated) to the log, then replace the checkpoint.

        Existing bytes are never changed; if the log ends in a cut-off line, a newline goes
        first so the new record is a line of its own. Both writes are durable on return.

        Raises:
            AuditLogError: the log or the checkpoint could not be written.
        """
        ...


class EventSubscription(Protocol):
    """A stream of events published after subscribing, in order.

    In-process it is ``core.bus.Subscription``; attached to a running ARIA, an SSE client.
    """

    async def get(self, timeout_s: float | None = None) -> Event:
        """Next event; StopAsyncIteration once closed, TimeoutError after ``timeout_s``."""
        ...

    def close(self) -> None: ...

    # Iteration and ``async with`` follow from get() and close(): a class that subclasses
    # this protocol explicitly inherits them instead of writing them again.

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Event:
        return await self.get()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()


class Assistant(Protocol):
    """What front-ends drive (GUI, HTTP API routes, CLI).

    Either the orchestrator in this process (``core.assistant.LocalAssistant``) or a running
    owner through the HTTP API (the API client). Front-ends never touch adapters.

    Settings: ``get_settings`` / ``update_settings`` (see ``SettingsFrontEnd``).
    """

    @property
    def state(self) -> AssistantState: ...

    def subscribe(self) -> EventSubscription: ...

    async def start_turn(self, command: StartTurn) -> TurnStarted:
        """Start a turn; its events follow on ``subscribe()``.

        A ``ClientTurn`` (a ``StartTurn`` carrying a stateless client's messages, tools and
        options; ARCHITECTURE.md: client turns) is started in the owner's process only: the
        API client sends plain turns.
        """
        ...

    async def cancel_turn(self, run_id: str | None = None) -> int: ...

    async def confirm_action(self, command: ConfirmAction) -> None: ...

    async def execute(self, command: Command) -> Any:
        """Any other command: ``StopEverything`` or one a capability registered."""
        ...

    async def capabilities(self) -> list[CapabilityStatus]:
        """Which capabilities can be used now, and why not (tray items, API, doctor)."""
        ...

    async def create_conversation(self, title: str) -> Conversation: ...

    async def list_conversations(
        self, *, limit: int = 50, offset: int = 0
    ) -> list[Conversation]: ...

    async def get_conversation(self, conversation_id: str) -> Conversation | None: ...

    async def rename_conversation(self, conversation_id: str, title: str) -> None: ...

    async def delete_conversation(self, conversation_id: str) -> None: ...

    async def list_messages(
        self, conversation_id: str, *, limit: int | None = None, before_id: int | None = None
    ) -> list[StoredMessage]: ...

    # --- long-term memory (MemoryUnavailableError when memory is not set up) ---

    async def search_memories(self, query: MemoryQuery) -> list[MemoryHit]: ...

    async def list_memories(self, which: MemoryFilter = ACTIVE_MEMORIES) -> list[Memory]: ...

    async def get_memory(self, memory_id: str) -> Memory | None: ...

    async def add_memory(self, new: NewMemory) -> Memory: ...

    async def update_memory(self, memory_id: str, edit: MemoryEdit) -> Memory: ...

    async def forget_memory(self, memory_id: str) -> None: ...

    async def list_memory_inbox(self) -> list[MemoryCandidate]: ...

    async def approve_memory(self, candidate_id: str) -> Memory: ...

    async def reject_memory(self, candidate_id: str) -> None: ...

    async def get_settings(self) -> dict[str, Any]: ...

    async def update_settings(self, changes: Mapping[str, Any]) -> dict[str, Any]: ...


class SettingsService(Protocol):
    """What the desktop GUI needs to read and change the user's settings.

    Implemented at the composition root (the CLI), so the GUI never touches settings files,
    the keyring or the autostart folder directly. Changes are validated as a whole before
    anything is written; a refused change raises ``ConfigError`` naming the key.
    """

    def fields(self, prefix: str = "") -> list[SettingInfo]:
        """Every key starting with ``prefix``, with its current value (re-read from disk)."""
        ...

    def check(self, changes: Mapping[str, str]) -> dict[str, str]:
        """Validate ``key -> value`` changes together; returns ``key -> reason`` for bad ones."""
        ...

    def apply(self, changes: Mapping[str, str]) -> None:
        """Validate and write the changes (atomically); ``start_at_login`` updates autostart."""
        ...

    async def check_ollama(self, url: str) -> ServerCheck:
        """Probe an Ollama server's ``/api/tags`` (never raises: failures are in the result)."""
        ...

    async def check_homeassistant(self, url: str, token: str = "") -> ServerCheck:
        """Reach Home Assistant's ``/api/`` with ``token`` ("" = the stored one); never raises."""
        ...

    def secret_status(self, name: str) -> str:
        """Where a secret lives: keyring, file, env or missing."""
        ...

    def set_secret(self, name: str, value: str) -> str:
        """Store a secret in the keyring (``SecretStoreError`` if none is usable)."""
        ...

    def delete_secret(self, name: str) -> None:
        """Remove a stored secret."""
        ...

    def api_token(self) -> str:
        """The local HTTP API's bearer token (created on first use)."""
        ...

    def rotate_api_token(self) -> str:
        """Replace the API token (clients holding the old one must re-read it)."""
        ...


# --- voice -----------------------------------------------------------------------------------
#
# Frames inside the pipeline are 16 kHz mono signed 16-bit PCM (``domain.audio``). Adapters
# run inference in worker threads (or talk to a Wyoming server), so every call here is async
# and never blocks the loop. ``load`` is idempotent and may take seconds (models).


class AudioSource(Protocol):
    """Where command audio comes from: a microphone, a WAV file, a raw PCM pipe."""

    @property
    def name(self) -> str: ...

    def frames(self) -> AsyncGenerator[bytes, None]:
        """16 kHz mono int16 frames of ``FRAME_SAMPLES`` samples until the source ends.

        Closing the generator closes the capture stream (mute means exactly that).
        """
        ...


class AudioSink(Protocol):
    """Where speech goes: a speaker or a WAV file."""

    @property
    def name(self) -> str: ...

    async def write(self, audio: SpeechAudio) -> None:
        """Queue speech for playback; returns once queued (playback continues after)."""
        ...

    async def drain(self) -> None:
        """Wait until everything queued has been played (or ``stop`` was called)."""
        ...

    def stop(self) -> None:
        """Discard queued speech and silence the output now (interruption, kill switch)."""
        ...

    async def aclose(self) -> None: ...


class WakeWordDetector(Protocol):
    """Spots the wake word in a stream of frames."""

    @property
    def name(self) -> str: ...

    async def load(self) -> None: ...

    async def process(self, frame: bytes) -> WakeDetection | None:
        """Feed one frame; a detection when the wake word just ended in it."""
        ...

    def reset(self) -> None:
        """Forget the audio seen so far (after a detection, after playback)."""
        ...

    async def aclose(self) -> None: ...


class VoiceActivityDetector(Protocol):
    """Tells speech from silence, frame by frame (for endpointing)."""

    async def load(self) -> None: ...

    async def speech_probability(self, frame: bytes) -> float:
        """Probability (0..1) that the frame holds speech."""
        ...

    def reset(self) -> None: ...


class SpeechToText(Protocol):
    """Turns a recorded command into text."""

    @property
    def name(self) -> str: ...

    async def load(self) -> None: ...

    async def transcribe(
        self, clip: AudioClip, *, language: str | None = None, starts_with: str = ""
    ) -> Transcript:
        """Transcribe any-rate PCM (converted to what the model needs).

        ``starts_with``: the wake phrase the audio begins with, for an engine that decodes from it.
        """
        ...

    async def aclose(self) -> None: ...


class VocabularyTarget(Protocol):
    """A speech-to-text engine that can be told the names the user uses (``WhisperSTT``)."""

    def set_vocabulary(self, terms: Sequence[str]) -> None:
        """Bias recognition toward these names (replaces the previous list)."""
        ...


class TextToSpeech(Protocol):
    """Turns text into speech."""

    @property
    def name(self) -> str: ...

    async def load(self) -> None: ...

    def synthesize(self, text: str) -> AsyncGenerator[SpeechAudio, None]:
        """Speech for ``text``, one piece per sentence, each as soon as it is ready."""
        ...

    async def aclose(self) -> None: ...


class ResultSender(Protocol):
    """Delivers an automation's result to another program (e.g. a Home Assistant webhook)."""

    async def post_json(self, url: str, payload: Mapping[str, Any]) -> None:
        """POST ``payload`` as JSON; raises an ``AriaError`` when it was not accepted."""
        ...


class SettingsAccess(Protocol):
    """Reading and changing the settings file from a front-end (the API's /settings)."""

    def current(self) -> dict[str, Any]:
        """Every setting as JSON-ready data (never a secret: those live in the keyring)."""
        ...

    def update(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Validate all ``changes`` (dotted key -> value), write them at once, return current().

        Raises ``ConfigError`` (nothing written) when any key or value is invalid. Blocking:
        call it in a thread.
        """
        ...


class SettingsFrontEnd(Protocol):
    """The settings part of ``Assistant`` (kept separate so it reads as one addition)."""

    async def get_settings(self) -> dict[str, Any]:
        """Every setting (no secrets) as JSON-ready nested tables."""
        ...

    async def update_settings(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Validate and save ``changes`` (dotted key -> value); returns the new settings.

        Running components keep their values until ARIA restarts.
        """
        ...


# --- computer use --------------------------------------------------------------------------------


class ComputerPort(Protocol):
    """Screen, OCR, window facts and input (``computer.controller.DesktopController``).

    Every method except ``abort`` blocks and runs in a worker thread; ``abort`` is thread-safe
    and returns at once (the kill switch calls it while an action runs).
    """

    def screen_bounds(self) -> Rect: ...

    def capture(self, monitor: int = 0) -> Screenshot: ...

    def observe(
        self, *, monitor: int = 0, longest_side_px: int = 1280, ocr: bool = True
    ) -> Observation: ...

    def to_physical(self, observation: Observation, point: Point) -> Point: ...

    def read(self, region: Rect | None = None) -> ScreenText: ...

    def find(self, text: str, region: Rect | None = None) -> Grounding: ...

    def ground(self, text: ScreenText, query: str) -> Grounding:
        """Where ``query`` is in already-read ``text`` (pure; no I/O)."""
        ...

    def context_for(
        self, action: ComputerAction, observation: Observation | None
    ) -> ActionContext: ...

    def expect(
        self, action: ComputerAction, observation: Observation | None
    ) -> TargetExpectation: ...

    def verify(self, expectation: TargetExpectation, action: ComputerAction) -> None:
        """Raise ``TargetChangedError`` when the target is no longer what was seen."""
        ...

    def perform(self, action: ComputerAction, *, dry_run: bool) -> str: ...

    def abort(self) -> None: ...

    def release_all(self) -> None: ...

    def reset(self) -> None: ...


class ActionPolicy(Protocol):
    """The computer-use safety policy (``computer.policy.ComputerPolicy``): pure decisions."""

    def evaluate(
        self, action: ComputerAction, context: ActionContext, *, task_id: str, now_s: float
    ) -> ComputerDecision: ...

    def protection(self, window: WindowInfo) -> str | None: ...

    def end_task(self, task_id: str) -> None: ...


class ThumbnailSink(Protocol):
    """Stores small screenshots for the audit log (``computer.thumbnails.ThumbnailStore``)."""

    def save(self, png: bytes, *, label: str) -> str:
        """Store a thumbnail; returns its name ("" when thumbnails are off)."""
        ...


class WebReader(Protocol):
    """Fetches a web page as readable text (``web.fetcher.WebFetcher``).

    Only http(s), never a loopback, private or link-local address unless the user allowed the
    host, redirects re-checked, size and time capped (``ARCHITECTURE.md``, safety).
    """

    async def fetch(self, url: str) -> WebPage:
        """The page at ``url``; ``WebFetchError``/``WebAddressRefusedError`` otherwise."""
        ...


class HomeAssistantPort(Protocol):
    """A Home Assistant instance over its REST API (``homeassistant/client.py``).

    Failures raise ``HomeAssistantError`` subclasses: auth (401/403), unreachable, timeout,
    ``EntityNotFoundError`` for an unknown entity id.
    """

    async def states(self) -> list[EntityState]:
        """Every entity's state (areas left empty)."""
        ...

    async def state(self, entity_id: str) -> EntityState:
        """One entity's state; ``EntityNotFoundError`` when there is no such entity."""
        ...

    async def entity_areas(self) -> dict[str, str]:
        """Entity id -> the name of its area, for entities that are in one."""
        ...

    async def call_service(
        self, domain: str, service: str, data: Mapping[str, Any]
    ) -> list[EntityState]:
        """Call ``domain.service`` with ``data``; the states it changed."""
        ...

    async def aclose(self) -> None:
        """Close the connections."""
        ...


class KnowledgeAccess(Protocol):
    """The knowledge base as front-ends use it (``core.knowledge.KnowledgeService``)."""

    async def add_source(self, location: str, *, watch: bool = False) -> IngestOutcome:
        """Add and index a file, folder or URL (re-adding an unchanged one is a no-op)."""
        ...

    async def remove_source(self, source: str) -> KnowledgeSource:
        """Remove a source (by id or location) and what was indexed from it."""
        ...

    async def list_sources(self) -> list[KnowledgeSource]:
        """Every source with counts and its last problem."""
        ...

    async def list_files(self, source: str) -> list[KnowledgeFile]:
        """The files of one source with their problems."""
        ...

    async def search_knowledge(self, query: KnowledgeQuery) -> list[KnowledgeHit]:
        """The passages that best answer ``query``."""
        ...

    async def reindex_knowledge(self, *, force: bool = True) -> IngestReport:
        """Rescan every source (``force``: re-extract and re-embed everything)."""
        ...

    async def knowledge_status(self) -> KnowledgeStatus:
        """Counts, vector search, watched folders and the ingest in progress."""
        ...

    async def conversation_citations(self, conversation_id: str) -> dict[str, list[Citation]]:
        """The citations of a conversation's answers, by ``answer_key`` of each answer."""
        ...

    async def stale_citations(self, citations: Sequence[Citation]) -> list[int]:
        """The numbers of citations whose source changed (or left) since the answer."""
        ...
