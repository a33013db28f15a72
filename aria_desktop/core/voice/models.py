"""Loading the voice models in the background, with progress events and readiness.

The capture loop needs the wake word detector and the VAD first; speech-to-text and
text-to-speech follow while ARIA already waits for the wake word. Loading one model at a time
keeps a two-core machine responsive. Each component gets a future: parts of the pipeline wait
for the component they need, and a load failure is reported once (``voice-load-end`` with the
error, plus an ``error`` event) and re-raised to every waiter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol

from aria_desktop.core.bus import EventBus
from aria_desktop.core.ports import Clock
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.events import ErrorEvent
from aria_desktop.domain.voice_events import VoiceLoadEnd, VoiceLoadStart

__all__ = ["Loadable", "VoiceModels"]


class Loadable(Protocol):
    """A model that loads once before use (wake word, VAD, STT, TTS engines)."""

    async def load(self) -> None: ...


class VoiceModels:
    """The load state of each voice component (``wake``, ``vad``, ``stt``, ``tts``).

    Args:
        bus: where ``voice-load-start``/``voice-load-end`` and load errors are published.
        clock: measures each load's latency.
    """

    def __init__(self, *, bus: EventBus, clock: Clock) -> None:
        self._bus = bus
        self._clock = clock
        self._loaded: dict[str, asyncio.Future[None]] = {}
        self.errors: dict[str, str] = {}
        """Why a component failed to load, by component."""

    def expect(self, components: Sequence[str]) -> None:
        """Create the futures that waiters of ``components`` wait on (call before loading)."""
        loop = asyncio.get_running_loop()
        for component in components:
            self._loaded[component] = loop.create_future()

    async def load_all(self, loaders: Sequence[tuple[str, Loadable]]) -> None:
        """Load each ``(component, engine)`` in order, publishing progress."""
        for component, engine in loaders:
            await self._load(component, engine)

    async def _load(self, component: str, engine: Loadable) -> None:
        name = str(getattr(engine, "name", type(engine).__name__))
        self._bus.publish(VoiceLoadStart(component=component, model=name))
        started = self._clock.monotonic()
        future = self._loaded[component]
        try:
            await engine.load()
        except AriaError as exc:
            self.errors[component] = exc.message
            latency_ms = (self._clock.monotonic() - started) * 1000
            self._bus.publish(
                VoiceLoadEnd(
                    component=component,
                    model=name,
                    ok=False,
                    error=exc.message,
                    latency_ms=latency_ms,
                )
            )
            self._bus.publish(ErrorEvent(code=exc.code, message=exc.message, hint=exc.hint))
            if not future.done():
                future.set_exception(exc)
                future.exception()  # retrieved: waiters re-raise it themselves
            return
        latency_ms = (self._clock.monotonic() - started) * 1000
        self._bus.publish(VoiceLoadEnd(component=component, model=name, latency_ms=latency_ms))
        if not future.done():
            future.set_result(None)

    def problem(self, *, wake: bool) -> str:
        """Why voice cannot be used yet: a load failure, or models still loading ("": none)."""
        if self.errors:
            return "; ".join(f"{k}: {v}" for k, v in sorted(self.errors.items()))
        if not self.ready("vad") or (wake and not self.ready("wake")):
            return "voice models are still loading"
        return ""

    def ready(self, component: str) -> bool:
        """Whether ``component`` has loaded successfully."""
        future = self._loaded.get(component)
        return future is not None and future.done() and future.exception() is None

    async def wait_loaded(self, component: str) -> None:
        """Wait for ``component`` (at once if it is not being loaded); raises its failure."""
        future = self._loaded.get(component)
        if future is not None:
            await asyncio.shield(future)

    async def wait_all(self) -> None:
        """Wait for every expected component; raises the first failure."""
        for component in list(self._loaded):
            await self.wait_loaded(component)
