"""The ``[mcp]`` settings: MCP servers ARIA uses as tools, and ARIA's own MCP server.

Each server is a named table ``[mcp.servers.<name>]`` (ARCHITECTURE.md: MCP). Environment
variables and HTTP headers are lists of ``NAME=value`` / ``Name: value`` strings; a value
written ``keyring:<secret>`` is read from the keyring when the server starts, so a token is
never written in the settings file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from aria_desktop.settings.rules import AT_LEAST_1, POSITIVE, rules

__all__ = [
    "MCP_TOOL_POLICIES",
    "MCP_TRANSPORTS",
    "McpServerSettings",
    "McpSettings",
]

MCP_TRANSPORTS = ("auto", "stdio", "http", "sse")
MCP_TOOL_POLICIES = ("always", "ask", "never")
_ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_HEADER_RE = re.compile(r"^[A-Za-z0-9-]+:")
_TOOL_RE = re.compile(r"^[A-Za-z0-9_.-]+=(always|ask|never)$")


def _each(pattern: re.Pattern[str], shape: str) -> Mapping[str, object]:
    def check(values: tuple[str, ...]) -> str | None:
        bad = [value for value in values if not pattern.match(value)]
        return f"has entries not shaped {shape}: {', '.join(bad[:3])}" if bad else None

    return rules(check=check)


@dataclass(frozen=True)
class McpServerSettings:
    """One MCP server (``[mcp.servers.<name>]``): a command to start, or a URL.

    Attributes:
        enabled: start this server with ARIA.
        transport: auto (stdio when ``command`` is set, else streamable HTTP with a fallback to
            SSE), stdio, http (streamable HTTP) or sse (the legacy transport).
        command: program started for stdio (found on PATH).
        args: its arguments.
        env: extra environment, ``NAME=value`` (``NAME=keyring:<secret>`` for a secret); the
            child gets only a minimal environment plus these.
        cwd: working directory of the child ("" = ARIA's).
        url: the server's URL for http/sse.
        headers: HTTP headers, ``Name: value`` (``Authorization: Bearer keyring:<secret>``).
        tools: per-tool policy, ``tool=always|ask|never`` (default ask).
        startup_timeout_s: seconds a start may take before it counts as failed.
        call_timeout_s: seconds one tool call may take.
        oauth: sign in with OAuth when a remote server asks for it (``aria mcp login``); off
            for a server given an ``Authorization`` header.
        oauth_client_id / oauth_client_secret: a client registered with the server beforehand
            (the secret as ``keyring:<secret>``); empty lets the server register ARIA.
        oauth_client_metadata_url: an HTTPS URL of a client-ID metadata document to use where
            the server accepts one.
        oauth_scopes: scopes to ask for when the server names none.
    """

    enabled: bool = True
    transport: str = field(default="auto", metadata=rules(choices=MCP_TRANSPORTS))
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[str, ...] = field(default=(), metadata=_each(_ENV_RE, "NAME=value"))
    cwd: str = ""
    url: str = field(default="", metadata=rules(url=True))
    headers: tuple[str, ...] = field(default=(), metadata=_each(_HEADER_RE, "Name: value"))
    tools: tuple[str, ...] = field(default=(), metadata=_each(_TOOL_RE, "tool=always|ask|never"))
    startup_timeout_s: float = field(default=20.0, metadata=POSITIVE)
    call_timeout_s: float = field(default=60.0, metadata=POSITIVE)
    oauth: bool = True
    oauth_client_id: str = ""
    oauth_client_secret: str = ""
    oauth_client_metadata_url: str = field(default="", metadata=rules(url=True))
    oauth_scopes: tuple[str, ...] = ()


def _no_servers() -> Mapping[str, McpServerSettings]:
    return MappingProxyType({})


@dataclass(frozen=True)
class McpSettings:
    """MCP both ways.

    Attributes:
        enabled: start the configured servers with ARIA.
        servers: server name -> how to reach it (read-only mapping).
        result_chars: characters of a tool result the model sees at once; the rest is kept and
            paged through ``mcp_result_page``.
        max_restarts: restarts of a crashed or hung server before it is left stopped.
        serve_http: serve ARIA's own MCP server at ``/mcp`` on the local API.
    """

    enabled: bool = True
    servers: Mapping[str, McpServerSettings] = field(default_factory=_no_servers)
    result_chars: int = field(default=8000, metadata=rules(minimum=(500.0, True)))
    max_restarts: int = field(default=5, metadata=AT_LEAST_1)
    serve_http: bool = True

    def __post_init__(self) -> None:
        """Freeze ``servers`` like ``automations.rules``."""
        object.__setattr__(self, "servers", MappingProxyType(dict(self.servers)))
