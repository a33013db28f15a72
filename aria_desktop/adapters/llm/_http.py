"""Shared plumbing of the HTTP-based backends: timeouts, status mapping, NDJSON and SSE.

Requests go out through ``_send`` (resent once when a pooled connection was stale). The pure
helpers (``Timeouts``, ``StreamTimer``, ``error_for_status``, ``parse_retry_after``) are also
used by the Anthropic adapter, whose SDK brings its own transport.

Why we enforce our own timeouts: Ollama has none, and an HTTP read timeout cannot tell "the
model is still loading" (first token) from "the stream hung" (stall) from "this reply is taking
forever" (total). ``StreamTimer`` tracks the phases and puts an ``asyncio`` deadline around every
read, so a hung server turns into an ``LLMTimeoutError`` naming the phase.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import email.utils
import json
import logging
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

# httpx's transport (anyio) imports its asyncio backend on the first request: ~15 ms on the
# event loop in the middle of the user's first turn (a stall the desktop app shows). Imported
# here instead, while ARIA is built.
import anyio._backends._asyncio  # noqa: F401
import httpx

from aria_desktop.adapters.llm._keepalive import drain_after_end
from aria_desktop.adapters.llm._send import send_streaming
from aria_desktop.adapters.llm.model_facts import KnowsModel
from aria_desktop.domain.chat import StreamEnd, ToolSpec
from aria_desktop.domain.errors import (
    AuthenticationError,
    BackendUnreachableError,
    BadRequestError,
    CapabilityMissingError,
    ContextOverflowError,
    LLMError,
    LLMTimeoutError,
    MalformedResponseError,
    ModelNotFoundError,
    RateLimitedError,
    ServerError,
    StreamInterruptedError,
)
from aria_desktop.domain.locality import Locality

_LOGGER = logging.getLogger(__name__)

_T = TypeVar("_T")

#: Phrases servers use when the prompt does not fit (Ollama, llama.cpp, OpenAI, Anthropic).
_CONTEXT_PHRASES = (
    "context length",
    "context window",
    "context_length",
    "maximum context",
    "prompt is too long",
    "too many tokens",
    "exceeds the available context",
    "input is too long",
    "request too large",
)
#: Phrases servers use when the model lacks a capability the request needs.
_CAPABILITY_PHRASES = (
    "does not support tools",
    "does not support images",
    "does not support vision",
    "does not support tool",
    "tools are not supported",
    "images are not supported",
)


@dataclass(frozen=True, kw_only=True)
class Timeouts:
    """Deadlines of one streamed reply, in seconds.

    Attributes:
        connect_s: to open the TCP/TLS connection (enforced by the HTTP library).
        first_token_s: from sending the request to the first content chunk; generous because a
            local server may first have to load the model into memory.
        stall_s: longest wait for the next chunk once content has started flowing.
        total_s: the whole reply, from sending the request to the end of the stream.
    """

    connect_s: float = 5.0
    first_token_s: float = 120.0
    stall_s: float = 30.0
    total_s: float = 600.0

    def quick(self) -> Timeouts:
        """Deadlines for a metadata request (``/api/show``, ``/props``): seconds, not minutes."""
        return dataclasses.replace(self, first_token_s=min(self.first_token_s, 10.0), total_s=15.0)


class StreamTimer:
    """Applies ``Timeouts`` to one reply, read by read.

    The first-token and total deadlines are fixed when the request is sent; the stall deadline
    restarts at every read once content has been delivered, so time the consumer spends between
    reads (speaking a sentence, say) is never blamed on the server.
    """

    def __init__(self, timeouts: Timeouts, *, backend: str) -> None:
        """Start the clock now (call right before sending the request)."""
        self._timeouts = timeouts
        self._backend = backend
        self._clock = asyncio.get_running_loop().time
        self._started = self._clock()
        self.content_started = False

    def mark_content(self) -> None:
        """Record that content reached the consumer: from now on the stall deadline applies."""
        self.content_started = True

    def _deadline(self) -> tuple[float, str]:
        """The next deadline (loop time) and the name of the timeout it enforces."""
        total = self._started + self._timeouts.total_s
        if self.content_started:
            phase, kind = self._clock() + self._timeouts.stall_s, "stall"
        else:
            phase, kind = self._started + self._timeouts.first_token_s, "first_token"
        if total <= phase:
            return total, "total"
        return phase, kind

    def _timeout_error(self, kind: str) -> LLMTimeoutError:
        limit = {
            "first_token": self._timeouts.first_token_s,
            "stall": self._timeouts.stall_s,
            "total": self._timeouts.total_s,
        }[kind]
        what = {
            "first_token": "no reply started",
            "stall": "the reply stalled",
            "total": "the reply did not finish",
        }[kind]
        # A first-token or total timeout already cost the full (long) limit: retrying the same
        # backend would multiply the wait, so the router moves on to the next one instead.
        return LLMTimeoutError(
            f"{self._backend}: {what} within {limit:g} s ({kind} timeout)",
            kind=kind,
            backend=self._backend,
            retryable=kind == "stall",
            hint="The server may be overloaded or loading the model; raise the timeout in the "
            "llm settings if this machine is just slow.",
        )

    async def guard(self, awaitable: Awaitable[_T]) -> _T:
        """Await ``awaitable`` under the current deadline, raising ``LLMTimeoutError`` on expiry."""
        deadline, kind = self._deadline()
        try:
            async with asyncio.timeout_at(deadline):
                return await awaitable
        except TimeoutError as exc:
            raise self._timeout_error(kind) from exc

    async def iterate(self, source: AsyncIterator[_T]) -> AsyncGenerator[_T, None]:
        """Yield from ``source`` with every read guarded by the current deadline."""
        while True:
            try:
                item = await self.guard(anext(source))
            except StopAsyncIteration:
                return
            yield item


def new_call_id() -> str:
    """A tool-call id for backends that give none (storage keys executions by it)."""
    return f"call_{secrets.token_hex(8)}"


# --- status and error mapping -------------------------------------------------------------------


def parse_retry_after(value: str | None, *, now: Callable[[], float] = time.time) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta seconds or an HTTP date).

    Returns None when absent or unparsable; never negative.
    """
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - now())


