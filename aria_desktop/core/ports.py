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
)
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

    def end_task(self, task_id: str) -> None: ...


class ThumbnailSink(Protocol):
    """Stores small screenshots for the audit log (``computer.thumbnails.ThumbnailStore``)."""

    def save(self, png: bytes, *, label: str) -> str:
        """Store a thumbnail; returns its name ("" when thumbnails are off)."""
        ...
