"""The httpx transport of the HTTP-based backends: requests, status mapping, NDJSON and SSE.

Requests go out through ``_send`` (resent once when a pooled connection was stale), every read
under a ``StreamTimer``; ``HttpBackend`` is the round trip Ollama and OpenAI-compatible servers
share. ``make_client`` and ``get_json`` also serve the Anthropic adapter's metadata requests.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

# httpx's transport (anyio) imports its asyncio backend on the first request: ~15 ms on the
# event loop in the middle of the user's first turn (a stall the desktop app shows). Imported
# here instead, while ARIA is built.
import anyio._backends._asyncio  # noqa: F401
import httpx

from aria_desktop.adapters.llm._backend import BackendIdentity, relay_chunks
from aria_desktop.adapters.llm._errors import (
    cannot_connect,
    connect_timed_out,
    connection_broke,
    error_for_status,
    error_message_from_body,
    malformed,
    retry_after_from_headers,
)
from aria_desktop.adapters.llm._send import send_streaming
from aria_desktop.adapters.llm._timing import StreamTimer, Timeouts
from aria_desktop.domain.errors import LLMError, LLMTimeoutError

__all__ = [
    "HttpBackend",
    "SSEEvent",
    "get_json",
    "httpx_timeout",
    "iter_lines",
    "iter_sse",
    "make_client",
    "open_stream",
    "transport_error",
]

_LOGGER = logging.getLogger(__name__)

_T = TypeVar("_T")


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
        return connect_timed_out(backend, url, hint=unreachable_hint)
    if isinstance(exc, httpx.ConnectError):
        return cannot_connect(backend, url, exc, hint=unreachable_hint)
    if isinstance(exc, httpx.TimeoutException):
        return LLMTimeoutError(
            f"{backend}: {url} timed out: {exc}", kind="total", backend=backend, hint=""
        )
    return connection_broke(backend, url, exc)


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
    _unreachable_hint: str
    _auth_hint: str = ""
    _model_hint: str = ""

    def _use_client(self, client: httpx.AsyncClient | None, *, trust_env: bool = True) -> None:
        """Share ``client`` (not closed by ``aclose``), or make one that ``aclose`` closes."""
        self._owns_client = client is None
        self._client = (
            client if client is not None else make_client(self._timeouts, trust_env=trust_env)
        )

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
