"""The API's front door: one ASGI middleware that checks every request before any route runs.

In order: header limits (431), ``Host`` (DNS rebinding, 403), ``Origin`` (cross-site browser
requests, 403; CORS for allowlisted origins), rate limits per client and route class
(``api/server/ratelimit.py``; 429 with ``Retry-After``), the bearer token (401; ``/api/v1/health``
is the only open route, answered right here), the content type of state-changing requests (415: JSON
only, so no HTML form can reach a route; the one exception is ``POST /api/v1/transcribe``, which
takes exactly ``audio/wav``), and the body size (413). The body is read here, counting bytes as they
arrive, so a chunked body without ``Content-Length`` is cut off at the cap too and never held in
memory beyond it; the route then gets the buffered body.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import math
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from aria_desktop.api.config import ApiConfig
from aria_desktop.api.server import ratelimit
from aria_desktop.api.server.protocol_errors import shape_errors
from aria_desktop.api.server.ratelimit import CLIENT_HEADER, RateLimiter
from aria_desktop.api.token import TokenFile

__all__ = [
    "DOCS_ASSETS",
    "DOCS_PATH",
    "DOCS_SESSION_PATH",
    "DOCS_SIGNED_IN",
    "HEALTH_PATH",
    "SecurityMiddleware",
    "error_body",
]

_LOGGER = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

HEALTH_PATH = "/api/v1/health"
DOCS_PATH = "/docs"
DOCS_ASSETS = "/docs/assets/"
DOCS_SESSION_PATH = "/docs/session"
DOCS_SIGNED_IN = "aria.docs_signed_in"
"""Scope key: whether the docs page's request came with the token or its session cookie."""
DOCS_COOKIE = b"aria_docs"
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_CORS_HEADERS = "authorization, content-type, x-aria-client"
_CORS_METHODS = "GET, POST, PATCH, DELETE"
_JSON = (b"application/json",)
_WAV_PATHS = frozenset({"/api/v1/transcribe"})
_WAV = (b"audio/wav", b"audio/x-wav", b"audio/wave")
_CHECKED_HEADERS = frozenset(
    {
        b"host",
        b"origin",
        b"authorization",
        b"content-type",
        b"content-length",
        b"transfer-encoding",
        b"user-agent",
        b"cookie",
        b"sec-fetch-site",
        CLIENT_HEADER,
    }
)
"""The request headers the checks read (ASGI gives names in lower case)."""


def error_body(code: str, message: str, hint: str = "") -> dict[str, Any]:
    """The JSON body of every error response: ``{"error": {code, message, hint}}``."""
    return {"error": {"code": code, "message": message, "hint": hint}}


