"""The deadlines of one streamed reply, enforced read by read.

Why we enforce our own timeouts: Ollama has none, and an HTTP read timeout cannot tell "the
model is still loading" (first token) from "the stream hung" (stall) from "this reply is taking
forever" (total). ``StreamTimer`` tracks the phases and puts an ``asyncio`` deadline around every
read, so a hung server turns into an ``LLMTimeoutError`` naming the phase. Pure asyncio: the
Anthropic adapter, whose SDK brings its own transport, uses it too.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable
from dataclasses import dataclass
from typing import TypeVar

from aria_desktop.domain.errors import LLMTimeoutError

__all__ = ["StreamTimer", "Timeouts"]

_T = TypeVar("_T")


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
