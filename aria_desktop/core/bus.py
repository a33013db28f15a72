"""The event bus: one publisher side, many subscribers, each with its own bounded queue.

Publishing never blocks and never waits for a subscriber, so a slow GUI or API client cannot
stall a turn. When a subscriber's queue is full, a ``lossy`` event (e.g. audio levels) is
dropped for that subscriber only; any other event closes that subscription with
``SubscriberLaggedError`` — a subscriber either sees every non-lossy event in order or learns
that it did not. Must be used from the event loop's thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable

from aria_desktop.core.ports import EventSubscription
from aria_desktop.domain.errors import SubscriberLaggedError
from aria_desktop.domain.events import Event

__all__ = ["EventBus", "Subscription"]

_LOGGER = logging.getLogger(__name__)

EventFilter = Callable[[Event], bool]


class Subscription(EventSubscription):
    """An async iterator over the events published after it was created.

    Use ``async with bus.subscribe() as sub: async for event in sub: ...`` or ``await
    sub.get(timeout_s)``. Iteration ends when the subscription is closed; it raises
    ``SubscriberLaggedError`` if the subscriber fell behind by more than ``maxsize`` events.
    """

    def __init__(self, bus: EventBus, *, maxsize: int, event_filter: EventFilter | None) -> None:
        self._bus = bus
        self._maxsize = maxsize
        self._filter = event_filter
        self._items: deque[Event] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._closed = False
        self._lagged = False
        self.dropped = 0
        """Number of lossy events dropped because the queue was full."""

    @property
    def closed(self) -> bool:
        """Whether no more events will be delivered."""
        return self._closed

    def _offer(self, event: Event) -> None:
        if self._closed or (self._filter is not None and not self._filter(event)):
            return
        if len(self._items) >= self._maxsize:
            if event.lossy:
                self.dropped += 1
                return
            _LOGGER.warning("Event subscriber lagged by %d events; closing it", self._maxsize)
            self._lagged = True
            self._items.clear()
            self.close()
            return
        self._items.append(event)
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def close(self) -> None:
        """Stop receiving events; pending ``get`` calls return/raise at once."""
        if not self._closed:
            self._closed = True
            self._bus._unsubscribe(self)
            self._wake()

    async def get(self, timeout_s: float | None = None) -> Event:
        """Next event; raises ``StopAsyncIteration`` once closed and drained, or TimeoutError."""
        async with asyncio.timeout(timeout_s):
            while not self._items:
                if self._lagged:
                    raise SubscriberLaggedError(
                        "This event stream fell too far behind and was closed.",
                        hint="Reconnect to resume from the current state.",
                    )
                if self._closed:
                    raise StopAsyncIteration
                self._waiter = asyncio.get_running_loop().create_future()
                try:
                    await self._waiter
                finally:
                    self._waiter = None
            return self._items.popleft()


class EventBus:
    """Fan-out of events to subscribers.

    Args:
        default_maxsize: per-subscriber queue bound, in events.
    """

    def __init__(self, *, default_maxsize: int = 10_000) -> None:
        self._default_maxsize = default_maxsize
        self._subscribers: list[Subscription] = []

    def subscribe(
        self, *, maxsize: int | None = None, event_filter: EventFilter | None = None
    ) -> Subscription:
        """A new subscription receiving events published from now on (matching the filter)."""
        sub = Subscription(
            self, maxsize=maxsize or self._default_maxsize, event_filter=event_filter
        )
        self._subscribers.append(sub)
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        with contextlib.suppress(ValueError):
            self._subscribers.remove(sub)

    @property
    def subscriber_count(self) -> int:
        """How many subscriptions are open."""
        return len(self._subscribers)

    def publish(self, event: Event) -> None:
        """Deliver ``event`` to every subscriber's queue; never blocks."""
        for sub in tuple(self._subscribers):
            sub._offer(event)

    def close(self) -> None:
        """Close every subscription (on shutdown)."""
        for sub in tuple(self._subscribers):
            sub.close()
