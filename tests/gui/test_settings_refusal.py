"""A setting refused on save reads with the dialog's label, never its key or a command."""

from __future__ import annotations

from aria_desktop.domain.errors import ConfigError
from aria_desktop.gui.controllers.settings import refusal_text
from aria_desktop.gui.settings_catalog import entry
from aria_desktop.settings.errors import type_error, value_error


def test_a_refused_setting_is_named_by_its_label() -> None:
    label = entry("voice.vad.silence_s").label
    text = refusal_text(type_error("voice.vad.silence_s", "float", "soon", "from the API"))
    assert text.startswith(f"“{label}” should be")
    assert "voice.vad" not in text
    assert "`" not in text


def test_a_refusal_that_came_over_the_api_is_named_by_its_label_too() -> None:
    local = value_error("api.port", "must be between 1 and 65535", 0, "from the API")
    remote = ConfigError(local.message, hint=local.hint)  # only message and hint travel
    text = refusal_text(remote)
    assert text.startswith(f"“{entry('api.port').label}” must be between 1 and 65535")
    assert "api.port" not in text
    assert "`" not in text
