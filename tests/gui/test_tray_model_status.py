"""The tray follows the model without a restart: "Loading model …" while the warm-up loads,
nothing once it is ready, the reason and hint when it failed, and the new model's name after a
settings change (real orchestrator and bus, offscreen Qt)."""

from __future__ import annotations

from typing import Any

from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.settings_events import ModelStatus, SettingsApplied
from tests.gui.conftest import wait_for


def test_tray_shows_loading_then_ready_then_the_new_model(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    desktop = desktop_factory(stack.assistant, use_tray=True)
    tray = desktop.tray
    bus = stack.orchestrator.bus
    run(wait_for(lambda: tray.state == "idle"))
    shown: list[str] = []
    tray.state_shown.connect(shown.append)
    bus.publish(ModelStatus(status="loading", backend="ollama", model="llama3.2:3b"))
    run(wait_for(lambda: "Loading model llama3.2:3b…" in desktop.tray_view.icon.toolTip()))
    bus.publish(ModelStatus(status="ready", backend="ollama", model="llama3.2:3b", load_ms=2400))
    run(wait_for(lambda: "Loading" not in desktop.tray_view.icon.toolTip()))
    bus.publish(
        SettingsApplied(sections=("llm",), backend="ollama", model="qwen3:8b", locality="local")
    )
    run(wait_for(lambda: "Model: qwen3:8b · local (ollama)" in desktop.tray_view.icon.toolTip()))
    bus.publish(
        ModelStatus(
            status="failed",
            backend="ollama",
            model="qwen3:8b",
            code="llm_model_not_found",
            error="model 'qwen3:8b' not found",
            hint="Pull the model with `ollama pull qwen3:8b`.",
        )
    )
    run(wait_for(lambda: "No model can answer" in desktop.tray_view.icon.toolTip()))
    assert desktop.tray_view.icon.toolTip() == (
        "ARIA — No model can answer\nThe model qwen3:8b is not installed on Ollama."
    )
    assert "`" not in desktop.tray_view.icon.toolTip()
    assert tray.shown_state == "no-model"
    assert shown == []  # the model's line changes the tooltip and icon, never the state


def test_no_model_set_up_at_all_is_said_in_its_own_words_before_any_question(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    reason = "No model is set up yet. The Claude cloud model needs an API key."
    stack.orchestrator.register_capability(
        "model", lambda: CapabilityStatus(name="model", available=False, reason=reason)
    )
    desktop = desktop_factory(stack.assistant, use_tray=True)
    run(wait_for(lambda: "No model can answer" in desktop.tray_view.icon.toolTip()))
    assert desktop.tray_view.icon.toolTip() == f"ARIA — No model can answer\n{reason}"
    shown = desktop.chat_view.transcript.plain_text()
    assert reason in shown
    assert "Set up a model" in shown
    assert "Ready" not in desktop.chat_view.status.text()