def retry_after_from_headers(headers: Any) -> float | None:
    """``retry-after-ms`` (OpenAI) or ``Retry-After`` from a case-insensitive header mapping."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    result: float | None = parse_retry_after(headers.get("retry-after"))
    return result


def error_message_from_body(body: str) -> str:
    """The human message inside an error body (Ollama, OpenAI and Anthropic shapes)."""
    text = body.strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:500]
    if isinstance(data, dict):
        err = data.get("error", data.get("message"))
        if isinstance(err, str):
            return err
        if isinstance(err, dict):
            msg = err.get("message")
            kind = err.get("type")
            if isinstance(msg, str):
                return f"{kind}: {msg}" if isinstance(kind, str) and kind not in msg else msg
    return text[:500]


def error_for_status(
    status: int | None,
    message: str,
    *,
    backend: str,
    retry_after_s: float | None = None,
    auth_hint: str = "",
    model_hint: str = "",
) -> LLMError:
    """Translate an HTTP status (or a mid-stream error, ``status=None``) into an ``LLMError``.

    Retryable: 408, 429, 5xx, 529 and unknown mid-stream failures. Not retryable: auth, missing
    model, context overflow, missing capability and other request errors, which fail the same
    way on every retry.
    """
    lowered = message.lower()
    prefix = f"{backend}: " + (f"HTTP {status}: " if status is not None else "")
    text = prefix + message
    common: dict[str, Any] = {"backend": backend, "status": status}
    client_side = status is None or 400 <= status < 500
    if client_side and (status == 413 or any(p in lowered for p in _CONTEXT_PHRASES)):
        return ContextOverflowError(
            text,
            hint="Shorten the conversation or start a new one, or pick a model with a "
            "larger context window.",
            **common,
        )
    if client_side and any(p in lowered for p in _CAPABILITY_PHRASES):
        return CapabilityMissingError(
            text,
            hint="Choose a model that supports this (tools or images) for this agent.",
            **common,
        )
    if status in (401, 403):
        return AuthenticationError(text, hint=auth_hint, **common)
    if status == 404:
        return ModelNotFoundError(text, hint=model_hint, **common)
    if status == 429 or status == 529 or "overloaded" in lowered or "rate_limit" in lowered:
        return RateLimitedError(
            text,
            hint="The server asked us to slow down; ARIA retries after the delay it gave.",
            retry_after_s=retry_after_s,
            **common,
        )
    if status == 408 or status is None or status >= 500:
        return ServerError(
            text,
            hint="The server failed; it may recover on its own — check its logs if it persists.",
            retry_after_s=retry_after_s,
            retryable=True,
            **common,
        )
    return BadRequestError(text, hint="This looks like a bug in ARIA; please report it.", **common)


class BackendIdentity(KnowsModel):
    """What every chat backend tells the router: its name, model, capabilities and locality.

    Every backend takes the same two constructor arguments for this: ``name``, the backend
    name used in events, errors and the fallback chain; and ``locality``, where the model runs,
    None applying the one rule (``domain.locality.backend_locality``) to that kind of server at
    its base URL.
    """

    _name: str
    _locality: Locality

    @property
    def name(self) -> str:
        """Backend name (as in the fallback chain)."""
        return self._name

    @property
    def locality(self) -> Locality:
        """Where the model runs: ``local`` or ``cloud``, fixed when the backend is built.

        It comes from the one rule (``domain.locality.backend_locality``) unless the
        composition root says otherwise. Every ``StreamEnd`` carries it, so front-ends show
        it and never guess it from a name (ARCHITECTURE.md: one fact, decided once).
        """
        return self._locality


async def relay_chunks(
    source: AsyncGenerator[_T, None],
    parse: Callable[[AsyncIterator[_T], StreamTimer, list[str]], AsyncGenerator[Any, None]],
    *,
    timer: StreamTimer,
    backend: str,
    close: Callable[[], Awaitable[None]],
) -> AsyncGenerator[Any, None]:
    """Yield the chunks ``parse`` makes of a backend's ``source``, then always close both.

    The one place that decides what a failure means to the router: before any content it is
    the failure itself (the router may retry or fall back); after content it becomes a
    ``StreamInterruptedError`` carrying the text that arrived (kept, never retried). Every
    backend streams the same way (raw lines or events in, chunks out), so the text ``parse``
    collects and the closing order (``source`` first, then the transport via ``close``) live
    here once.
    """
    partial: list[str] = []
    finished = False
    try:
        async with contextlib.aclosing(parse(source, timer, partial)) as parsed:
            async for chunk in parsed:
                finished = isinstance(chunk, StreamEnd)
                yield chunk
    except LLMError as exc:
        if timer.content_started:
            raise interrupted(exc, backend=backend, partial_text="".join(partial)) from exc
        raise
    finally:
        try:
            if finished:
                await drain_after_end(source)
        finally:
            await source.aclose()
            await close()


def interrupted(exc: LLMError, *, backend: str, partial_text: str) -> StreamInterruptedError:
    """Wrap a failure that happened after content was delivered (never retryable)."""
    if isinstance(exc, StreamInterruptedError):
        return exc
    return StreamInterruptedError(
        f"{backend}: the reply broke off after {len(partial_text)} characters: {exc.message}",
        partial_text=partial_text,
        backend=backend,
        status=exc.status,
        hint="The partial reply was kept; ask again to get a complete answer.",
    )


# --- httpx transport --------------------------------------------------------------------------


def make_client(timeouts: Timeouts, *, trust_env: bool = True) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` whose own timeouts cover only connecting and writing.

    Reading is bounded by ``StreamTimer`` instead, which knows which phase a reply is in.
    """
    return httpx.AsyncClient(timeout=httpx_timeout(timeouts), trust_env=trust_env)


