"""Bodies of chat and turns, conversations and their messages, confirmations and cancels.

Also the assistant's visible state and its capabilities, which the status routes answer with.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from aria_desktop.api.server.schemas.common import (
    ErrorDetail,
    ErrorOut,
    FromDomain,
    Strict,
    UsageOut,
)

__all__ = [
    "CancelIn",
    "CancelOut",
    "CapabilityOut",
    "ChatFailedOut",
    "ChatIn",
    "ChatReply",
    "ConfirmIn",
    "ConversationCreate",
    "ConversationDetail",
    "ConversationOut",
    "ConversationRename",
    "MessageOut",
    "SettingsProblemOut",
    "StateOut",
    "ToolCallOut",
    "TurnIn",
    "TurnOut",
]


class ChatIn(Strict):
    """Ask ARIA something.

    ``stream`` (default true) answers with Server-Sent Events; false waits for the whole reply.
    """

    message: str = Field(min_length=1, max_length=100_000, pattern=r"\S")
    conversation_id: str | None = Field(default=None, min_length=1, max_length=128)
    stream: bool = True
    backend: Literal["ollama", "anthropic", "openai"] | None = None


class AttachmentIn(Strict):
    """Content attached to the turn (a tool server's resource): untrusted data to the model."""

    source: str = Field(min_length=1, max_length=500, description="Where it came from")
    text: str = Field(max_length=200_000)


class TurnIn(Strict):
    """Start a turn without waiting for it (``POST /turns``); events follow on ``/events``."""

    message: str = Field(min_length=1, max_length=100_000, pattern=r"\S")
    conversation_id: str | None = Field(default=None, min_length=1, max_length=128)
    backend: Literal["ollama", "anthropic", "openai"] | None = None
    source: Literal["text", "voice", "api", "automation"] = "api"
    attachments: list[AttachmentIn] = Field(default_factory=list, max_length=10)


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


class ChatFailedOut(ErrorOut):
    """A whole reply (``stream=false``) that failed: the error, and the turn it belongs to.

    ``run_id`` and ``conversation_id`` are null only when the turn never started.
    """

    run_id: str | None = None
    conversation_id: str | None = None


class ToolCallOut(FromDomain):
    """A tool call an assistant message made."""

    id: str
    name: str
    arguments: dict[str, Any]


class MessageOut(FromDomain):
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
    error_code: str = Field(default="", description="Why a failed reply failed: its error code")
    error_message: str = Field(default="", description="Why a failed reply failed, in words")


class ConversationOut(FromDomain):
    """A conversation (times in UNIX seconds)."""

    id: str
    title: str
    created_at: float
    updated_at: float
    message_count: int = 0


class ConversationCreate(Strict):
    """A new conversation's title."""

    title: str = Field(default="New conversation", min_length=1, max_length=500)


class ConversationRename(Strict):
    """A conversation's new title."""

    title: str = Field(min_length=1, max_length=500)


class ConversationDetail(BaseModel):
    """A conversation with one page of its messages (oldest first).

    ``next_before_id`` fetches the page before this one (null when there is none).
    """

    conversation: ConversationOut
    messages: list[MessageOut]
    next_before_id: int | None = None


class ConfirmIn(Strict):
    """The answer to an ``action-confirm-request``: it must echo that request's nonce."""

    approved: bool
    nonce: str = Field(min_length=1, max_length=256)


class CancelIn(Strict):
    """Stop one turn (``run_id``) or every turn (null)."""

    run_id: str | None = Field(default=None, min_length=1, max_length=128)


class CancelOut(BaseModel):
    """How many turns were cancelled."""

    cancelled: int


class RingingStoppedOut(BaseModel):
    """Whether a timer or an alarm was ringing (it is silent now)."""

    was_ringing: bool


class SettingsProblemOut(FromDomain):
    """Something in the owner's settings it could not use, and what it did instead.

    ``key`` is "" for the whole file (it does not parse); ``file`` is "" for a value from an
    environment variable; ``line`` and ``column`` count from 1.
    """

    key: str
    message: str
    file: str = ""
    line: int | None = None
    column: int | None = None


class StateOut(BaseModel):
    """The assistant's visible state, and the problems in the settings it runs with."""

    state: str
    settings_problems: list[SettingsProblemOut] = []


class CapabilityOut(FromDomain):
    """Whether a capability can be used now, and why not."""

    name: str
    available: bool
    reason: str = ""
    enabled: bool = True
