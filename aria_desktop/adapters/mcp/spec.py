"""How to reach one MCP server: its settings resolved into a command or a URL, secrets filled in.

A value written ``keyring:<secret>`` (in ``env`` or ``headers``, also after ``Bearer ``) is read
from the keyring when the server starts, so tokens never sit in the settings file. A stdio child
gets the MCP SDK's minimal environment (PATH, HOME, USER, ...: no ARIA secrets) plus the
variables the user configured.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from aria_desktop.adapters.mcp.oauth import OAuthOptions
from aria_desktop.domain.errors import ConfigError
from aria_desktop.settings.schema_mcp import McpServerSettings

__all__ = ["ServerSpec", "server_spec", "tool_policies"]

Transport = Literal["stdio", "http", "sse", "auto-http"]
_SECRET_RE = re.compile(r"keyring:(mcp_[a-z0-9_]+)")
SecretReader = Callable[[str], str | None]


@dataclass(frozen=True, kw_only=True)
class ServerSpec:
    """One server, ready to start.

    Attributes:
        name: its name in the settings.
        transport: stdio, http, sse, or auto-http (streamable HTTP, falling back to SSE).
        command / args / env / cwd: the stdio child (``env``: only what the user set).
        url / headers: the HTTP endpoint.
        startup_timeout_s / call_timeout_s: limits.
        oauth: how to sign in, for a remote server that asks for it (None: stdio, a server
            given its own ``Authorization`` header, or sign-in turned off).
    """

    name: str
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    startup_timeout_s: float = 20.0
    call_timeout_s: float = 60.0
    oauth: OAuthOptions | None = None

    @property
    def where(self) -> str:
        """The command line or the URL, for status lines."""
        if self.transport == "stdio":
            return " ".join((self.command, *self.args))
        return self.url


def _fill(value: str, key: str, read: SecretReader) -> str:
    def secret(match: re.Match[str]) -> str:
        found = read(match.group(1))
        if found is None:
            raise ConfigError(
                f"The secret {match.group(1)!r} for {key} is not stored.",
                hint=f"Store it with `aria mcp secret {match.group(1)}`.",
            )
        return found

    return _SECRET_RE.sub(secret, value)


def server_spec(name: str, settings: McpServerSettings, read: SecretReader) -> ServerSpec:
    """Resolve one server's settings (secrets included).

    Raises:
        ConfigError: neither command nor url, or a referenced secret is missing.
    """
    key = f"mcp.servers.{name}"
    transport = settings.transport
    if transport == "auto":
        transport = "stdio" if settings.command else "auto-http"
    if transport == "stdio" and not settings.command:
        raise ConfigError(f"{key} has no command.", hint=f"Set {key}.command, or a url.")
    if transport != "stdio" and not settings.url:
        raise ConfigError(f"{key} has neither command nor url.", hint=f"Set {key}.command or url.")
    env = {}
    for item in settings.env:
        var, _, value = item.partition("=")
        env[var] = _fill(value, f"{key}.env", read)
    headers = {}
    for item in settings.headers:
        header, _, value = item.partition(":")
        headers[header.strip()] = _fill(value.strip(), f"{key}.headers", read)
    oauth = None
    has_authorization = any(header.lower() == "authorization" for header in headers)
    if transport != "stdio" and settings.oauth and not has_authorization:
        oauth = OAuthOptions(
            client_id=settings.oauth_client_id,
            client_secret=_fill(settings.oauth_client_secret, f"{key}.oauth_client_secret", read),
            client_metadata_url=settings.oauth_client_metadata_url,
            scopes=settings.oauth_scopes,
        )
    return ServerSpec(
        name=name,
        transport=transport,  # type: ignore[arg-type]
        command=settings.command,
        args=settings.args,
        env=env,
        cwd=settings.cwd,
        url=settings.url,
        headers=headers,
        startup_timeout_s=settings.startup_timeout_s,
        call_timeout_s=settings.call_timeout_s,
        oauth=oauth,
    )


def tool_policies(name: str, settings: McpServerSettings) -> dict[str, str]:
    """``tool=policy`` entries of one server, keyed by the tool's own name."""
    return dict(item.split("=", 1) for item in settings.tools)
