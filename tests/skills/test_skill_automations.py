"""Timer and reminder events start automations and reach Home Assistant's webhooks.

The composed ARIA (real timers, reminders, SQLite, scheduler on the real clock) with the
automation engine attached as the daemon attaches it; the receiver is a real HTTP server
standing in for a Home Assistant webhook trigger. Every wait is on an event, never on time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.webhooks.outgoing import HttpResultSender
from aria_desktop.compose.app import App, build_app
from aria_desktop.compose.owner import automation_specs
from aria_desktop.core.automations import AutomationEngine
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.skills.when import When
from aria_desktop.doctor.api import check_api
from aria_desktop.domain.automation import AutomationSpec
from aria_desktop.domain.automation_events import AutomationEnd
from aria_desktop.domain.errors import AutomationError, ConfigError
from aria_desktop.settings import load_settings
from tests.fakes import FakeOllama
from tests.fakes.http_server import FakeHTTPServer, json_reply
from tests.fakes.ollama_server import ollama_text
from tests.skills.conftest import no_model_settings
from tests.skills.test_reminders_app import _move_due, _reminders, _state

HOOK = "/api/webhook/aria_event"


class HomeAssistantHook(FakeHTTPServer):
    """Stands in for a Home Assistant webhook trigger."""

    def __init__(self) -> None:
        super().__init__()
        self.routes[("POST", HOOK)] = lambda r: json_reply(200, {})


@pytest.fixture
def hook() -> Iterator[HomeAssistantHook]:
    with HomeAssistantHook() as server:
        yield server


class Attached:
    """Attaches an automation engine the way the daemon does: before the skills start."""

    def __init__(self, *specs: AutomationSpec) -> None:
        self.specs = specs
        self.sender = HttpResultSender()
        self.engine: AutomationEngine | None = None

    def __call__(self, orchestrator: Orchestrator) -> None:
        self.engine = AutomationEngine(orchestrator, self.specs, sender=self.sender)

    def start(self) -> None:
        assert self.engine is not None
        self.engine.start()

    async def stop(self) -> None:
        if self.engine is not None:
            await self.engine.stop()
        await self.sender.aclose()


async def _ended(app: App, attached: Attached) -> AutomationEnd:
    """Start the engine and wait for the first automation it ends."""
    async with app.orchestrator.bus.subscribe() as events:
        attached.start()
        async with asyncio.timeout(15):
            async for event in events:
                if isinstance(event, AutomationEnd):
                    return event
    raise AssertionError("the event stream ended")


def _relay(hook: HomeAssistantHook, *events: str) -> AutomationSpec:
    return AutomationSpec(
        name="to_home_assistant", prompt="", on_event=events, post_url=hook.url + HOOK
    )


async def test_a_finished_timer_is_passed_on_to_home_assistant_with_no_model(
    tmp_path: Path, hook: HomeAssistantHook
) -> None:
    attached = Attached(_relay(hook, "timer-finished"))
    app = await build_app(no_model_settings(tmp_path), on_orchestrator=attached)  # type: ignore[arg-type]
    try:
        assert app.skills is not None
        assert app.skills.timers is not None
        async with app.orchestrator.bus.subscribe() as events:
            attached.start()
            timer = await app.skills.timers.start_timer(0.2, name="tea")
            async with asyncio.timeout(15):
                end = await anext(e async for e in events if isinstance(e, AutomationEnd))
    finally:
        await attached.stop()
        await app.aclose()
    assert (end.name, end.trigger, end.status, end.delivery_error) == (
        "to_home_assistant",
        "event",
        "complete",
        "",
    )
    assert end.result == "Your tea timer is done."
    posted = hook.requests_to(HOOK)[0].json()
    assert (posted["automation"], posted["trigger"], posted["result"]) == (
        "to_home_assistant",
        "event",
        "Your tea timer is done.",
    )
    event = posted["event"]
    assert (event["type"], event["timer_id"], event["name"], event["missed"]) == (
        "timer-finished",
        timer.id,
        "tea",
        False,
    )
    assert event["message"] == "Your tea timer is done."
    assert "run_id" not in event


async def test_a_reminder_due_while_aria_was_off_reaches_home_assistant_at_the_start(
    tmp_path: Path, hook: HomeAssistantHook
) -> None:
    settings = no_model_settings(tmp_path)
    first = await build_app(settings)  # type: ignore[arg-type]
    try:
        missed = await _reminders(first).set(
            When(due_at=time.time() + 3600), text="call mom", kind="reminder", language="en"
        )
    finally:
        await first.aclose()
    await _move_due(settings, missed.id, time.time() - 3600)  # due an hour ago, while stopped
    attached = Attached(_relay(hook, "reminder-due"))
    second = await build_app(settings, on_orchestrator=attached)  # type: ignore[arg-type]
    try:
        # Delivered at the start, before the engine runs: its subscription dates from before
        # the skills started, so the event waits in it.
        reminders = _reminders(second)
        async with second.orchestrator.bus.subscribe() as events, asyncio.timeout(10):
            while (await _state(reminders, missed.id)).state != "delivered":
                await anext(aiter(events))
        end = await _ended(second, attached)
    finally:
        await attached.stop()
        await second.aclose()
    assert end.delivery_error == ""
    event = hook.requests_to(HOOK)[0].json()["event"]
    assert (event["type"], event["reminder_id"], event["text"], event["late"]) == (
        "reminder-due",
        missed.id,
        "call mom",
        True,
    )
    assert "call mom" in event["message"]


async def test_a_rule_with_a_prompt_runs_it_with_the_event_fields(
    tmp_path: Path, hook: HomeAssistantHook
) -> None:
    with FakeOllama() as ollama:
        ollama.script("/api/chat", ollama_text("Tea is ready, enjoy!"))
        rule = AutomationSpec(
            name="kitchen",
            prompt="The {name} timer rang ({message}). Say it kindly.",
            on_event=("timer-finished",),
            webhook=False,
            post_url=hook.url + HOOK,
        )
        attached = Attached(rule)
        settings = no_model_settings(tmp_path, ARIA_LLM__OLLAMA__URL=ollama.url)
        app = await build_app(settings, on_orchestrator=attached)  # type: ignore[arg-type]
        try:
            assert app.skills is not None
            assert app.skills.timers is not None
            async with app.orchestrator.bus.subscribe() as events:
                attached.start()
                await app.skills.timers.start_timer(0.2, name="tea")
                async with asyncio.timeout(15):
                    end = await anext(e async for e in events if isinstance(e, AutomationEnd))
        finally:
            await attached.stop()
            await app.aclose()
        sent = ollama.requests_to("/api/chat")[0].json()["messages"][-1]["content"]
    assert sent == "The tea timer rang (Your tea timer is done.). Say it kindly."
    assert (end.trigger, end.status, end.result) == ("event", "complete", "Tea is ready, enjoy!")
    posted = hook.requests_to(HOOK)[0].json()
    assert posted["result"] == "Tea is ready, enjoy!"
    assert posted["event"]["name"] == "tea"


def _rules(tmp_path: Path, text: str) -> Any:
    settings_file = tmp_path / "settings.toml"
    settings_file.write_text(text, encoding="utf-8")
    return load_settings(settings_file, {})


def test_settings_describe_event_rules_and_refuse_what_cannot_work(tmp_path: Path) -> None:
    settings = _rules(
        tmp_path,
        '[automations.rules.ha]\non_event = ["timer-finished", "reminder-due"]\n'
        'post_url = "http://192.168.1.5:8123/api/webhook/aria_event"\n',
    )
    (spec,) = automation_specs(settings)
    assert (spec.on_event, spec.prompt) == (("timer-finished", "reminder-due"), "")
    listed = {result.name: result.detail for result in check_api(settings)}
    assert listed["automations"] == "ha (timer-finished, reminder-due)"
    with pytest.raises(ConfigError, match="not an event an automation can start on"):
        _rules(tmp_path, '[automations.rules.x]\non_event = ["run-end"]\nprompt = "p"\n')
    with pytest.raises(ConfigError, match="unless post_url is set"):
        _rules(tmp_path, '[automations.rules.x]\non_event = ["timer-finished"]\n')


async def test_a_rule_that_only_passes_events_on_cannot_be_run_by_hand(
    tmp_path: Path, hook: HomeAssistantHook
) -> None:
    attached = Attached(_relay(hook, "timer-finished"))
    app = await build_app(no_model_settings(tmp_path), on_orchestrator=attached)  # type: ignore[arg-type]
    try:
        assert attached.engine is not None
        with pytest.raises(AutomationError, match="only passes its events on"):
            await attached.engine.run("to_home_assistant", {}, trigger="webhook")
    finally:
        await attached.stop()
        await app.aclose()
