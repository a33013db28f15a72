"""Model warm-up: load the local model in the background at start and after the machine wakes.

A cold model load takes seconds; without a warm-up it falls on the first command after ARIA
starts or the laptop resumes. ``ModelWarmUp`` runs the load the composition root hands it (for
Ollama a load request with ``keep_alive``), publishes ``model-status`` (loading, ready with the
load time, failed with the hint) and answers the "model" capability, so the tray shows
"loading model…" and the API's ``/capabilities`` the same. A failure is a status, never a crash;
a turn during the load simply waits on the server's own load.

Waking from sleep is seen without any OS API: the monotonic clock stops while the machine
sleeps and the wall clock does not, so a small periodic check that finds the wall clock ahead
of the monotonic one by more than ``jump_s`` starts a new warm-up (ARCHITECTURE.md: settings
applied live).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aria_desktop.core.bus import EventBus
from aria_desktop.core.ports import Clock
from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.events import ThinkEnd
from aria_desktop.domain.settings_events import ModelLoadState, ModelStatus

__all__ = ["ModelTarget", "ModelWarmUp"]

_LOGGER = logging.getLogger(__name__)

Loader = Callable[[], Awaitable[None]]


@dataclass(frozen=True, kw_only=True)
class ModelTarget:
    """What to warm up: the chat chain's local backend and model, and how to load it.

    ``load`` None means the backend needs no warm-up (a cloud API, an OpenAI-compatible
    server that loads its one model at its own start). ``missing`` says, in plain words, why
    no backend of the chain is set up at all (a cloud model without its key): then nothing can
    answer before the first question is even asked, and the "model" capability says so.
    """

    backend: str
    model: str
    load: Loader | None
    missing: str = ""


class ModelWarmUp:
    """Loads the local model in the background and reports its load state.

    Args:
        bus: where ``model-status`` events go.
        clock: measures load time and detects sleep (monotonic vs wall clock).
        target: the model to load (None: nothing to warm up).
        check_s: how often the sleep check runs, seconds.
        jump_s: a wall-clock lead over the monotonic clock larger than this means the machine
            slept, seconds.
        sleep: waits between checks (injectable for tests).
    """

    def __init__(
        self,
        *,
        bus: EventBus,
        clock: Clock,
        target: ModelTarget | None,
        check_s: float = 5.0,
        jump_s: float = 30.0,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self._bus, self._clock, self._target = bus, clock, target
        self._check_s, self._jump_s, self._sleep = check_s, jump_s, sleep
        self._state: ModelLoadState | None = None
        self._error, self._hint, self._load_ms = "", "", 0.0
        self._task: asyncio.Task[None] | None = None
        self._spawn: Callable[[Awaitable[None], str], asyncio.Task[None]] | None = None

    @property
    def state(self) -> ModelLoadState | None:
        """The last load state (None: nothing was loaded yet or there is nothing to load)."""
        return self._state

    @property
    def target(self) -> ModelTarget | None:
        """The model being kept warm."""
        return self._target

    @property
    def load_ms(self) -> float:
        """How long the last finished load took, milliseconds."""
        return self._load_ms

    def capability(self) -> CapabilityStatus:
        """The "model" capability: which model, and whether it is loading or failed to load."""
        target = self._target
        if target is None:
            return CapabilityStatus(name="model", available=True)
        label = f"{target.model} ({target.backend})"
        if target.missing:
            return CapabilityStatus(name="model", available=False, reason=target.missing)
        if self._state == "failed":
            reason = f"Model {label} could not be loaded: {self._error} {self._hint}".strip()
            return CapabilityStatus(name="model", available=False, reason=reason)
        if self._state == "loading":
            return CapabilityStatus(name="model", available=True, reason=f"loading model {label}…")
        if self._state == "ready":
            took = f" in {self._load_ms / 1000:.1f} s" if self._load_ms else ""
            reason = f"model {label} loaded{took}"
            return CapabilityStatus(name="model", available=True, reason=reason)
        return CapabilityStatus(name="model", available=True, reason=f"model {label}")

    def start(self, spawn: Callable[[Awaitable[None], str], asyncio.Task[None]]) -> None:
        """Warm up now and after every wake from sleep, in tasks made by ``spawn``."""
        self._spawn = spawn
        self.trigger("start")
        spawn(self._watch_sleep(), "aria-model-wake-watch")
        spawn(self._follow_replies(), "aria-model-replies")

    def retarget(self, target: ModelTarget | None) -> None:
        """Keep ``target`` warm from now on, loading it at once when it is a different model."""
        old, self._target = self._target, target
        if target is None:
            self._state = None
            return
        if old is None or (old.backend, old.model) != (target.backend, target.model):
            self._state = None
            self.trigger("settings")

    def trigger(self, trigger: str) -> asyncio.Task[None] | None:
        """Start a load in the background (the running one, if a load is already under way)."""
        if self._task is not None and not self._task.done():
            return self._task
        target = self._target
        if target is None or target.load is None or self._spawn is None:
            return None
        self._task = self._spawn(self._load(target, target.load, trigger), "aria-model-warm-up")
        return self._task

    async def settled(self) -> None:
        """Wait for the load under way, if any (``aria doctor`` and tests read the result)."""
        task = self._task
        if task is not None and not task.done():
            await asyncio.shield(task)

    async def _load(self, target: ModelTarget, load: Loader, trigger: str) -> None:
        self._state = "loading"
        self._publish(target, "loading", trigger)
        started = self._clock.monotonic()
        try:
            await load()
        except AriaError as exc:
            self._load_ms = (self._clock.monotonic() - started) * 1000
            self._state, self._error, self._hint = "failed", exc.message, exc.hint
            _LOGGER.warning("Model %s was not loaded: %s", target.model, exc.message)
            self._publish(target, "failed", trigger, failure=exc)
            return
        self._load_ms = (self._clock.monotonic() - started) * 1000
        self._state, self._error, self._hint = "ready", "", ""
        _LOGGER.info("Model %s loaded in %.1f s (%s)", target.model, self._load_ms / 1000, trigger)
        self._publish(target, "ready", trigger)

    def _publish(
        self,
        target: ModelTarget,
        status: ModelLoadState,
        trigger: str,
        *,
        failure: AriaError | None = None,
    ) -> None:
        self._bus.publish(
            ModelStatus(
                status=status,
                backend=target.backend,
                model=target.model,
                trigger=trigger,
                load_ms=self._load_ms if status != "loading" else 0.0,
                code=failure.code if failure is not None else "",
                error=failure.message if failure is not None else "",
                hint=failure.hint if failure is not None else "",
            )
        )

    def slept(self, last: tuple[float, float]) -> tuple[bool, tuple[float, float]]:
        """Whether the machine slept since ``last`` = (monotonic, wall), and the new pair."""
        now = (self._clock.monotonic(), self._clock.time())
        lead = (now[1] - last[1]) - (now[0] - last[0])
        return lead > self._jump_s, now

    async def _follow_replies(self) -> None:
        """A reply from the model proves it loads (e.g. pulled after a failed warm-up)."""
        sub = self._bus.subscribe(event_filter=lambda event: isinstance(event, ThinkEnd))
        try:
            async for event in sub:
                target = self._target
                if target is None or self._state != "failed" or not isinstance(event, ThinkEnd):
                    continue
                names = (target.model, f"{target.model}:latest")
                if event.backend == target.backend and event.model in names:
                    self._state, self._error, self._hint = "ready", "", ""
                    self._load_ms = 0.0  # not timed: it loaded for the reply
                    self._publish(target, "ready", "reply")
        finally:
            sub.close()

    async def _watch_sleep(self) -> None:
        last = (self._clock.monotonic(), self._clock.time())
        while True:
            await self._sleep(self._check_s)
            woke, last = self.slept(last)
            if woke:
                _LOGGER.info("The computer woke from sleep: loading the model again")
                self.trigger("wake")
