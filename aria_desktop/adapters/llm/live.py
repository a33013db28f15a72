"""``LiveRouter``: the model router that can be replaced while ARIA runs.

Changed model settings (``llm.*``: model, backends, fallback order) build a new ``Router``; the
composition root swaps it in here (ARCHITECTURE.md: settings applied live). A turn keeps the
router it started with: the first ``stream`` call in a task pins the router current at that
moment, in a context variable that the turn's later model calls (tool steps) and the tasks it
starts inherit, so a turn in flight finishes on the old settings while the next turn uses the
new ones. The pin is held until the task that made it ends; a replaced router is closed (its
HTTP clients with it) once no pin holds it and no stream reads from it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import weakref
from collections.abc import AsyncGenerator

from aria_desktop.adapters.llm.breaker import BreakerState
from aria_desktop.adapters.llm.router import ChatBackend, Router
from aria_desktop.domain.chat import ChatRequest, LLMChunk, ModelInfo

__all__ = ["LiveRouter"]

_LOGGER = logging.getLogger(__name__)


class LiveRouter:
    """A ``core.ports.ChatModel`` delegating to the current ``Router``, swappable at run time.

    Args:
        router: the router built from the settings at start.
    """

    def __init__(self, router: Router) -> None:
        self._current = router
        self._users: dict[int, int] = {}
        """Pins and open streams per router (by ``id``): a replaced one closes at 0."""
        self._retired: dict[int, Router] = {}
        self._closed: weakref.WeakSet[Router] = weakref.WeakSet()
        self._closing: set[asyncio.Task[None]] = set()
        self._pin: contextvars.ContextVar[Router | None] = contextvars.ContextVar(
            f"aria_live_router_{id(self)}", default=None
        )

    @property
    def current(self) -> Router:
        """The router new turns use."""
        return self._current

    async def swap(self, router: Router) -> None:
        """Use ``router`` for every turn that starts from now on.

        Turns in flight keep the old router; it is closed when the last of them ends (at once
        when none uses it).
        """
        old, self._current = self._current, router
        if old is router:
            return
        self._retired[id(old)] = old
        if not self._users.get(id(old)):
            await self._close(old)

    def stream(
        self, request: ChatRequest, *, agent: str = "chat", backend: str | None = None
    ) -> AsyncGenerator[LLMChunk, None]:
        """Stream through the router this turn started with (see the module docstring).

        The router is chosen here, synchronously in the caller's task, so the pin lands in the
        turn's own context rather than in a generator's.
        """
        return self._relay(self.for_turn(), request, agent=agent, backend=backend)

    def for_turn(self) -> Router:
        """The router of the calling task's turn, pinning the current one at its first call.

        A method added to ``Router`` that the core calls per turn (through
        ``core.ports.ChatModel``) delegates to this, so it agrees with the turn's ``stream``.
        """
        router = self._pin.get()
        if router is None or router in self._closed:
            router = self._current
            task = asyncio.current_task()
            if task is not None:
                self._pin.set(router)
                self._hold(router)
                task.add_done_callback(lambda _task: self._release(router))
        return router

    async def _relay(
        self, router: Router, request: ChatRequest, *, agent: str, backend: str | None
    ) -> AsyncGenerator[LLMChunk, None]:
        self._hold(router)
        try:
            async for chunk in router.stream(request, agent=agent, backend=backend):
                yield chunk
        finally:
            self._release(router)

    def _hold(self, router: Router) -> None:
        self._users[id(router)] = self._users.get(id(router), 0) + 1

    def _release(self, router: Router) -> None:
        left = self._users.get(id(router), 1) - 1
        if left:
            self._users[id(router)] = left
            return
        self._users.pop(id(router), None)
        if id(router) in self._retired:
            task = asyncio.get_running_loop().create_task(
                self._close(router), name="aria-router-close"
            )
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def _close(self, router: Router) -> None:
        self._retired.pop(id(router), None)
        if router in self._closed:
            return
        self._closed.add(router)
        try:
            await router.aclose()
        except Exception:
            _LOGGER.exception("Closing the replaced model router failed")

    async def closed(self) -> None:
        """Wait until every replaced router no longer in use has been closed."""
        while self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)

    # --- the router's read-only side, always of the current router ----------------------------

    def backend_names(self) -> list[str]:
        """Names of the current router's backends."""
        return self._current.backend_names()

    def backend(self, name: str) -> ChatBackend | None:
        """The current router's backend called ``name``, or None."""
        return self._current.backend(name)

    def chain(self, agent: str = "chat") -> tuple[str, ...]:
        """The current router's chain for ``agent``."""
        return self._current.chain(agent)

    def breaker_state(self, name: str) -> BreakerState:
        """The current router's breaker state of backend ``name``."""
        return self._current.breaker_state(name)

    async def list_models(self, name: str) -> list[ModelInfo]:
        """Models the current router's backend ``name`` offers."""
        return await self._current.list_models(name)

    def in_use(self) -> int:
        """Pins and open streams on any router (current or replaced), for tests."""
        return sum(self._users.values())

    async def aclose(self) -> None:
        """Close the current router and every replaced one still open."""
        await self.closed()
        for router in [*self._retired.values(), self._current]:
            await self._close(router)
