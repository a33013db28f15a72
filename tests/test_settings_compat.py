"""The [compat] settings: names offered with their chains, privacy, and what the API gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from aria_desktop.compose.owner import api_config
from aria_desktop.doctor.api import compat_urls
from aria_desktop.domain.errors import ConfigError
from aria_desktop.settings import load_settings
from aria_desktop.settings.schema_compat import parse_model_entry


def test_model_entries_name_a_chain_and_privacy_reaches_the_api() -> None:
    settings = load_settings(
        env={
            "ARIA_COMPAT__MODELS": "aria,aria-fast=quick",
            "ARIA_COMPAT__PRIVATE_MODELS": "aria-fast",
            "ARIA_COMPAT__PRIVATE_CLIENTS": "Ollama-Python",
        }
    )
    compat = api_config(settings).compat
    assert [(m.name, m.agent, m.private) for m in compat.models] == [
        ("aria", "chat", False),
        ("aria-fast", "quick", True),
    ]
    assert compat.find("aria-fast:latest") is compat.models[1]
    assert compat.is_private(compat.models[0], "ollama/ollama-python")
    assert not compat.is_private(compat.models[0], "openai/openai")


@pytest.mark.parametrize("value", ["bad name!", "aria,aria", "x=y=z", ""])
def test_malformed_model_lists_are_refused_with_the_key(value: str) -> None:
    with pytest.raises(ConfigError, match=r"compat\.models"):
        load_settings(env={"ARIA_COMPAT__MODELS": value})
    with pytest.raises(ConfigError, match=r"compat\.private_clients"):
        load_settings(env={"ARIA_COMPAT__PRIVATE_CLIENTS": '["ollama"]'})


def test_parse_model_entry() -> None:
    assert parse_model_entry(" aria ") == ("aria", "chat")
    assert parse_model_entry("home:3b=quick") == ("home:3b", "quick")
    assert parse_model_entry("=chat") is None


def test_doctor_prints_the_urls_to_paste_into_each_client(tmp_path: Path) -> None:
    env = {"ARIA_API__PORT": "9123", "ARIA_STORAGE__DATABASE": str(tmp_path / "aria.db")}
    results = {r.name: r for r in compat_urls(load_settings(env=env))}
    assert "http://127.0.0.1:9123/v1" in results["openai-compatible"].detail
    assert "model aria," in results["openai-compatible"].detail
    assert "http://127.0.0.1:9123," in results["ollama-compatible"].detail
    assert "aria:latest" in results["ollama-compatible"].detail
    off = compat_urls(load_settings(env={**env, "ARIA_COMPAT__ENABLED": "false"}))
    assert [r.detail for r in off] == ["off (compat.enabled = false)"]
