"""``ApiSubscription``: the events of a running ARIA, from ``GET /api/v1/events``.

A subscription connects in the background; ``ApiClient.start_turn`` (and every operation marked
``after_streams``) first waits until each open subscription is connected, so a caller that
subscribes and then starts a turn sees all of its events, as in-process. Streams the server
closes for idleness are reopened transparently.

``ApiClient.subscribe`` imports this module on first use, not the client module: the protocol
it implements (``core.ports``) and the event classes it decodes (``domain.events``) are only
needed by a subscriber, and a command such as ``aria memory search`` through a running owner
never subscribes (ARCHITECTURE.md: start-up cost).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx

from aria_desktop.api.client.errors import error_from, unreachable
from aria_desktop.api.client.operations.base import API_PREFIX
from aria_desktop.core.ports import EventSubscription
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.event_wire import event_from_dict
from aria_desktop.domain.events import AssistantState, Event, StateChanged

if TYPE_CHECKING:
    from aria_desktop.api.client.transport import ApiTransport

__all__ = ["ApiSubscription"]

_LOGGER = logging.getLogger(__name__)
_READY_TIMEOUT_S = 5.0


class _End:
    """Queue marker: the subscription ended."""


_END = _End()


class ApiSubscription(EventSubscription):
    """Events from ``GET /api/v1/events``, as a ``core.ports.EventSubscription``.

    Created by :meth:`ApiClient.subscribe` (needs a running event loop). It is one of the
    transport's open streams from here until it ends, so state-changing calls wait for it to
    connect; ``on_state`` hears every state-changed event (the client's last known state).
    """

    def __init__(
        self,
        transport: ApiTransport,
        *,
        on_state: Callable[[AssistantState], None],
        types: frozenset[str] | None = None,
    ) -> None:
        self._transport = transport
        self._on_state = on_state
        self._types = types
        self._queue: asyncio.Queue[Event | _End] = asyncio.Queue()
        self._ready = asyncio.Event()
        self._error: AriaError | None = None
        self._closed = False
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name="aria-api-event-stream"
        )
        transport.streams.add(self)

    @property
    def closed(self) -> bool:
        """Whether no more events will come."""
        return self._closed

    async def wait_ready(self, timeout_s: float = _READY_TIMEOUT_S) -> bool:
        """Wait until the stream is connected; False if it is not within ``timeout_s``."""
        try:
            async with asyncio.timeout(timeout_s):
                await self._ready.wait()
        except TimeoutError:
            return False
        return not self._closed

    async def _run(self) -> None:
        try:
            while not self._closed:
                reason = await self._stream_once()
                if reason != "idle":
                    break
                self._ready.clear()
        except AriaError as exc:
            self._error = exc
        except httpx.HTTPError as exc:
            if not self._closed:
                self._error = unreachable(self._transport.base_url, exc)
        finally:
            self._closed = True
            self._ready.set()
            self._transport.streams.discard(self)
            self._queue.put_nowait(_END)

    async def _stream_once(self) -> str:
        """Read one SSE connection; returns the server's close reason ("" if it just ended)."""
        params = {"types": ",".join(sorted(self._types))} if self._types else None
        timeout = httpx.Timeout(10.0, read=None)
        async with self._transport.http.stream(
            "GET", f"{API_PREFIX}/events", params=params, timeout=timeout
        ) as response:
            if response.status_code != 200:
                await response.aread()
                if response.status_code == 401 and self._transport.reload_token():
                    return "idle"  # reconnect with the new token
                raise error_from(response)
            name = ""
            async for line in response.aiter_lines():
                if line == ": ready":
                    self._ready.set()
                elif line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data = json.loads(line[6:])
                    if name == "close":
                        return str(data.get("reason", ""))
                    self._deliver(data)
        return ""

    def _deliver(self, data: dict[str, Any]) -> None:
        try:
            event = event_from_dict(data)
        except ValueError:
            _LOGGER.debug("Skipping an event this version does not know: %s", data.get("type"))
            return
        if isinstance(event, StateChanged):
            self._on_state(event.state)
        self._queue.put_nowait(event)

    async def get(self, timeout_s: float | None = None) -> Event:
        """Next event; StopAsyncIteration once closed, TimeoutError after ``timeout_s``."""
        async with asyncio.timeout(timeout_s):
            item = await self._queue.get()
        if isinstance(item, _End):
            self._queue.put_nowait(item)  # later calls end too
            if self._error is not None:
                error, self._error = self._error, None
                raise error
            raise StopAsyncIteration
        return item

    def close(self) -> None:
        """Stop receiving (idempotent)."""
        if not self._closed:
            self._closed = True
            self._task.cancel()
