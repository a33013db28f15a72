"""What the API server needs to know, and where a local client finds the server.

``CompatConfig`` says which model names ARIA offers to OpenAI- and Ollama-style clients: a name
is what a client puts in ``model``; each maps to a routing chain (an ARIA agent), and a name or a
client may be private: its turns are never mined for long-term memories
(``settings/schema_compat.py`` holds the user's side; ``compose/owner.py`` translates).

``ApiConfig`` is independent of how settings are stored. ``client_host`` lives here, beside
the listening address it reads, and not in ``owner``: every CLI command that talks to a running
owner needs it, and importing the owner's module (events, commands, the automation types) would
cost those commands start-up time (ARCHITECTURE.md: start-up cost).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ApiConfig", "CompatConfig", "CompatModel", "client_host", "client_label"]


@dataclass(frozen=True, kw_only=True)
class CompatModel:
    """One model name offered to clients.

    Attributes:
        name: the name clients use (Ollama clients see ``name:latest`` when it has no tag).
        agent: the routing chain its turns use.
        private: turns under this name are never mined for long-term memories.
    """

    name: str
    agent: str = "chat"
    private: bool = False

    @property
    def tagged(self) -> str:
        """The name with an Ollama tag (``aria`` -> ``aria:latest``)."""
        return self.name if ":" in self.name else f"{self.name}:latest"


@dataclass(frozen=True, kw_only=True)
class CompatConfig:
    """The OpenAI/Ollama-compatible endpoints' settings.

    Attributes:
        enabled: serve ``/v1/*`` and the Ollama ``/api/*`` routes at all.
        models: the names offered, first is the default.
        private_clients: client labels (``ollama``, ``openai``, a User-Agent product such as
            ``ollama-python``, or ``protocol/product``) whose turns are never mined.
        max_context_tokens: the largest context window a client may ask of a backend
            (Ollama's ``num_ctx``; larger requests are capped).
        context_tokens: the context window reported by ``/api/show``.
    """

    enabled: bool = True
    models: tuple[CompatModel, ...] = field(default=(CompatModel(name="aria"),))
    private_clients: tuple[str, ...] = ()
    max_context_tokens: int = 32_768
    context_tokens: int = 8_192

    def find(self, requested: str) -> CompatModel | None:
        """The offered model a client's ``model`` names (``aria`` and ``aria:latest`` alike)."""
        wanted = requested.strip()
        for model in self.models:
            if wanted in (model.name, model.tagged):
                return model
        return None

    def is_private(self, model: CompatModel, client: str) -> bool:
        """Whether a turn of ``client`` (``protocol/product``) under ``model`` stays unmined."""
        if model.private:
            return True
        protocol, _, product = client.partition("/")
        names = {client, protocol, product}
        return any(entry.strip().lower() in names for entry in self.private_clients)


def client_label(protocol: str, user_agent: str) -> str:
    """``protocol/product`` from the User-Agent's first product token (``ollama/ollama-python``)."""
    product = user_agent.strip().split(" ", 1)[0].split("/", 1)[0].lower()
    return f"{protocol}/{product or 'unknown'}"


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
            client may hold all but an eighth of them (``api/server/sse.py``).
        sse_idle_timeout_s: close a stream after this long without an event, seconds.
        sse_heartbeat_s: send a keep-alive comment after this long without an event, seconds.
        rate_limit_per_s: sustained requests per second per client and route class
            (``api/server/ratelimit.py``).
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
