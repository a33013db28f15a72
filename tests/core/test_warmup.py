"""Model warm-up (``core/warmup.py``): a load at start, again when the clocks show the machine
slept (the wall clock jumped ahead of the monotonic clock, injected through the clock port),
and a failed load as a clear "model" status with the hint, never an exception."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from aria_desktop.core.bus import EventBus, Subscription
from aria_desktop.core.warmup import ModelTarget, ModelWarmUp
from aria_desktop.domain.errors import ModelNotFoundError
from aria_desktop.domain.events import ThinkEnd
from aria_desktop.domain.settings_events import ModelStatus


class SleepClock:
    """Both clocks of the ``Clock`` port, moved by the test; ``sleep_for`` jumps only the wall."""

    def __init__(self) -> None:
        self.mono = 100.0
        self.wall = 1_700_000_000.0

    def monotonic(self) -> float:
        return self.mono

    def time(self) -> float:
        return self.wall

    def tick(self, seconds: float) -> None:
        self.mono += seconds
        self.wall += seconds


class Rig:
    """The warm-up with a loader the test counts and a check loop the test steps."""

    def __init__(self, *, fail: bool = False) -> None:
        self.bus = EventBus()
        self.clock = SleepClock()
        self.loads = 0
        self.fail = fail
        self.ticks: asyncio.Queue[None] = asyncio.Queue()
        self.checked: asyncio.Queue[None] = asyncio.Queue()
        self.tasks: list[asyncio.Task[None]] = []
        self.warm_up = ModelWarmUp(
            bus=self.bus,
            clock=self.clock,
            target=ModelTarget(backend="ollama", model="llama3.2:3b", load=self.load),
            check_s=5.0,
            jump_s=30.0,
            sleep=self.sleep,
        )

    async def load(self) -> None:
        self.loads += 1
        self.clock.tick(2.4)  # the load takes 2.4 s on the monotonic clock
        if self.fail:
            raise ModelNotFoundError(
                "ollama: HTTP 404: model 'llama3.2:3b' not found",
                hint="Pull the model with `ollama pull llama3.2:3b`.",
            )

    async def sleep(self, _seconds: float) -> None:
        await self.checked.put(None)
        await self.ticks.get()

    def spawn(self, coro: Awaitable[None], name: str) -> asyncio.Task[None]:
        async def run() -> None:
            await coro

        task = asyncio.create_task(run(), name=name)
        self.tasks.append(task)
        return task

    async def step(self) -> None:
        """Let the sleep check run once more and wait until it is waiting again."""
        await self.ticks.put(None)
        await asyncio.wait_for(self.checked.get(), timeout=5)

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def _statuses(sub: Subscription, count: int) -> list[ModelStatus]:
    seen: list[ModelStatus] = []
    async with asyncio.timeout(5):
        async for event in sub:
            if isinstance(event, ModelStatus):
                seen.append(event)
                if len(seen) == count:
                    return seen
    return seen


async def test_loads_at_start_and_again_after_the_machine_woke() -> None:
    rig = Rig()
    sub = rig.bus.subscribe()
    try:
        rig.warm_up.start(rig.spawn)
        start = await _statuses(sub, 2)
        assert [(s.status, s.trigger) for s in start] == [("loading", "start"), ("ready", "start")]
        assert round(start[1].load_ms) == 2400
        assert rig.warm_up.capability().reason == "model llama3.2:3b (ollama) loaded in 2.4 s"
        await asyncio.wait_for(rig.checked.get(), timeout=5)  # the sleep check waits
        rig.clock.tick(5.0)  # an ordinary check: both clocks moved alike
        await rig.step()
        assert rig.loads == 1
        rig.clock.tick(5.0)
        rig.clock.wall += 3600.0  # an hour asleep: the monotonic clock stood still
        await rig.ticks.put(None)
        woke = await _statuses(sub, 2)
        assert [(s.status, s.trigger) for s in woke] == [("loading", "wake"), ("ready", "wake")]
        assert rig.loads == 2
    finally:
        sub.close()
        await rig.close()


async def test_a_failed_load_is_a_status_with_the_hint() -> None:
    rig = Rig(fail=True)
    sub = rig.bus.subscribe()
    try:
        rig.warm_up.start(rig.spawn)
        loading, failed = await _statuses(sub, 2)
        assert loading.status == "loading"
        assert failed.status == "failed"
        assert "ollama pull llama3.2:3b" in failed.hint
        status = rig.warm_up.capability()
        assert status.available is False
        assert "ollama pull llama3.2:3b" in status.reason
        assert rig.warm_up.state == "failed"
        # The user pulled the model; the next reply from it clears the failure.
        rig.bus.publish(ThinkEnd(backend="ollama", model="llama3.2:3b"))
        (ready,) = await _statuses(sub, 1)
        assert (ready.status, ready.trigger) == ("ready", "reply")
        assert rig.warm_up.capability().available is True
    finally:
        sub.close()
        await rig.close()


async def test_a_second_trigger_during_a_load_joins_it() -> None:
    rig = Rig()
    try:
        rig.warm_up.start(rig.spawn)
        first = rig.warm_up.trigger("wake")
        second = rig.warm_up.trigger("wake")
        assert first is second is not None
        await rig.warm_up.settled()
        assert rig.loads == 1
    finally:
        await rig.close()


def test_nothing_to_load_for_a_server_that_loads_its_own_model() -> None:
    warm_up = ModelWarmUp(
        bus=EventBus(),
        clock=SleepClock(),
        target=ModelTarget(backend="openai", model="smollm2", load=None),
    )
    assert warm_up.trigger("start") is None
    assert warm_up.capability().reason == "model smollm2 (openai)"


def test_a_chain_with_no_backend_set_up_is_no_model_before_any_question() -> None:
    reason = "No model is set up yet. The Claude cloud model needs an API key."
    warm_up = ModelWarmUp(
        bus=EventBus(),
        clock=SleepClock(),
        target=ModelTarget(backend="anthropic", model="claude", load=None, missing=reason),
    )
    assert warm_up.trigger("start") is None
    status = warm_up.capability()
    assert not status.available
    assert status.reason == reason
