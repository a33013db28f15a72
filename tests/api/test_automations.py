"""Automations end to end: webhook -> turn -> result POSTed to a receiver (a real HTTP server);
schedules fired by an injected clock; templates."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest

from aria_desktop.core.automations import AutomationEngine, render_prompt
from aria_desktop.domain.automation import AutomationSpec
from aria_desktop.domain.automation_events import AutomationEnd, AutomationStart
from aria_desktop.domain.errors import AutomationError, ConfigError
from aria_desktop.domain.events import Event
from tests.api.conftest import Api
from tests.fakes import FakeOllama
from tests.fakes.http_server import FakeHTTPServer, json_reply
from tests.fakes.ollama_server import ollama_text


class Receiver(FakeHTTPServer):
    """Stands in for a Home Assistant webhook."""

    def __init__(self) -> None:
        super().__init__()
        self.routes[("POST", "/api/webhook/aria")] = lambda r: json_reply(200, {})


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as server:
        yield server


@pytest.fixture
def automations(receiver: Receiver) -> list[AutomationSpec]:
    return [
        AutomationSpec(
            name="doorbell",
            prompt="Someone rang: {visitor.name}. Greet them in {lang}.",
            post_url=f"{receiver.url}/api/webhook/aria",
            notify=True,
        ),
        AutomationSpec(name="diary", prompt="Add to my diary.", conversation="shared"),
        AutomationSpec(name="misdirected", prompt="p", post_url=f"{receiver.url}/nowhere"),
        AutomationSpec(
            name="nightly", prompt="Nightly summary.", schedule="0 3 * * *", webhook=False
        ),
    ]


async def _until(sub: Any, kind: type[Event], timeout_s: float = 10.0) -> Event:
    async with asyncio.timeout(timeout_s):
        async for event in sub:
            if isinstance(event, kind):
                return event
    raise AssertionError("stream ended")


async def test_webhook_runs_the_prompt_and_posts_the_result(
    api: Api, ollama: FakeOllama, receiver: Receiver
) -> None:
    ollama.script("/api/chat", ollama_text("Hello Ada!"))
    sub = api.orchestrator.bus.subscribe()
    response = await api.client.post(
        "/api/v1/hooks/doorbell", json={"visitor": {"name": "Ada"}, "lang": "English"}
    )
    assert response.status_code == 202
    run = response.json()
    start = await _until(sub, AutomationStart)
    end = await _until(sub, AutomationEnd)
    sub.close()
    assert isinstance(start, AutomationStart)
    assert (start.name, start.trigger, start.run_id) == ("doorbell", "webhook", run["run_id"])
    assert isinstance(end, AutomationEnd)
    assert (end.status, end.result, end.notify, end.delivery_error) == (
        "complete",
        "Hello Ada!",
        True,
        "",
    )
    sent = ollama.requests_to("/api/chat")[0].json()["messages"][-1]
    assert sent["content"] == "Someone rang: Ada. Greet them in English."
    posted = receiver.requests_to("/api/webhook/aria")[0].json()
    assert posted["automation"] == "doorbell"
    assert posted["result"] == "Hello Ada!"
    assert posted["status"] == "complete"


async def test_webhook_with_a_missing_field_is_422_and_runs_nothing(
    api: Api, ollama: FakeOllama
) -> None:
    response = await api.client.post("/api/v1/hooks/doorbell", json={"lang": "French"})
    assert response.status_code == 422
    assert "visitor.name" in response.json()["error"]["message"]
    assert ollama.requests_to("/api/chat") == []


async def test_unknown_or_schedule_only_automation_is_404(api: Api) -> None:
    assert (await api.client.post("/api/v1/hooks/nope", json={})).status_code == 404
    assert (await api.client.post("/api/v1/hooks/nightly", json={})).status_code == 404


async def test_shared_conversation_collects_every_run(api: Api, ollama: FakeOllama) -> None:
    ollama.script("/api/chat", ollama_text("Noted 1."), ollama_text("Noted 2."))
    sub = api.orchestrator.bus.subscribe()
    first = (await api.client.post("/api/v1/hooks/diary")).json()
    await _until(sub, AutomationEnd)
    second = (await api.client.post("/api/v1/hooks/diary")).json()
    await _until(sub, AutomationEnd)
    sub.close()
    assert first["conversation_id"] == second["conversation_id"]
    conversation = await api.store.get_conversation(first["conversation_id"])
    assert conversation is not None
    assert conversation.title == "Automation: diary"


async def test_refused_delivery_is_reported_not_raised(api: Api, ollama: FakeOllama) -> None:
    ollama.script("/api/chat", ollama_text("Result."))
    sub = api.orchestrator.bus.subscribe()
    assert (await api.client.post("/api/v1/hooks/misdirected")).status_code == 202
    end = await _until(sub, AutomationEnd)
    sub.close()
    assert isinstance(end, AutomationEnd)
    assert end.status == "complete"
    assert "HTTP 404" in end.delivery_error
    assert "/nowhere" not in end.delivery_error  # webhook paths are secrets of a kind


class _FreshOrchestrator:
    """The fixture's orchestrator, with a fresh command table for a second engine."""

    def __init__(self, api: Api) -> None:
        self._o = api.orchestrator

    def register_command(self, *_args: Any) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._o, name)