async def _send_error(
    send: Send,
    status: int,
    code: str,
    message: str,
    hint: str = "",
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    body = json.dumps(error_body(code, message, hint)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _host_allowed(host_header: str, port: int, allow_remote: bool) -> bool:
    """Loopback names/addresses on our port (any IP literal when remote access is on).

    A DNS-rebinding page reaches us under the attacker's domain name, so refusing every name
    but ``localhost`` defeats it; IP literals cannot be rebound.
    """
    if host_header.startswith("["):
        end = host_header.find("]")
        rest = host_header[end + 1 :] if end > 0 else "x"
        if rest and not rest.startswith(":"):
            return False
        host, port_text = host_header[1:end], rest[1:]
    elif host_header.count(":") <= 1:
        host, _, port_text = host_header.partition(":")
    else:
        return False  # an unbracketed IPv6 address is not a valid Host
    if port_text:
        if not port_text.isdigit() or int(port_text) != port:
            return False
    elif port != 80:
        return False
    host = host.lower()
    if host in ("localhost", "localhost."):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or allow_remote


class _BodyTooLarge(Exception):
    pass


class SecurityMiddleware:
    """Wraps the FastAPI app; see the module docstring for what it checks.

    Args:
        app: the application.
        config: limits, port and allowed origins.
        token: the token file requests are checked against.
        port: the port actually bound (``config.port`` may be 0).
        clock: monotonic seconds, for the rate limiter.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        config: ApiConfig,
        token: TokenFile,
        port: Callable[[], int],
        health_body: bytes = b'{"status":"ok"}',
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.config = config
        self.token = token
        self.port = port
        self.clock = clock
        self.origins = frozenset(origin.rstrip("/").lower() for origin in config.allowed_origins)
        self.limiter = RateLimiter(config.rate_limit_per_s, config.rate_limit_burst)
        self._health_start: Message = {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(health_body)).encode()),
            ],
        }
        self._health_body: Message = {"type": "http.response.body", "body": health_body}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check one request, then hand it on (or answer it with an error).

        Each ``_passes_*`` check answers the request itself when it stops it, in the order of
        the module docstring.
        """
        if scope["type"] != "http":
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return
        send = shape_errors(scope["path"], send)  # OpenAI/Ollama error shapes on their paths
        headers: list[tuple[bytes, bytes]] = scope["headers"]
        if not await self._passes_header_limits(headers, send):
            return
        # The last value of a repeated header wins, as it always did here.
        seen = {name: value for name, value in headers if name in _CHECKED_HEADERS}
        if not await self._passes_host(seen.get(b"host", b""), send):
            return
        origin = seen.get(b"origin", b"")
        if origin and origin.lower() == b"http://" + seen.get(b"host", b"").lower():
            origin = b""  # a page this API served (the docs page): same origin, no CORS
        cors = [(b"access-control-allow-origin", origin), (b"vary", b"origin")] if origin else []
        if origin and not await self._passes_origin(scope, origin, cors, send):
            return
        bearer = self._authorized(seen.get(b"authorization", b""))
        authorized = bearer or self._docs_session(scope, seen)
        if not await self._passes_rate_limit(scope, seen, authorized, send):
            return
        if not await self._passes_docs(scope, authorized, bearer, send):
            return
        if not await self._passes_token(scope, authorized, bool(cors), send):
            return
        if scope["method"] in _BODY_METHODS:
            body = await self._checked_body(scope, seen, receive, send)
            if body is None:
                return
            receive = _replay(body, receive)
        if cors:
            send = _with_headers(send, cors)
        await self.app(scope, receive, send)

    async def _passes_header_limits(self, headers: list[tuple[bytes, bytes]], send: Send) -> bool:
        """False (431 sent) when the headers are too many or too large altogether."""
        size = sum(len(name) + len(value) + 4 for name, value in headers)
        if size > self.config.max_header_bytes or len(headers) > self.config.max_headers:
            await _send_error(send, 431, "headers_too_large", "The request headers are too large.")
            return False
        return True

    async def _passes_host(self, host: bytes, send: Send) -> bool:
        """False (403 sent) when ``Host`` does not name this computer's API (DNS rebinding)."""
        if _host_allowed(host.decode("latin-1"), self.port(), self.config.allow_remote):
            return True
        await _send_error(
            send,
            403,
            "host_not_allowed",
            "The Host header does not name this computer's local API.",
            "Call the API as http://127.0.0.1:<port> or http://localhost:<port>.",
        )
        return False

    async def _passes_origin(
        self, scope: Scope, origin: bytes, cors: list[tuple[bytes, bytes]], send: Send
    ) -> bool:
        """False when the request was answered: 403 for an origin not allowed, else a preflight.

        A browser's ``OPTIONS`` preflight from an allowed origin is answered here (204 with the
        CORS headers); it never reaches a route.
        """
        if origin.decode("latin-1").rstrip("/").lower() not in self.origins:
            await _send_error(
                send,
                403,
                "origin_not_allowed",
                "Requests from this web page's origin are not allowed.",
                "Add the origin to api.allowed_origins if you trust it.",
            )
            return False
        if scope["method"] != "OPTIONS":
            return True
        await send(
            {
                "type": "http.response.start",
                "status": 204,
                "headers": [
                    *cors,
                    (b"access-control-allow-headers", _CORS_HEADERS.encode()),
                    (b"access-control-allow-methods", _CORS_METHODS.encode()),
                    (b"access-control-max-age", b"600"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})
        return False

    async def _passes_rate_limit(
        self, scope: Scope, seen: dict[bytes, bytes], authorized: bool, send: Send
    ) -> bool:
        """False (429 with ``Retry-After`` sent) when the client must wait before this request."""
        wait_s = self._wait_s(scope, seen, authorized)
        if wait_s <= 0:
            return True
        await _send_error(
            send,
            429,
            "rate_limited",
            "Too many requests.",
            "Slow down and retry after the Retry-After delay.",
            [(b"retry-after", str(max(1, math.ceil(wait_s))).encode())],
        )
        return False

    async def _passes_token(self, scope: Scope, authorized: bool, cors: bool, send: Send) -> bool:
        """False when answered: the health check here, or 401 for any other route without token.

        A plain ``GET`` of the health route is answered without routing: monitors poll it, and
        it never changes.
        """
        if scope["path"] == HEALTH_PATH and scope["method"] == "GET" and not cors:
            await send(self._health_start)
            await send(self._health_body)
            return False
        if scope["path"] == HEALTH_PATH or authorized or DOCS_SIGNED_IN in scope:
            return True
        await _send_error(
            send,
            401,
            "unauthorized",
            "A valid API token is required.",
            "Send 'Authorization: Bearer <token>'; `aria token show` prints it.",
            [(b"www-authenticate", b'Bearer realm="aria"')],
        )
        return False

    def _docs_session(self, scope: Scope, seen: dict[bytes, bytes]) -> bool:
        """Whether the docs page's session cookie stands in for the token on this request.

        Only for the browser's own same-origin requests (``Sec-Fetch-Site``, which no page can
        forge): the docs page and its "Try it out" calls, or the page opened from the address
        bar. Another page on this computer (another port is the same *site*) gets nothing.
        """
        fetch_site = seen.get(b"sec-fetch-site", b"")
        opened = fetch_site == b"none" and scope["method"] == "GET" and scope["path"] == DOCS_PATH
        if fetch_site != b"same-origin" and not opened:
            return False
        for part in seen.get(b"cookie", b"").split(b";"):
            name, _, value = part.strip().partition(b"=")
            if name == DOCS_COOKIE:
                return self.token.matches_session(value)
        return False

    async def _passes_docs(self, scope: Scope, authorized: bool, bearer: bool, send: Send) -> bool:
        """False when answered here: the docs sign-in that sets the session cookie.

        ``GET /docs`` and its static files pass without the token (the page then shows a
        sign-in form instead of the API, see ``api/routes/docs_page.py``); the form's script
        sends the token once as a bearer header to ``/docs/session``, which sets an HttpOnly,
        SameSite=Strict cookie holding a value derived from the token.
        """
        path, method = scope["path"], scope["method"]
        if path == DOCS_PATH or path.startswith(DOCS_ASSETS):
            scope[DOCS_SIGNED_IN] = authorized
            return True
        if path != DOCS_SESSION_PATH or method != "GET" or not bearer:
            return True
        value = self.token.session_value() or b""
        cookie = DOCS_COOKIE + b"=" + value + b"; Path=/; HttpOnly; SameSite=Strict"
        await send(
            {
                "type": "http.response.start",
                "status": 204,
                "headers": [(b"set-cookie", cookie), (b"cache-control", b"no-store")],
            }
        )
        await send({"type": "http.response.body", "body": b""})
        return False

    async def _checked_body(
        self, scope: Scope, seen: dict[bytes, bytes], receive: Receive, send: Send
    ) -> bytes | None:
        """The request body, read up to the cap; None when refused (415 or 413 sent).

        JSON only (a WAV file on the transcription route), so no HTML form reaches a route.
        """
        content_length = seen.get(b"content-length", b"")
        has_body = b"transfer-encoding" in seen or content_length not in (b"", b"0")
        media_type = seen.get(b"content-type", b"").split(b";", 1)[0].strip().lower()
        wav = scope["path"] in _WAV_PATHS
        if has_body and media_type not in (_WAV if wav else _JSON):
            await _send_error(
                send,
                415,
                "unsupported_media_type",
                "This route takes a WAV file." if wav else "Request bodies must be JSON.",
                "Send 'Content-Type: audio/wav'."
                if wav
                else "Send 'Content-Type: application/json'.",
            )
            return None
        if content_length and (
            not content_length.isdigit() or int(content_length) > self.config.max_body_bytes
        ):
            await self._too_large(send)
            return None
        try:
            return await self._read_body(receive) if has_body else b""
        except _BodyTooLarge:
            await self._too_large(send)
            return None

    def _wait_s(self, scope: Scope, seen: dict[bytes, bytes], authorized: bool) -> float:
        """0 when the request's client may make it now, else the seconds until it could.

        The client is left in the scope too: its event streams count against its share.
        """
        address = scope.get("client")
        who = ratelimit.client_key(
            authorized=authorized,
            name=seen.get(CLIENT_HEADER, b""),
            user_agent=seen.get(b"user-agent", b""),
            address=address[0] if address else "",
        )
        scope[ratelimit.CLIENT_SCOPE_KEY] = who
        kind = ratelimit.route_class(scope["method"], scope["path"])
        return self.limiter.take(who, kind, self.clock())

    async def _too_large(self, send: Send) -> None:
        await _send_error(
            send,
            413,
            "body_too_large",
            f"The request body is larger than {self.config.max_body_bytes} bytes.",
            "Send less data (the limit is api.max_body_bytes).",
        )

    def _authorized(self, authorization: bytes) -> bool:
        scheme, _, credentials = authorization.partition(b" ")
        if scheme.lower() != b"bearer" or not credentials:
            return False
        return self.token.matches(credentials.strip())

    async def _read_body(self, receive: Receive) -> bytes:
        limit = self.config.max_body_bytes
        chunks: list[bytes] = []
        total = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break  # http.disconnect: the route will see an empty body and the client is gone
            chunk = message.get("body", b"")
            total += len(chunk)
            if total > limit:
                raise _BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that yields the buffered body once, then the original channel."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _with_headers(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = dict(message)
            message["headers"] = [*message.get("headers", []), *extra]
        await send(message)

    return wrapped
