"""``aria doctor``'s Home Assistant check against the HA test server, the settings section's
rules, and the composition root installing Home Assistant control only when configured."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backends.fail
import pytest

from aria_desktop import keystore, log
from aria_desktop.compose.tools import build_homeassistant
from aria_desktop.doctor.homeassistant import check_homeassistant
from aria_desktop.domain.errors import ConfigError
from aria_desktop.settings import Settings
from aria_desktop.settings.loading import load_settings
from aria_desktop.settings.schema_ha import HomeAssistantSettings
from tests.fakes import closed_port
from tests.fakes.homeassistant_server import TOKEN, FakeHomeAssistant


@pytest.fixture(autouse=True)
def _no_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Secrets only from the environment; nothing stays in keystore's memory afterwards."""
    monkeypatch.setattr(keystore, "_env_values", {})
    monkeypatch.delenv("ARIA_HOMEASSISTANT_TOKEN", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())  # type: ignore[no-untyped-call]
    yield
    keyring.set_keyring(previous)
    log.clear_registered_secrets()


@pytest.fixture
def hass() -> Iterator[FakeHomeAssistant]:
    with FakeHomeAssistant() as server:
        yield server


def _settings(url: str) -> Settings:
    return Settings(homeassistant=HomeAssistantSettings(url=url))


async def test_doctor_is_silent_when_home_assistant_is_not_configured() -> None:
    assert await check_homeassistant(Settings()) == []


async def test_doctor_ok_with_a_reachable_server_and_the_right_token(
    hass: FakeHomeAssistant, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARIA_HOMEASSISTANT_TOKEN", TOKEN)
    [result] = await check_homeassistant(_settings(hass.url))
    assert result.status == "OK"
    assert "API running." in result.detail
    assert TOKEN not in result.detail


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        (None, "no access token is stored"),
        ("wrong", "refused the access token (HTTP 401)"),
    ],
)
async def test_doctor_explains_a_missing_or_wrong_token(
    hass: FakeHomeAssistant, monkeypatch: pytest.MonkeyPatch, token: str | None, expected: str
) -> None:
    if token is not None:
        monkeypatch.setenv("ARIA_HOMEASSISTANT_TOKEN", token)
    [result] = await check_homeassistant(_settings(hass.url))
    assert result.status == "WARN"
    assert expected in result.detail
    assert "aria config set-secret homeassistant_token" in result.fix


async def test_doctor_explains_an_unreachable_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARIA_HOMEASSISTANT_TOKEN", TOKEN)
    with closed_port() as port:
        [result] = await check_homeassistant(_settings(f"http://127.0.0.1:{port}"))
    assert result.status == "WARN"
    assert "Cannot reach Home Assistant" in result.detail
    assert "homeassistant.url" in result.fix


def _empty(tmp_path: Path) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text("", encoding="utf-8")
    return path


def test_locks_can_never_be_configured_to_run_at_once(tmp_path: Path) -> None:
    env = {"ARIA_HOMEASSISTANT__IMMEDIATE_DOMAINS": "light,media_player"}
    assert load_settings(_empty(tmp_path), env).homeassistant.immediate_domains == (
        "light",
        "media_player",
    )
    with pytest.raises(ConfigError, match="lock always asks for confirmation"):
        load_settings(_empty(tmp_path), {"ARIA_HOMEASSISTANT__IMMEDIATE_DOMAINS": "light,lock"})


def test_the_token_is_refused_as_a_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="looks like a secret"):
        load_settings(_empty(tmp_path), {"ARIA_HOMEASSISTANT__TOKEN": TOKEN})


def test_control_is_built_only_when_a_url_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    assert build_homeassistant(Settings()) is None
    monkeypatch.setenv("ARIA_HOMEASSISTANT_TOKEN", TOKEN)
    control = build_homeassistant(_settings("http://127.0.0.1:8123"))
    assert control is not None
    assert [t.name for t in control.tools()] == ["ha_states", "ha_call_service"]