async def test_automations_listed_over_the_api(api: Api) -> None:
    listed = (await api.client.get("/api/v1/automations")).json()
    assert [a["name"] for a in listed] == ["diary", "doorbell", "misdirected", "nightly"]
    assert listed[3]["schedule"] == "0 3 * * *"


class StepClock:
    """Wall clock moved by the scheduler's own sleeps."""

    def __init__(self, start: dt.datetime) -> None:
        self.now = start.timestamp()
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if sum(self.sleeps) >= 90:  # past the first run: hold the scheduler there
            await asyncio.Event().wait()
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


async def test_schedule_fires_at_its_minute(api: Api, ollama: FakeOllama) -> None:
    clock = StepClock(dt.datetime(2026, 11, 20, 2, 58, 30))
    spec = AutomationSpec(name="nightly2", prompt="Summarise.", schedule="0 3 * * *")
    engine = AutomationEngine(_FreshOrchestrator(api), [spec], clock=clock, sleep=clock.sleep)  # type: ignore[arg-type]
    ollama.script("/api/chat", ollama_text("All quiet."))
    sub = api.orchestrator.bus.subscribe()
    engine.start()
    start = await _until(sub, AutomationStart)
    end = await _until(sub, AutomationEnd)
    sub.close()
    assert isinstance(start, AutomationStart)
    assert start.trigger == "schedule"
    assert dt.datetime.fromtimestamp(clock.now) == dt.datetime(2026, 11, 20, 3, 0)
    assert clock.sleeps == [30.0, 30.0, 30.0]  # re-reads the wall clock every 30 s
    assert isinstance(end, AutomationEnd)
    assert end.result == "All quiet."


def test_render_prompt() -> None:
    payload = {"a": {"b": [10, {"c": "deep"}]}, "n": 3, "s": "text"}
    assert render_prompt("{s} {n} {a.b.1.c} {{literal}}", payload) == "text 3 deep {literal}"
    assert json.loads(render_prompt("{body}", payload)) == payload
    with pytest.raises(AutomationError, match="'missing'"):
        render_prompt("{missing}", payload, name="x")


def test_invalid_automations_are_config_errors(api: Api) -> None:
    fresh = _FreshOrchestrator(api)
    with pytest.raises(ConfigError, match="cron"):
        AutomationEngine(fresh, [AutomationSpec(name="a", prompt="p", schedule="61 * * * *")])  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="no schedule"):
        AutomationEngine(fresh, [AutomationSpec(name="a", prompt="p", webhook=False)])  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="Two automations"):
        AutomationEngine(fresh, [AutomationSpec(name="a", prompt="p")] * 2)  # type: ignore[arg-type]
