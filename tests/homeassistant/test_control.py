"""ARIA driving Home Assistant in chat turns: a scripted model asks for the tools, the real
registry, policy, confirmation broker and audit log decide, and the real adapter talks to a
Home Assistant REST test server. Lights run at once; a lock waits for the out-of-band answer
and nothing reaches Home Assistant when it is declined."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.homeassistant.client import HomeAssistantClient
from aria_desktop.core.homeassistant.control import (
    CALL_TOOL,
    STATES_TOOL,
    HomeAssistantConfig,
    HomeAssistantControl,
)
from aria_desktop.core.homeassistant.decisions import service_decision
from aria_desktop.core.tools import default_policy
from aria_desktop.domain.chat import ToolCall
from aria_desktop.domain.commands import ConfirmAction, StartTurn
from aria_desktop.domain.events import ActionConfirmRequest, ToolResultEvent
from tests.fakes.harness import FakeCore, fake_cores
from tests.fakes.homeassistant_server import TOKEN, FakeHomeAssistant
from tests.fakes.ports import text_reply, tool_reply


@pytest.fixture
def hass() -> Iterator[FakeHomeAssistant]:
    with FakeHomeAssistant() as server:
        yield server


Setup = Callable[..., Awaitable[FakeCore]]


@pytest.fixture
async def make(tmp_path: Path, hass: FakeHomeAssistant) -> AsyncIterator[Setup]:
    """A FakeCore with Home Assistant control installed the way the composition root installs it."""
    controls: list[HomeAssistantControl] = []

    async def build(config: HomeAssistantConfig | None = None) -> FakeCore:
        control = HomeAssistantControl(HomeAssistantClient(hass.url, TOKEN, timeout_s=5.0), config)
        controls.append(control)
        core = await make_core(policy=control.policy_hook(default_policy))
        control.install(core.orchestrator)
        return core

    async with fake_cores(tmp_path) as make_core:
        try:
            yield build
        finally:
            for control in controls:
                await control.aclose()


def _result(events: list[Any]) -> tuple[str, Any]:
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    return result.status, json.loads(result.result)


async def test_a_light_service_runs_at_once(make: Setup, hass: FakeHomeAssistant) -> None:
    core = await make()
    call: dict[str, object] = {
        "domain": "light",
        "service": "turn_on",
        "entity_ids": ["light.kitchen_ceiling"],
    }
    core.model.script(tool_reply([(CALL_TOOL, call)]), text_reply("The light is on."))
    events, _ = await core.turn("turn on the kitchen light")
    assert not any(isinstance(e, ActionConfirmRequest) for e in events)
    status, output = _result(events)
    assert status == "ok"
    assert output["changed"][0] == {
        "entity_id": "light.kitchen_ceiling",
        "name": "Kitchen Ceiling Light",
        "state": "on",
    }
    assert hass.states["light.kitchen_ceiling"]["state"] == "on"
    decision = next(r for r in core.audit.records() if r.kind == "policy-decision")
    assert decision.data["rule"] == "homeassistant:immediate:light"


async def _answer_first_confirmation(core: FakeCore, text: str, *, approved: bool) -> str:
    """Start a turn, answer its confirmation request out of band, return the turn's status."""
    async with core.orchestrator.bus.subscribe() as sub:
        handle = await core.orchestrator.handle(StartTurn(text=text))
        async with asyncio.timeout(10):
            request = None
            async for event in sub:
                if isinstance(event, ActionConfirmRequest):
                    request = event
                    break
    assert request is not None
    assert request.tool == CALL_TOOL
    assert "lock.unlock on lock.front_door" in request.summary
    await core.orchestrator.handle(
        ConfirmAction(request_id=request.request_id, nonce=request.nonce, approved=approved)
    )
    return await handle.wait(timeout_s=10)


async def test_a_declined_lock_service_reaches_nothing(
    make: Setup, hass: FakeHomeAssistant
) -> None:
    core = await make()
    call: dict[str, object] = {
        "domain": "lock",
        "service": "unlock",
        "entity_ids": ["lock.front_door"],
    }
    core.model.script(tool_reply([(CALL_TOOL, call)]), text_reply("I did not unlock it."))
    hass.reset()
    assert await _answer_first_confirmation(core, "unlock the door", approved=False) == "complete"
    assert hass.requests == []  # not even a state read went out before the answer
    assert hass.states["lock.front_door"]["state"] == "locked"
    results = [r for r in core.audit.records() if r.kind == "tool-result"]
    assert results[0].data["status"] == "denied"
    assert "declined" in core.model.requests[1].messages[-1].content


