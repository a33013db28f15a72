"""What the API server needs to know, and where a local client finds the server.

``ApiConfig`` is independent of how settings are stored. ``client_host`` lives here, beside
the listening address it reads, and not in ``owner``: every CLI command that talks to a running
owner needs it, and importing the owner's module (events, commands, the automation types) would
cost those commands start-up time (ARCHITECTURE.md: start-up cost).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aria_desktop.api.compat_config import CompatConfig

__all__ = ["ApiConfig", "client_host"]


@dataclass(frozen=True, kw_only=True)
class ApiConfig:
    """Listening address and limits of the local HTTP API.

    Attributes:
        host: address to listen on (loopback unless ``allow_remote``).
        port: TCP port; 0 picks a free one.
        allow_remote: permit a non-loopback ``host``.
        allowed_origins: browser origins allowed to make requests (exact ``scheme://host:port``).
        max_body_bytes: largest request body, bytes (chunked bodies are counted as they arrive).
        max_header_bytes: largest total header size of a request, bytes.
        max_headers: most header lines a request may have.
        max_sse_streams: event streams (``/events`` and streamed ``/chat``) open at once; one
            client may hold all but an eighth of them (``api/sse.py``).
        sse_idle_timeout_s: close a stream after this long without an event, seconds.
        sse_heartbeat_s: send a keep-alive comment after this long without an event, seconds.
        rate_limit_per_s: sustained requests per second per client and route class
            (``api/ratelimit.py``).
        rate_limit_burst: requests a client may make at once above that rate.
        graceful_timeout_s: how long a stop waits for requests in flight, seconds.
        compat: the OpenAI- and Ollama-compatible endpoints.
        serve_mcp: serve ARIA's MCP server at ``/mcp`` (``mcp.serve_http``).
    """

    host: str = "127.0.0.1"
    port: int = 8731
    allow_remote: bool = False
    allowed_origins: tuple[str, ...] = ()
    max_body_bytes: int = 1_048_576
    max_header_bytes: int = 16_384
    max_headers: int = 100
    max_sse_streams: int = 32
    sse_idle_timeout_s: float = 900.0
    sse_heartbeat_s: float = 15.0
    rate_limit_per_s: float = 50.0
    rate_limit_burst: int = 200
    graceful_timeout_s: float = 5.0
    compat: CompatConfig = field(default_factory=CompatConfig)
    serve_mcp: bool = True


def client_host(host: str) -> str:
    """Where a local client connects for an API listening on ``host`` (URL form).

    A wildcard or ``localhost`` listener is reached on the IPv4 loopback address, ``::`` on the
    IPv6 one; IPv6 literals get the brackets a URL needs.
    """
    if host in ("0.0.0.0", "", "localhost"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host