def httpx_timeout(timeouts: Timeouts) -> httpx.Timeout:
    """The per-request httpx timeout matching ``timeouts`` (reads are left to ``StreamTimer``)."""
    return httpx.Timeout(
        connect=timeouts.connect_s,
        read=None,
        write=timeouts.connect_s * 2,
        pool=timeouts.connect_s,
    )


def transport_error(
    exc: httpx.TransportError, *, backend: str, url: str, unreachable_hint: str
) -> LLMError:
    """Translate an httpx transport failure (connect refused, DNS, reset, dropped stream)."""
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return LLMTimeoutError(
            f"{backend}: connecting to {url} timed out",
            kind="connect",
            backend=backend,
            hint=unreachable_hint,
        )
    if isinstance(exc, httpx.ConnectError):
        return BackendUnreachableError(
            f"{backend}: cannot connect to {url}: {exc}", backend=backend, hint=unreachable_hint
        )
    if isinstance(exc, httpx.TimeoutException):
        return LLMTimeoutError(
            f"{backend}: {url} timed out: {exc}", kind="total", backend=backend, hint=""
        )
    return BackendUnreachableError(
        f"{backend}: the connection to {url} broke: {exc!r}",
        backend=backend,
        hint="The server closed the connection mid-reply; check its logs if this repeats.",
    )


