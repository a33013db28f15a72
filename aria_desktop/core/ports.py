"""The index of the core's ports: every Protocol the core needs from the outside world.

Adapters satisfy them structurally; front-ends (GUI, API, daemon) talk to ARIA only through
them and the domain. The ports shared by every turn (clock, chat model, conversation store,
audit, events, the ``Assistant`` facade, settings) are defined here; each capability's own ports
sit beside it (``core/<capability>/ports.py``) and are re-exported here, so one import finds
them all.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, Protocol, Self

from aria_desktop.core.computer.ports import ActionPolicy, ComputerPort, ThumbnailSink
from aria_desktop.core.hands.ports import FileSystem, PathFacts, Shell
from aria_desktop.core.homeassistant.ports import HomeAssistantPort
from aria_desktop.core.knowledge.ports import KnowledgeAccess, KnowledgeStore
from aria_desktop.core.mcp.ports import McpHub, PinStore
from aria_desktop.core.memory.ports import MemoryStore
from aria_desktop.core.skills.ports import ListAccess, ReminderAccess, TimerAccess
from aria_desktop.core.voice.ports import (
    AudioSink,
    AudioSource,
    SoundCheck,
    SpeechToText,
    TextToSpeech,
    VocabularyTarget,
    VoiceActivityDetector,
    WakeWordDetector,
)
from aria_desktop.domain.audio import AudioClip
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
from aria_desktop.domain.config import ServerCheck, SettingInfo
from aria_desktop.domain.episodes import Episode, MemorySource
from aria_desktop.domain.events import AssistantState, Event
from aria_desktop.domain.memory import (
    ACTIVE_MEMORIES,
    Memory,
    MemoryAssociation,
    MemoryCandidate,
    MemoryEdit,
    MemoryFilter,
    MemoryHit,
    MemoryQuery,
    NewMemory,
)
from aria_desktop.domain.memory_reflection import MemoryStats
from aria_desktop.domain.memory_tiers import MemoryTierChange
from aria_desktop.domain.settings_problems import SettingsProblem
from aria_desktop.domain.voice_trial import TrialResult
from aria_desktop.domain.web import WebPage

__all__ = [
    "ActionPolicy",
    "Assistant",
    "AudioSink",
    "AudioSource",
    "AuditSink",
    "AuditStore",
    "ChatModel",
    "Clock",
    "ComputerPort",
    "ConversationStore",
    "EventSubscription",
    "FileSystem",
    "HomeAssistantPort",
    "KnowledgeAccess",
    "KnowledgeStore",
    "ListAccess",
    "McpHub",
    "MemoryStore",
    "PathFacts",
    "PinStore",
    "ReminderAccess",
    "ResultSender",
    "SettingsAccess",
    "SettingsFrontEnd",
    "SettingsService",
    "Shell",
    "SoundCheck",
    "SpeechToText",
    "TextToSpeech",
    "ThumbnailSink",
    "TimerAccess",
    "VocabularyTarget",
    "VoiceActivityDetector",
    "WakeWordDetector",
    "WebReader",
]


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

    @property
    def settings_problems(self) -> tuple[SettingsProblem, ...]:
        """What the owner could not use in its settings file; () when all is well.

        Each such key took its default (ARCHITECTURE.md: a start that never breaks).
        """
        ...

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

    async def end_conversation(self, conversation_id: str) -> Episode | None:
        """The user is done with a conversation: keep its episode now (None: nothing kept)."""
        ...

    async def list_messages(
        self, conversation_id: str, *, limit: int | None = None, before_id: int | None = None
    ) -> list[StoredMessage]: ...

    # --- long-term memory (MemoryUnavailableError when memory is not set up) ---

    async def search_memories(self, query: MemoryQuery) -> list[MemoryHit]: ...

    async def list_memories(self, which: MemoryFilter = ACTIVE_MEMORIES) -> list[Memory]: ...

    async def get_memory(self, memory_id: str) -> Memory | None: ...

    async def memory_associations(self, memory_id: str) -> list[MemoryAssociation]:
        """The memories used together with one, strongest first (NotFoundError: no such)."""
        ...

    async def memory_tier_changes(self, memory_id: str) -> list[MemoryTierChange]:
        """How a memory moved between tiers and why, oldest first (NotFoundError: no such)."""
        ...

    async def memory_stats(self, last: int = 10) -> MemoryStats:
        """How well memory served the latest ``last`` conversations, and the trend."""
        ...

    async def list_episodes(self, query: str = "", limit: int = 20) -> list[Episode]:
        """Episodes about ``query`` (best first), or the latest ones (``query`` empty)."""
        ...

    async def get_episode(self, episode_id: str) -> Episode | None: ...

    async def memory_sources(self, memory_id: str) -> list[MemorySource]:
        """The conversations that taught or confirmed a memory (NotFoundError: no such)."""
        ...

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

    async def check_speech_server(self, uri: str) -> ServerCheck:
        """Ask a Wyoming server (``tcp://host:port``) for its speech models; never raises."""
        ...

    async def try_speech_models(self, recordings: Sequence[tuple[str, AudioClip]]) -> TrialResult:
        """Every local speech model hears each (sentence said, recording); their scores."""
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

    def sound_check(self) -> SoundCheck:
        """This computer's microphones and speakers, to pick and try (a level, a test)."""
        ...


# --- voice -----------------------------------------------------------------------------------
#
# Frames inside the pipeline are 16 kHz mono signed 16-bit PCM (``domain.audio``). Adapters
# run inference in worker threads (or talk to a Wyoming server), so every call here is async
# and never blocks the loop. ``load`` is idempotent and may take seconds (models).


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


class WebReader(Protocol):
    """Fetches a web page as readable text (``web.fetcher.WebFetcher``).

    Only http(s), never a loopback, private or link-local address unless the user allowed the
    host, redirects re-checked, size and time capped (``ARCHITECTURE.md``, safety).
    """

    async def fetch(self, url: str) -> WebPage:
        """The page at ``url``; ``WebFetchError``/``WebAddressRefusedError`` otherwise."""
        ...
