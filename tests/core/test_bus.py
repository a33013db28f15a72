from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import ClassVar

import pytest

from aria_desktop.core.bus import EventBus
from aria_desktop.domain.errors import SubscriberLaggedError
from aria_desktop.domain.events import Event, LlmDelta


@dataclass(frozen=True, kw_only=True)
class _Level(Event):
    type: ClassVar[str] = "audio-level"
    lossy: ClassVar[bool] = True
    rms: float


async def test_every_subscriber_receives_events_in_order() -> None:
    bus = EventBus()
    first, second = bus.subscribe(), bus.subscribe()
    for i in range(5):
        bus.publish(LlmDelta(text=str(i)))
    for sub in (first, second):
        got = [await sub.get(timeout_s=1) for _ in range(5)]
        assert [e.text for e in got if isinstance(e, LlmDelta)] == ["0", "1", "2", "3", "4"]


async def test_subscriber_only_sees_events_after_subscribing() -> None:
    bus = EventBus()
    bus.publish(LlmDelta(text="early"))
    sub = bus.subscribe()
    bus.publish(LlmDelta(text="late"))
    event = await sub.get(timeout_s=1)
    assert isinstance(event, LlmDelta)
    assert event.text == "late"


async def test_full_queue_drops_lossy_events_but_keeps_the_subscription() -> None:
    bus = EventBus()
    sub = bus.subscribe(maxsize=2)
    bus.publish(LlmDelta(text="a"))
    bus.publish(LlmDelta(text="b"))
    bus.publish(_Level(rms=0.5))
    assert sub.dropped == 1
    assert not sub.closed


async def test_lagging_subscriber_is_closed_with_an_error_and_others_continue() -> None:
    bus = EventBus()
    slow = bus.subscribe(maxsize=3)
    fast = bus.subscribe()
    for i in range(4):
        bus.publish(LlmDelta(text=str(i)))
    with pytest.raises(SubscriberLaggedError):
        await slow.get(timeout_s=1)
    assert bus.subscriber_count == 1
    assert [(await fast.get(timeout_s=1)).to_dict()["text"] for _ in range(4)] == list("0123")


async def test_closing_wakes_a_waiting_iterator() -> None:
    bus = EventBus()
    sub = bus.subscribe()

    async def consume() -> list[Event]:
        return [event async for event in sub]

    task = asyncio.create_task(consume())
    await asyncio.sleep(0)
    bus.publish(LlmDelta(text="x"))
    await asyncio.sleep(0)
    bus.close()
    got = await asyncio.wait_for(task, 1)
    assert len(got) == 1


async def test_filtered_subscription_gets_only_matching_events() -> None:
    bus = EventBus()
    sub = bus.subscribe(event_filter=lambda e: e.run_id == "r1")
    bus.publish(LlmDelta(run_id="r2", text="no"))
    bus.publish(LlmDelta(run_id="r1", text="yes"))
    event = await sub.get(timeout_s=1)
    assert event.run_id == "r1"


def test_event_to_dict_has_kebab_type_and_fields() -> None:
    data = LlmDelta(run_id="r", text="hi", ts=1.0).to_dict()
    assert data == {"type": "llm-delta", "run_id": "r", "ts": 1.0, "text": "hi"}