async def open_stream(
    client: httpx.AsyncClient,
    request: httpx.Request,
    timer: StreamTimer,
    *,
    backend: str,
    unreachable_hint: str,
    auth_hint: str = "",
    model_hint: str = "",
) -> httpx.Response:
    """Send ``request`` for streaming; raise the mapped ``LLMError`` for any non-2xx status.

    Waiting for the response headers counts against the first-token deadline: Ollama sends its
    headers together with the first chunk.
    """
    url = str(request.url)
    try:
        response = await timer.guard(send_streaming(client, request))
    except httpx.TransportError as exc:
        raise transport_error(
            exc, backend=backend, url=url, unreachable_hint=unreachable_hint
        ) from exc
    if response.status_code < 300:
        return response
    try:
        try:
            body = (await timer.guard(response.aread())).decode("utf-8", "replace")
        except httpx.TransportError:
            body = ""
    finally:
        await response.aclose()
    message = error_message_from_body(body) or response.reason_phrase
    retry_after_s = retry_after_from_headers(response.headers)
    _LOGGER.debug("%s answered HTTP %d: %s", backend, response.status_code, message)
    raise error_for_status(
        response.status_code,
        message,
        backend=backend,
        retry_after_s=retry_after_s,
        auth_hint=auth_hint,
        model_hint=model_hint,
    )


async def iter_lines(
    response: httpx.Response, timer: StreamTimer, *, backend: str, url: str
) -> AsyncGenerator[str, None]:
    """Non-empty text lines of a streamed body (NDJSON), each read under the timer."""
    try:
        async with contextlib.aclosing(timer.iterate(response.aiter_lines())) as lines:
            async for line in lines:
                if line.strip():
                    yield line
    except httpx.TransportError as exc:
        raise transport_error(exc, backend=backend, url=url, unreachable_hint="") from exc


@dataclass(frozen=True, kw_only=True)
class SSEEvent:
    """One Server-Sent Event: its ``event`` name ("" when absent) and joined ``data`` lines."""

    event: str
    data: str


async def iter_sse(
    response: httpx.Response, timer: StreamTimer, *, backend: str, url: str
) -> AsyncGenerator[SSEEvent, None]:
    """Parse an SSE body (``event:``/``data:`` fields, blank line ends an event)."""
    event = ""
    data: list[str] = []
    try:
        async with contextlib.aclosing(timer.iterate(response.aiter_lines())) as lines:
            async for line in lines:
                if not line:
                    if data:
                        yield SSEEvent(event=event, data="\n".join(data))
                    event, data = "", []
                    continue
                if line.startswith(":"):
                    continue
                field, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if field == "event":
                    event = value
                elif field == "data":
                    data.append(value)
    except httpx.TransportError as exc:
        raise transport_error(exc, backend=backend, url=url, unreachable_hint="") from exc
    if data:
        yield SSEEvent(event=event, data="\n".join(data))


