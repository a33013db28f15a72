"""Protocols the core needs from the outside world; adapters satisfy them structurally."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, Protocol, Self

from aria_desktop.domain.chat import (
    CapabilityStatus,
    ChatRequest,
    Conversation,
    LLMChunk,
    MessageStatus,
    ModelInfo,
    Role,
    StoredMessage,
    ToolCall,
    ToolCallRecord,
    TurnStarted,
    Usage,
)
from aria_desktop.domain.commands import Command, ConfirmAction, StartTurn
from aria_desktop.domain.events import AssistantState, Event


class Clock(Protocol):
    """Time source, injected so tests and benchmarks control it."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin, never going backwards."""
        ...

    def time(self) -> float:
        """Wall-clock UNIX seconds."""
        ...


class ChatBackend(Protocol):
    """One LLM backend (Ollama, Anthropic, an OpenAI-compatible server).

    ``stream_chat`` yields ``TextDelta`` and complete ``ToolCallChunk`` values and ends with
    exactly one ``StreamEnd``; failures raise ``LLMError`` subclasses. Closing the iterator
    (``aclose``) closes the HTTP stream.
    """

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def capabilities(self) -> frozenset[str]: ...

    def stream_chat(self, request: ChatRequest) -> AsyncGenerator[LLMChunk, None]: ...

    async def list_models(self) -> list[ModelInfo]: ...

    async def aclose(self) -> None: ...


class ChatModel(Protocol):
    """What the agent loop talks to: the router over the fallback chain.

    ``stream`` yields like ``ChatBackend.stream_chat`` plus ``FallbackNotice`` values; the final
    ``StreamEnd`` names the backend and model that answered.
    """

    def stream(
        self, request: ChatRequest, *, agent: str = "chat", backend: str | None = None
    ) -> AsyncGenerator[LLMChunk, None]: ...


class ConversationStore(Protocol):
    """Persistence of conversations, messages and tool executions (async; never blocks)."""

    async def create_conversation(self, title: str) -> Conversation: ...

    async def get_conversation(self, conversation_id: str) -> Conversation | None: ...

    async def list_conversations(
        self, *, limit: int = 50, offset: int = 0
    ) -> list[Conversation]: ...

    async def rename_conversation(self, conversation_id: str, title: str) -> None: ...

    async def delete_conversation(self, conversation_id: str) -> None: ...

    async def add_message(
        self,
        conversation_id: str,
        *,
        role: Role,
        content: str,
        status: MessageStatus = "complete",
        tool_calls: Sequence[ToolCall] = (),
        tool_call_id: str | None = None,
        name: str | None = None,
        backend: str = "",
        model: str = "",
        usage: Usage | None = None,
    ) -> StoredMessage: ...

    async def update_message(
        self,
        message_id: int,
        *,
        content: str,
        status: MessageStatus,
        tool_calls: Sequence[ToolCall] = (),
        backend: str = "",
        model: str = "",
        usage: Usage | None = None,
    ) -> None: ...

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


class EventSubscription(Protocol):
    """A stream of events published after subscribing, in order.

    In-process it is ``core.bus.Subscription``; attached to a running ARIA, an SSE client.
    """

    async def get(self, timeout_s: float | None = None) -> Event:
        """Next event; StopAsyncIteration once closed, TimeoutError after ``timeout_s``."""
        ...

    def close(self) -> None: ...

    def __aiter__(self) -> Self: ...

    async def __anext__(self) -> Event: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc_info: object) -> None: ...


class Assistant(Protocol):
    """What front-ends drive (GUI, HTTP API routes, CLI).

    Settings: ``get_settings`` / ``update_settings`` (see ``SettingsFrontEnd``).

    Either the orchestrator in this process (``core.assistant.LocalAssistant``) or a running
    owner through the HTTP API (the API client). Front-ends never touch adapters.
    """

    @property
    def state(self) -> AssistantState: ...

    def subscribe(self) -> EventSubscription: ...

    async def start_turn(self, command: StartTurn) -> TurnStarted: ...

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

    async def get_settings(self) -> dict[str, Any]: ...

    async def update_settings(self, changes: Mapping[str, Any]) -> dict[str, Any]: ...


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
