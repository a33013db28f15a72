"""The Home Assistant adapter against a real HTTP server speaking HA's REST API shapes:
states, one state, areas, service calls, and each way it fails (token, unreachable, slow,
unknown entity, unknown service)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from aria_desktop.adapters.homeassistant.client import HomeAssistantClient
from aria_desktop.domain.errors import (
    EntityNotFoundError,
    HomeAssistantAuthError,
    HomeAssistantError,
    HomeAssistantTimeoutError,
    HomeAssistantUnreachableError,
)
from tests.fakes import Reply, Send, Sleep, closed_port
from tests.fakes.homeassistant_server import TOKEN, FakeHomeAssistant


@pytest.fixture
def hass() -> Iterator[FakeHomeAssistant]:
    with FakeHomeAssistant() as server:
        yield server


@pytest.fixture
async def client(hass: FakeHomeAssistant) -> AsyncIterator[HomeAssistantClient]:
    ha = HomeAssistantClient(hass.url + "/", TOKEN, timeout_s=5.0)
    try:
        yield ha
    finally:
        await ha.aclose()


async def test_states_carry_friendly_names_and_attributes(client: HomeAssistantClient) -> None:
    states = {s.entity_id: s for s in await client.states()}
    lamp = states["light.living_room_lamp"]
    assert (lamp.name, lamp.state, lamp.domain) == ("Living Room Lamp", "on", "light")
    assert lamp.attributes == {"brightness": 180}
    assert "friendly_name" not in lamp.attributes


async def test_one_state_and_an_unknown_entity(client: HomeAssistantClient) -> None:
    assert (await client.state("lock.front_door")).state == "locked"
    with pytest.raises(EntityNotFoundError) as caught:
        await client.state("lock.back_door")
    assert "lock.back_door" in caught.value.message
    assert caught.value.hint


async def test_areas_come_from_the_template_endpoint(client: HomeAssistantClient) -> None:
    areas = await client.entity_areas()
    assert areas["light.kitchen_ceiling"] == "Kitchen"
    assert areas["media_player.living_room_tv"] == "Living Room"
    assert "cover.garage_door" not in areas


async def test_service_call_sends_the_data_and_returns_changed_states(
    client: HomeAssistantClient, hass: FakeHomeAssistant
) -> None:
    changed = await client.call_service(
        "light", "turn_on", {"entity_id": ["light.kitchen_ceiling"], "brightness_pct": 40}
    )
    assert [(s.entity_id, s.state) for s in changed] == [("light.kitchen_ceiling", "on")]
    assert hass.service_calls == [
        ("light", "turn_on", {"entity_id": ["light.kitchen_ceiling"], "brightness_pct": 40})
    ]


async def test_unknown_service_is_a_clear_error(client: HomeAssistantClient) -> None:
    with pytest.raises(HomeAssistantError) as caught:
        await client.call_service("light", "explode", {})
    assert "HTTP 400" in caught.value.message
    assert "Developer tools" in caught.value.hint


async def test_wrong_token_says_how_to_store_a_new_one(hass: FakeHomeAssistant) -> None:
    ha = HomeAssistantClient(hass.url, "not-the-token", timeout_s=5.0)
    try:
        with pytest.raises(HomeAssistantAuthError) as caught:
            await ha.states()
    finally:
        await ha.aclose()
    assert "401" in caught.value.message
    assert "aria config set-secret homeassistant_token" in caught.value.hint
    assert caught.value.code == "homeassistant_auth_failed"


async def test_missing_token_never_contacts_the_server(hass: FakeHomeAssistant) -> None:
    ha = HomeAssistantClient(hass.url, None)
    with pytest.raises(HomeAssistantAuthError, match="No Home Assistant access token"):
        await ha.states()
    assert hass.requests == []


async def test_unreachable_server_names_the_url_setting() -> None:
    with closed_port() as port:
        ha = HomeAssistantClient(f"http://127.0.0.1:{port}", TOKEN, timeout_s=5.0)
        try:
            with pytest.raises(HomeAssistantUnreachableError) as caught:
                await ha.check()
        finally:
            await ha.aclose()
    assert f"127.0.0.1:{port}" in caught.value.message
    assert "homeassistant.url" in caught.value.hint


async def test_slow_server_times_out_with_a_hint(hass: FakeHomeAssistant) -> None:
    hass.script("/api/states", Reply(steps=[Sleep(30.0), Send(b"[]")]))
    ha = HomeAssistantClient(hass.url, TOKEN, timeout_s=0.3)
    try:
        with pytest.raises(HomeAssistantTimeoutError) as caught:
            await ha.states()
    finally:
        await ha.aclose()
    assert "0.3 s" in caught.value.message
    assert "homeassistant.timeout_s" in caught.value.hint


async def test_check_reports_the_api_message(client: HomeAssistantClient) -> None:
    assert await client.check() == "API running."


async def test_the_token_goes_only_to_the_configured_server(
    client: HomeAssistantClient, hass: FakeHomeAssistant
) -> None:
    hass.script("/api/states", Reply(status=302, headers={"Location": "http://evil.test/x"}))
    with pytest.raises(HomeAssistantError, match="HTTP 302"):
        await client.states()
    assert all(r.headers["host"].startswith("127.0.0.1") for r in hass.requests)