class HttpBackend(BackendIdentity):
    """A backend speaking plain HTTP through ``httpx``: Ollama and OpenAI-compatible servers.

    Both make the same round trip for a reply (POST, map a bad status, read the body as lines
    or events under the timer, parse, close) and differ only in the URL, body and wire format,
    so the round trip and the client's lifetime live here once.
    """

    _client: httpx.AsyncClient
    _owns_client: bool
    _timeouts: Timeouts
    _unreachable_hint: str
    _auth_hint: str = ""
    _model_hint: str = ""

    async def _stream(
        self,
        url: str,
        body: dict[str, Any],
        read: Callable[..., AsyncGenerator[_T, None]],
        parse: Callable[[AsyncIterator[_T], StreamTimer, list[str]], AsyncGenerator[Any, None]],
        *,
        headers: dict[str, str] | None = None,
    ) -> AsyncGenerator[Any, None]:
        """POST ``body`` to ``url`` and yield what ``parse`` makes of the body ``read`` splits.

        Args:
            url: the streaming endpoint.
            body: the JSON request body.
            read: ``iter_lines`` or ``iter_sse``: how the body splits into items.
            parse: turns the items into chunks, collecting the text it yields.
            headers: extra request headers (an API key), None for none.
        """
        http_request = self._client.build_request(
            "POST", url, json=body, headers=headers, timeout=httpx_timeout(self._timeouts)
        )
        timer = StreamTimer(self._timeouts, backend=self._name)
        response = await open_stream(
            self._client,
            http_request,
            timer,
            backend=self._name,
            unreachable_hint=self._unreachable_hint,
            auth_hint=self._auth_hint,
            model_hint=self._model_hint,
        )
        source = read(response, timer, backend=self._name, url=url)
        relayed = relay_chunks(
            source, parse, timer=timer, backend=self._name, close=response.aclose
        )
        # aclosing at every level: the response closes now, in this task, not later from the
        # loop's generator finalizer (ARCHITECTURE.md: first-chunk latency).
        async with contextlib.aclosing(relayed) as chunks:
            async for chunk in chunks:
                yield chunk

    async def aclose(self) -> None:
        """Close the HTTP client if this backend created it."""
        if self._owns_client:
            await self._client.aclose()


async def get_json(
    client: httpx.AsyncClient,
    url: str,
    timeouts: Timeouts,
    *,
    backend: str,
    unreachable_hint: str,
    headers: dict[str, str] | None = None,
    auth_hint: str = "",
    body: dict[str, Any] | None = None,
) -> Any:
    """GET ``url`` (POST ``body`` when given) as JSON, bounded like a reply."""
    timer = StreamTimer(timeouts, backend=backend)
    request = client.build_request(
        "GET" if body is None else "POST",
        url,
        json=body,
        headers=headers,
        timeout=httpx_timeout(timeouts),
    )
    response = await open_stream(
        client,
        request,
        timer,
        backend=backend,
        unreachable_hint=unreachable_hint,
        auth_hint=auth_hint,
    )
    try:
        raw = await timer.guard(response.aread())
    except httpx.TransportError as exc:
        raise transport_error(exc, backend=backend, url=url, unreachable_hint="") from exc
    finally:
        await response.aclose()
    try:
        return json.loads(raw)
    except ValueError as exc:
        sample = raw.decode("utf-8", "replace")
        raise malformed(backend, f"{url} did not return JSON", sample) from exc


def malformed(backend: str, what: str, sample: str) -> MalformedResponseError:
    """A protocol violation, quoting a short sample of what arrived."""
    return MalformedResponseError(
        f"{backend}: {what}: {sample[:200]!r}",
        backend=backend,
        hint="The server does not speak the expected protocol; check its URL and version.",
    )


def function_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """``tools`` in the ``{"type": "function", ...}`` form Ollama and OpenAI servers share."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools
    ]


def json_arguments(text: str, *, backend: str, invalid: str, not_object: str) -> dict[str, Any]:
    """Tool-call arguments sent as JSON text; empty text means no arguments.

    Each backend names the failure in its own protocol's words (``invalid``, ``not_object``),
    so the error points at the field the server got wrong.
    """
    try:
        arguments = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise malformed(backend, invalid, text) from exc
    if not isinstance(arguments, dict):
        raise malformed(backend, not_object, text)
    return arguments


def ended_early(backend: str, what: str) -> MalformedResponseError:
    """The stream stopped before the protocol's last message (``what`` says which)."""
    return MalformedResponseError(
        f"{backend}: the stream ended {what}",
        backend=backend,
        hint="The server closed the reply early; check its logs if this repeats.",
    )


def token_count(value: Any) -> int:
    """A token count from a reply; anything but a real int (bools included) counts as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


__all__ = [
    "HttpBackend",
    "SSEEvent",
    "StreamTimer",
    "Timeouts",
    "ended_early",
    "error_for_status",
    "error_message_from_body",
    "function_tools",
    "get_json",
    "httpx_timeout",
    "interrupted",
    "iter_lines",
    "iter_sse",
    "json_arguments",
    "make_client",
    "malformed",
    "new_call_id",
    "open_stream",
    "parse_retry_after",
    "relay_chunks",
    "retry_after_from_headers",
    "token_count",
    "transport_error",
]
