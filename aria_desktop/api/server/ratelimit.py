"""Rate limits per client and per route class, so one busy program cannot starve the others.

Every local program reaches the API from 127.0.0.1, so a limit per address put the tray, the
CLI and Home Assistant in one bucket: 100 event streams opened by one program made health
probes of the others fail with 429. A request is now counted against a bucket of its own
**client** and its **route class**:

- client: for a request with a valid token, who it says it is (the ``X-Aria-Client`` header
  ARIA's own clients send, else its ``User-Agent``) combined with the token check; for any
  other request, its address (unauthenticated floods stay limited per address);
- route class: ``health`` (``GET /api/v1/health``), ``stream`` (opening an event stream),
  ``read`` (other ``GET``/``HEAD``) and ``write`` (everything else).

Each (client, class) pair has its own token bucket with the configured rate and burst, so
streams never use up health or cheap reads, and one client never uses up another's.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "CLIENT_HEADER",
    "CLIENT_SCOPE_KEY",
    "RateLimiter",
    "RouteClass",
    "client_key",
    "route_class",
]

CLIENT_HEADER = b"x-aria-client"
"""The request header a program names itself with (ARIA's own clients send it)."""

CLIENT_SCOPE_KEY = "aria.client"
"""Where the security middleware leaves the client a request is counted for (routes read it
to count event streams per client)."""

RouteClass = Literal["health", "stream", "read", "write"]

_HEALTH_PATH = "/api/v1/health"
_STREAM_PATHS = frozenset({"/api/v1/events"})
_READ_METHODS = frozenset({"GET", "HEAD"})
_MAX_BUCKETS = 10_000
_MAX_NAME_BYTES = 200


def route_class(method: str, path: str) -> RouteClass:
    """The class of route a request is counted against."""
    if method in _READ_METHODS:
        if path == _HEALTH_PATH:
            return "health"
        return "stream" if path in _STREAM_PATHS else "read"
    return "write"


def client_key(*, authorized: bool, name: bytes, user_agent: bytes, address: str) -> str:
    """Who a request is counted for: a named, authenticated client, or an address."""
    if authorized:
        label = (name or user_agent or b"-")[:_MAX_NAME_BYTES].decode("latin-1")
        return f"token:{label}"
    return f"address:{address}"


class RateLimiter:
    """Token buckets per (client, route class): ``rate_per_s`` sustained, ``burst`` at once."""

    def __init__(self, rate_per_s: float, burst: int) -> None:
        self.rate_per_s = rate_per_s
        self.burst = float(burst)
        self._state: dict[tuple[str, RouteClass], tuple[float, float]] = {}

    def take(self, client: str, kind: RouteClass, now: float) -> float:
        """0 when the request may go ahead, else the seconds until it could."""
        key = (client, kind)
        state = self._state.get(key)
        if state is None:
            if len(self._state) >= _MAX_BUCKETS:
                self._prune(now)
            state = (self.burst, now)
        tokens, last = state
        tokens = min(self.burst, tokens + (now - last) * self.rate_per_s)
        if tokens >= 1.0:
            self._state[key] = (tokens - 1.0, now)
            return 0.0
        self._state[key] = (tokens, now)
        return (1.0 - tokens) / self.rate_per_s

    def _prune(self, now: float) -> None:
        """Forget buckets that have refilled completely (they would start full anyway).

        If every bucket is still in use, the oldest half goes (a client naming itself anew for
        each request must not grow the table without bound).
        """
        full_after_s = self.burst / self.rate_per_s
        for key, (_tokens, last) in list(self._state.items()):
            if now - last > full_after_s:
                del self._state[key]
        if len(self._state) >= _MAX_BUCKETS:
            for key in list(self._state)[: _MAX_BUCKETS // 2]:
                del self._state[key]

    def __len__(self) -> int:
        return len(self._state)
