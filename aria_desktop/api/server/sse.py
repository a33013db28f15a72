"""Server-Sent Event streams: framing, the cap on open streams, idle and shutdown handling.

A stream starts with a ``: ready`` comment once its subscription exists (clients wait for it
before they start a turn, so they miss nothing), sends ``: ping`` comments while idle, and ends
with an ``event: close`` frame whose ``reason`` is ``idle`` (no event for
``sse_idle_timeout_s``; reconnect), ``shutdown`` (ARIA is stopping) or ``lagged`` (the client
read too slowly and missed events).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from aria_desktop.api.config import ApiConfig
from aria_desktop.core.ports import EventSubscription
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.events import Event

__all__ = ["EventStreamResponse", "StreamRegistry", "event_stream", "frame"]

_LOGGER = logging.getLogger(__name__)

Selector = Callable[[Event], "tuple[str, dict[str, Any], bool] | None"]
"""Maps an event to (SSE event name, data, is-last) or None to skip it."""


def frame(name: str, data: dict[str, Any]) -> bytes:
    """One SSE frame (JSON never contains a raw newline, so one ``data:`` line suffices)."""
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return f"event: {name}\ndata: {payload}\n\n".encode()


class StreamRegistry:
    """Open streams: at most ``limit`` at once, fewer for one client, all closed at shutdown.

    One client (as the rate limiter names it, ``api/server/ratelimit.py``) may hold at most
    :attr:`per_client` of the slots, so a program that opens streams in a loop leaves some for
    the tray, the CLI and Home Assistant.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.per_client = limit - max(1, limit // 8) if limit > 1 else limit
        self.closing = False
        self._open: dict[EventSubscription, str] = {}
        self._by_client: dict[str, int] = {}

    @property
    def count(self) -> int:
        """Streams open now."""
        return len(self._open)

    def admit(self, sub: EventSubscription, client: str = "") -> bool:
        """Register a new stream's subscription; False (and closed) when full or stopping."""
        held = self._by_client.get(client, 0)
        if self.closing or len(self._open) >= self.limit or held >= self.per_client:
            sub.close()
            return False
        self._open[sub] = client
        self._by_client[client] = held + 1
        return True

    def held_by(self, client: str) -> int:
        """Streams ``client`` holds now."""
        return self._by_client.get(client, 0)

    def release(self, sub: EventSubscription) -> None:
        """A stream ended."""
        client = self._open.pop(sub, None)
        if client is not None:
            left = self._by_client[client] - 1
            if left:
                self._by_client[client] = left
            else:
                del self._by_client[client]
        sub.close()

    def close_all(self) -> None:
        """End every stream (each sends ``close`` with reason ``shutdown``); admit no more."""
        self.closing = True
        for sub in list(self._open):
            sub.close()


class EventStreamResponse(StreamingResponse):
    """A streamed response that releases its stream slot however it ends.

    ``text/event-stream``, or NDJSON for Ollama's clients.
    """

    def __init__(
        self,
        body: AsyncIterator[bytes],
        registry: StreamRegistry,
        sub: EventSubscription,
        media_type: str = "text/event-stream",
        on_close: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        super().__init__(
            body,
            media_type=media_type,
            headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
        )
        self._registry = registry
        self._sub = sub
        self._on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Stream, then free the slot (also when the client disconnects)."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._registry.release(self._sub)
            if self._on_close is not None:
                await self._on_close()


async def event_stream(
    sub: EventSubscription,
    registry: StreamRegistry,
    config: ApiConfig,
    select: Selector,
) -> AsyncIterator[bytes]:
    """Frames for the events ``select`` keeps, until it marks one last or the stream ends."""
    yield b": ready\n\n"
    idle_s = config.sse_idle_timeout_s
    idle_deadline = time.monotonic() + idle_s
    while True:
        wait_s = min(config.sse_heartbeat_s, max(0.0, idle_deadline - time.monotonic()))
        try:
            event = await sub.get(timeout_s=wait_s)
        except TimeoutError:
            if time.monotonic() >= idle_deadline:
                yield frame("close", {"reason": "idle"})
                return
            yield b": ping\n\n"
            continue
        except StopAsyncIteration:
            yield frame("close", {"reason": "shutdown" if registry.closing else "closed"})
            return
        except AriaError as exc:  # SubscriberLaggedError
            yield frame("close", {"reason": "lagged", "code": exc.code, "message": exc.message})
            return
        selected = select(event)
        if selected is None:
            continue
        name, data, last = selected
        yield frame(name, data)
        if last:
            return
        idle_deadline = time.monotonic() + idle_s