async def test_an_approved_lock_service_runs(make: Setup, hass: FakeHomeAssistant) -> None:
    core = await make()
    call: dict[str, object] = {
        "domain": "lock",
        "service": "unlock",
        "entity_ids": ["lock.front_door"],
    }
    core.model.script(tool_reply([(CALL_TOOL, call)]), text_reply("Unlocked."))
    assert await _answer_first_confirmation(core, "unlock the door", approved=True) == "complete"
    assert hass.service_calls == [("lock", "unlock", {"entity_id": ["lock.front_door"]})]
    assert hass.states["lock.front_door"]["state"] == "unlocked"


@pytest.mark.parametrize(
    ("call", "rule"),
    [
        (
            {"domain": "cover", "service": "open_cover", "entity_ids": ["cover.garage_door"]},
            "homeassistant:confirm:cover",
        ),
        (
            {"domain": "vacuum", "service": "start", "entity_ids": ["vacuum.robot"]},
            "homeassistant:not-immediate:vacuum",
        ),
        (
            {"domain": "light", "service": "turn_on", "entity_ids": ["lock.front_door"]},
            "homeassistant:confirm:lock",
        ),
    ],
)
async def test_covers_unknown_domains_and_disguised_targets_ask_first(
    make: Setup, hass: FakeHomeAssistant, call: dict[str, Any], rule: str
) -> None:
    core = await make()
    core.model.script(tool_reply([(CALL_TOOL, call)]), text_reply("Not done."))
    hass.reset()
    async with core.orchestrator.bus.subscribe() as sub:
        handle = await core.orchestrator.handle(StartTurn(text="do it"))
        async with asyncio.timeout(10):
            async for event in sub:
                if isinstance(event, ActionConfirmRequest):
                    break
    decision = next(r for r in core.audit.records() if r.kind == "policy-decision")
    assert decision.data["verdict"] == "confirm"
    assert decision.data["rule"] == rule
    core.orchestrator.confirmations.deny_all()
    await handle.wait(timeout_s=10)
    assert hass.service_calls == []


async def test_configured_domains_change_what_runs_at_once(
    make: Setup, hass: FakeHomeAssistant
) -> None:
    core = await make(HomeAssistantConfig(immediate_domains=frozenset({"media_player"})))
    call: dict[str, object] = {
        "domain": "light",
        "service": "turn_on",
        "entity_ids": ["light.kitchen_ceiling"],
    }
    core.model.script(tool_reply([(CALL_TOOL, call)]), text_reply("Not done."))
    async with core.orchestrator.bus.subscribe() as sub:
        handle = await core.orchestrator.handle(StartTurn(text="light"))
        async with asyncio.timeout(10):
            async for event in sub:
                if isinstance(event, ActionConfirmRequest):
                    break
    core.orchestrator.confirmations.deny_all()
    await handle.wait(timeout_s=10)
    assert hass.service_calls == []


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"name": "kitchen light"}, ["light.kitchen_ceiling"]),
        ({"area": "living room"}, ["light.living_room_lamp", "media_player.living_room_tv"]),
        ({"domain": "light"}, ["light.kitchen_ceiling", "light.living_room_lamp"]),
        ({"area": "kitchen", "domain": "sensor"}, ["sensor.kitchen_temperature"]),
        ({"entity_id": "lock.front_door"}, ["lock.front_door"]),
        ({"name": "bathroom"}, []),
    ],
)
async def test_states_by_name_area_domain_and_id(
    make: Setup, arguments: dict[str, Any], expected: list[str]
) -> None:
    core = await make()
    core.model.script(tool_reply([(STATES_TOOL, arguments)]), text_reply("Here."))
    events, _ = await core.turn("what is on?")
    status, output = _result(events)
    assert status == "ok"
    assert [e["entity_id"] for e in output["entities"]] == expected
    assert output["count"] == len(expected)
    if expected == ["sensor.kitchen_temperature"]:
        entity = output["entities"][0]
        assert entity["state"] == "21.5"
        assert entity["area"] == "Kitchen"
        assert entity["attributes"] == {"unit_of_measurement": "°C"}


async def test_unknown_entity_is_told_to_the_model_and_nothing_is_called(
    make: Setup, hass: FakeHomeAssistant
) -> None:
    core = await make()
    call: dict[str, object] = {
        "domain": "light",
        "service": "turn_on",
        "entity_ids": ["light.attic"],
    }
    core.model.script(tool_reply([(CALL_TOOL, call)]), text_reply("There is no attic light."))
    events, _ = await core.turn("attic light on")
    status, output = _result(events)
    assert status == "error"
    assert output["error"] == "homeassistant_entity_not_found"
    assert hass.service_calls == []


