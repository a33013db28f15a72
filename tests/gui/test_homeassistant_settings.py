"""Home Assistant in the first-run wizard and the settings dialog: the address goes to the
settings file, the token to the keyring (never the file), and Test reaches the HA test server
and explains a wrong token."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from PySide6.QtWidgets import QLineEdit

from aria_desktop import keystore, log
from aria_desktop.compose.desktop_services import LocalSettingsService
from aria_desktop.gui.views.wizard import FINISH_PAGE, HOME_ASSISTANT_PAGE
from tests.fakes import FakeOllama
from tests.fakes.homeassistant_server import TOKEN, FakeHomeAssistant
from tests.gui.conftest import wait_for
from tests.gui.wizard_steps import go_to
from tests.test_keystore import MemoryKeyring


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryKeyring]:
    monkeypatch.setattr(keystore, "_env_values", {})
    monkeypatch.delenv("ARIA_HOMEASSISTANT_TOKEN", raising=False)
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)
    log.clear_registered_secrets()


@pytest.fixture
def hass() -> Iterator[FakeHomeAssistant]:
    with FakeHomeAssistant() as server:
        yield server


def _settings_text(env: Path) -> str:
    path = env / "config" / "settings.toml"
    return path.read_text() if path.exists() else ""


def test_wizard_stores_the_address_in_settings_and_the_token_in_the_keyring(
    desktop_factory: Any,
    isolated_env: Path,
    ollama: FakeOllama,
    hass: FakeHomeAssistant,
    memory_keyring: MemoryKeyring,
    run: Any,
) -> None:
    desktop = desktop_factory(None)
    LocalSettingsService().apply({"llm.ollama.url": ollama.url})
    wizard = desktop.wizard
    view = wizard.open()
    run(wait_for(lambda: wizard.server_ok))
    go_to(view, HOME_ASSISTANT_PAGE)
    assert view.currentPage().title() == "Home Assistant (optional)"
    view.ha_url.setText("ftp://nope")
    view.next()
    assert view.currentPage().title() == "Home Assistant (optional)"  # refused on its page
    assert "http" in view.ha_status.text()
    view.ha_url.setText(hass.url)
    view.ha_token.setText("wrong-token")
    wizard.test_homeassistant()
    # wait for the probe's answer: the "Looking for …" line names the address, whose random
    # port can itself hold "401"
    run(wait_for(lambda: not view.ha_status.text().startswith("Looking for")))
    assert "401" in view.ha_status.text()
    assert "set-secret homeassistant_token" in view.ha_status.text()
    view.ha_token.setText(TOKEN)
    wizard.test_homeassistant()
    run(wait_for(lambda: view.ha_status.text().startswith("Found it")))
    view.next()
    assert memory_keyring.store[("aria-desktop", "homeassistant_token")] == TOKEN
    assert view.ha_token.text() == ""
    assert view.currentId() == FINISH_PAGE
    view.accept()
    data = tomllib.loads(_settings_text(isolated_env))
    assert data["homeassistant"]["url"] == hass.url
    assert TOKEN not in _settings_text(isolated_env)


def test_settings_dialog_has_home_assistant_with_token_and_test(
    desktop_factory: Any,
    isolated_env: Path,
    hass: FakeHomeAssistant,
    memory_keyring: MemoryKeyring,
    run: Any,
) -> None:
    desktop = desktop_factory(None)
    controller = desktop.settings
    view = controller.open()
    assert "No token stored" in view.ha_token_status.text()
    url = view.generic["homeassistant.url"]
    assert isinstance(url, QLineEdit)
    url.setText(hass.url)
    controller.test_homeassistant()
    run(
        wait_for(
            lambda: view.ha_test_button.isEnabled() and "Testing" not in view.ha_test_result.text()
        )
    )
    assert "No Home Assistant access token" in view.ha_test_result.text()
    view.ha_token.setText(TOKEN)
    view.store_ha_token_button.click()
    assert "system keyring" in view.ha_token_status.text()
    assert view.ha_token.text() == ""
    controller.test_homeassistant()
    run(wait_for(lambda: "Connected" in view.ha_test_result.text()))
    assert controller.save() is True
    text = _settings_text(isolated_env)
    assert tomllib.loads(text)["homeassistant"]["url"] == hass.url
    assert TOKEN not in text
    view = controller.open()
    view.remove_ha_token_button.click()
    assert "No token stored" in view.ha_token_status.text()
    assert ("aria-desktop", "homeassistant_token") not in memory_keyring.store
