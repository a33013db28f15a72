"""Facts about MCP servers ARIA uses as tools: their tools, their state, a call's result.

Shared by the MCP adapter (``aria_desktop/adapters/mcp/``, which speaks the protocol), the core
bridge (``core/mcp/bridge.py``, which puts the tools under ARIA's policy) and the front-ends.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "McpAsk",
    "McpCallResult",
    "McpOverview",
    "McpPin",
    "McpPromptArgument",
    "McpPromptInfo",
    "McpPromptText",
    "McpReply",
    "McpResourceInfo",
    "McpServerState",
    "McpServerStatus",
    "McpToolInfo",
    "McpToolPolicy",
    "McpToolState",
    "qualified_tool_name",
]

McpToolPolicy = Literal["always", "ask", "never"]
McpServerState = Literal["starting", "running", "restarting", "needs-sign-in", "failed", "stopped"]

_NAME_UNSAFE_RE = re.compile(r"[^A-Za-z0-9_-]")
_MAX_TOOL_NAME = 64


def qualified_tool_name(server: str, tool: str) -> str:
    """``server__tool`` as the model sees it (characters models refuse become ``_``)."""
    name = _NAME_UNSAFE_RE.sub("_", f"{server}__{tool}")
    return name[:_MAX_TOOL_NAME]


@dataclass(frozen=True, kw_only=True)
class McpToolInfo:
    """One tool a server offers, as it described itself.

    Attributes:
        server: the server's name in the settings.
        name: the tool's own name on that server.
        description: what the server says it does (untrusted text).
        input_schema: JSON schema of its arguments.
        read_only_hint / destructive_hint: the server's annotations, shown but never trusted.
    """

    server: str
    name: str
    description: str
    input_schema: dict[str, Any] = field(default_factory=dict)
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None

    @property
    def qualified(self) -> str:
        """``server__tool``."""
        return qualified_tool_name(self.server, self.name)

    def definition(self) -> dict[str, Any]:
        """What a pin covers: name, description and schema."""
        return {"name": self.name, "description": self.description, "schema": self.input_schema}

    def pin_hash(self) -> str:
        """SHA-256 of the definition (stable key order)."""
        text = json.dumps(self.definition(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, kw_only=True)
class McpPin:
    """What the user approved: the hash and the definition it was computed from."""

    hash: str
    definition: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class McpServerStatus:
    """How one server is doing.

    Attributes:
        name: its name in the settings.
        state: starting, running, restarting, needs-sign-in (a remote server waiting for the
            user to sign in), failed or stopped.
        transport: stdio, http or sse.
        where: the command line or URL.
        pid: the stdio child's process id, when known.
        tools: names of its tools.
        last_error: the most recent failure, in words ("" = none).
        restarts: how often it was restarted.
        protocol: the protocol revision agreed with it.
        signs_in: whether the server is reached with an OAuth sign-in (``aria mcp login``).
    """

    name: str
    state: McpServerState
    transport: str
    where: str
    pid: int | None = None
    tools: tuple[str, ...] = ()
    last_error: str = ""
    restarts: int = 0
    protocol: str = ""
    signs_in: bool = False


@dataclass(frozen=True, kw_only=True)
class McpResourceInfo:
    """A resource a server offers (a file, a page, a record), by its URI."""

    server: str
    uri: str
    name: str
    description: str = ""
    mime_type: str = ""


@dataclass(frozen=True, kw_only=True)
class McpPromptArgument:
    """One argument of a server's prompt."""

    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True, kw_only=True)
class McpPromptInfo:
    """A prompt a server offers: a named, ready-made request, run as a command."""

    server: str
    name: str
    description: str = ""
    arguments: tuple[McpPromptArgument, ...] = ()


@dataclass(frozen=True, kw_only=True)
class McpPromptText:
    """A prompt's messages as text (role, text), resources inside it included as text."""

    server: str
    name: str
    messages: tuple[tuple[str, str], ...] = ()

    @property
    def user_text(self) -> str:
        """What the prompt asks, as one user message (its user messages joined)."""
        return "\n\n".join(text for role, text in self.messages if role == "user")


@dataclass(frozen=True, kw_only=True)
class McpAsk:
    """A server's question to the user during a call (elicitation; ``core/mcp/questions.py``).

    Attributes:
        server: the server's name.
        message: its question (untrusted text).
        mode: form (``fields``: a flat JSON schema) or url (agree to open ``url``).
    """

    server: str
    message: str
    mode: Literal["form", "url"] = "form"
    fields: dict[str, Any] = field(default_factory=dict)
    url: str = ""


@dataclass(frozen=True, kw_only=True)
class McpReply:
    """The person's answer: accept (with the form's checked values), decline or cancel."""

    action: Literal["accept", "decline", "cancel"]
    values: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class McpCallResult:
    """A tool call's result as text (content blocks joined), and whether the tool failed."""

    text: str
    is_error: bool = False


McpApproval = Literal["not approved", "approved", "changed"]


@dataclass(frozen=True, kw_only=True)
class McpToolState:
    """One MCP tool as the user reviews it.

    Attributes:
        qualified: ``server__tool``.
        server / name / description: as the server describes it (untrusted text).
        policy: always, ask or never.
        approval: not approved (yet), approved, or changed since approval (disabled).
        read_only_hint / destructive_hint: the server's claims, shown, never trusted.
        diff: for a changed tool, the difference to the approved definition.
    """

    qualified: str
    server: str
    name: str
    description: str
    policy: McpToolPolicy
    approval: McpApproval
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    diff: str = ""

    @property
    def hints(self) -> tuple[str, ...]:
        """The server's claims in words ("read-only", "destructive"), for showing only."""
        claims = (("read-only", self.read_only_hint), ("destructive", self.destructive_hint))
        return tuple(word for word, on in claims if on)


@dataclass(frozen=True, kw_only=True)
class McpOverview:
    """The MCP servers ARIA uses and their tools (``aria mcp servers``, the Settings tab)."""

    servers: tuple[McpServerStatus, ...] = ()
    tools: tuple[McpToolState, ...] = ()
    resources: tuple[McpResourceInfo, ...] = ()
    prompts: tuple[McpPromptInfo, ...] = ()