async def test_targets_hidden_in_service_data_are_refused(
    make: Setup, hass: FakeHomeAssistant
) -> None:
    core = await make()
    call: dict[str, object] = {
        "domain": "light",
        "service": "turn_on",
        "entity_ids": [],
        "data": {"entity_id": "lock.front_door"},
    }
    core.model.script(tool_reply([(CALL_TOOL, call)]), text_reply("No."))
    events, _ = await core.turn("sneaky")
    status, output = _result(events)
    assert status == "denied"  # refused by the policy, before anyone is asked
    assert "homeassistant:hidden-target" in output["message"]
    assert not any(isinstance(e, ActionConfirmRequest) for e in events)
    assert hass.service_calls == []


async def test_wrong_token_reaches_the_model_as_a_clear_error(tmp_path: Path) -> None:
    with FakeHomeAssistant(token="another") as hass:
        control = HomeAssistantControl(HomeAssistantClient(hass.url, TOKEN, timeout_s=5.0))
        async with fake_cores(tmp_path) as make_core:
            core = await make_core(policy=control.policy_hook(default_policy))
            control.install(core.orchestrator)
            core.model.script(tool_reply([(STATES_TOOL, {"domain": "light"})]), text_reply("?"))
            events, _ = await core.turn("lights?")
        await control.aclose()
    status, output = _result(events)
    assert status == "error"
    assert output["error"] == "homeassistant_auth_failed"
    assert "set-secret homeassistant_token" in output["hint"]


_IMMEDIATE = frozenset({"light", "media_player", "lock"})  # "lock" here must still ask


@pytest.mark.parametrize(
    ("domain", "service", "targets", "data_keys", "verdict", "rule"),
    [
        ("light", "turn_on", ["light.a"], [], "allow", "homeassistant:immediate:light"),
        ("light", "turn_on", [], ["brightness_pct"], "allow", "homeassistant:immediate:light"),
        ("lock", "unlock", ["lock.a"], [], "confirm", "homeassistant:confirm:lock"),
        (
            "alarm_control_panel",
            "alarm_disarm",
            ["alarm_control_panel.a"],
            [],
            "confirm",
            "homeassistant:confirm:alarm_control_panel",
        ),
        ("cover", "open_cover", ["cover.garage"], [], "confirm", "homeassistant:confirm:cover"),
        (
            "homeassistant",
            "turn_on",
            ["light.a"],
            [],
            "confirm",
            "homeassistant:confirm:homeassistant",
        ),
        ("siren", "turn_on", ["siren.a"], [], "confirm", "homeassistant:not-immediate:siren"),
        (
            "media_player",
            "play_media",
            ["light.a", "switch.b"],
            [],
            "confirm",
            "homeassistant:not-immediate:switch",
        ),
        ("light", "turn_on", [], ["area_id"], "deny", "homeassistant:hidden-target"),
        ("light", "turn_on", ["light.a/../x"], [], "deny", "homeassistant:malformed"),
        ("Light", "turn_on", ["light.a"], [], "deny", "homeassistant:malformed"),
    ],
)
def test_service_decisions(
    domain: str,
    service: str,
    targets: list[str],
    data_keys: list[str],
    verdict: str,
    rule: str,
) -> None:
    immediate = _IMMEDIATE - {"lock"}  # what HomeAssistantControl keeps of such a setting
    decision = service_decision(domain, service, targets, immediate, data_keys=data_keys)
    assert (decision.verdict, decision.rule) == (verdict, rule)
    assert decision.reason or verdict == "allow"


async def test_a_lock_listed_as_immediate_still_asks(hass: FakeHomeAssistant) -> None:
    """The settings refuse it; a config built in code cannot slip it through either."""
    control = HomeAssistantControl(
        HomeAssistantClient(hass.url, TOKEN),
        HomeAssistantConfig(immediate_domains=frozenset({"lock", "light"})),
    )
    hook = control.policy_hook(default_policy)
    tool = next(t for t in control.tools() if t.name == CALL_TOOL)
    arguments: dict[str, Any] = {"domain": "lock", "service": "unlock", "entity_ids": ["lock.a"]}
    decision = await hook(tool, ToolCall(id="c1", name=CALL_TOOL, arguments=arguments))
    assert (decision.verdict, decision.rule) == ("confirm", "homeassistant:confirm:lock")
    await control.aclose()
