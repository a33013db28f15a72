"""Confirmation dialog, tray states and capabilities, kill switch — real orchestrator."""

from __future__ import annotations

from functools import partial
from typing import Any

from PySide6.QtWidgets import QApplication, QLineEdit

from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.tools import Tool
from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.commands import PushToTalk, SetComputerControl, SetMicrophoneMuted
from aria_desktop.domain.events import ActionConfirmRequest, ActionConfirmResult, Event
from aria_desktop.gui.controllers.tray import NOT_INSTALLED
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text, ollama_tool_calls
from tests.gui.conftest import process_events, wait_for


def _consequential_tool(stack: Any, calls: list[dict[str, Any]]) -> None:
    async def delete(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"deleted": args["name"]}

    stack.orchestrator.tools.register(
        Tool(
            name="delete_file",
            description="Delete a file",
            parameters={"type": "object", "properties": {"name": {"type": "string"}}},
            permission="consequential",
            handler=delete,
        )
    )


def test_confirm_request_round_trips_with_the_nonce_and_keeps_focus(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any
) -> None:
    calls: list[dict[str, Any]] = []
    _consequential_tool(stack, calls)
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("delete_file", {"name": "notes.txt"})]),
        ollama_text("Deleted."),
    )
    desktop = desktop_factory(stack.assistant)
    events: list[Event] = []
    desktop.bridge.event_received.connect(events.append)
    # The user is typing in another window.
    editor = QLineEdit()
    editor.show()
    editor.activateWindow()
    editor.setFocus()
    run(wait_for(lambda: editor.hasFocus(), timeout_s=5))
    desktop.chat.send("delete notes.txt")
    run(wait_for(lambda: bool(desktop.confirm.open_requests)))
    request = next(e for e in events if isinstance(e, ActionConfirmRequest))
    dialog = desktop.confirm.dialog(request.request_id)
    assert dialog is not None
    assert dialog.isVisible()
    assert "delete_file" in dialog.action.text()
    assert "cannot be undone" in dialog.reason.text()
    assert "notes.txt" in dialog.summary.text()
    process_events(run)
    assert editor.hasFocus(), "the dialog took the keyboard focus"
    assert QApplication.focusWidget() is editor
    answered: list[tuple[str, bool, bool]] = []
    desktop.confirm.answered.connect(lambda rid, ok, auto: answered.append((rid, ok, auto)))
    dialog.approve_button.click()
    run(wait_for(lambda: any(isinstance(e, ActionConfirmResult) for e in events)))
    result = next(e for e in events if isinstance(e, ActionConfirmResult))
    assert (result.request_id, result.approved, result.timed_out) == (
        request.request_id,
        True,
        False,
    )
    run(wait_for(lambda: calls == [{"name": "notes.txt"}]))
    assert answered == [(request.request_id, True, False)]
    assert desktop.confirm.open_requests == []
    editor.close()


def test_unanswered_confirmation_is_denied_by_the_dialog_at_the_timeout(
    desktop_factory: Any, stack_factory: Any, ollama: FakeOllama, run: Any
) -> None:
    stack = stack_factory(AgentConfig(confirm_timeout_s=1.2))
    calls: list[dict[str, Any]] = []
    _consequential_tool(stack, calls)
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("delete_file", {"name": "notes.txt"})]),
        ollama_text("I did not delete it."),
    )
    desktop = desktop_factory(stack.assistant)
    events: list[Event] = []
    desktop.bridge.event_received.connect(events.append)
    answered: list[tuple[str, bool, bool]] = []
    desktop.confirm.answered.connect(lambda rid, ok, auto: answered.append((rid, ok, auto)))
    desktop.chat.send("delete notes.txt")
    run(wait_for(lambda: bool(desktop.confirm.open_requests)))
    request_id = desktop.confirm.open_requests[0]
    assert "Denied automatically in" in desktop.confirm.dialog(request_id).countdown.text()
    run(wait_for(lambda: any(isinstance(e, ActionConfirmResult) for e in events), timeout_s=5))
    result = next(e for e in events if isinstance(e, ActionConfirmResult))
    # The dialog's own deny (with the right nonce) arrived before the core's timeout.
    assert (result.approved, result.timed_out) == (False, False)
    assert answered == [(request_id, False, True)]
    assert calls == []
    assert desktop.confirm.open_requests == []


def test_tray_menu_reflects_missing_capabilities(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    desktop = desktop_factory(stack.assistant, use_tray=True)
    run(wait_for(lambda: desktop.tray.capabilities == {} and desktop.context.connected))
    desktop.tray.refresh_capabilities()
    run(wait_for(lambda: not desktop.actions.push_to_talk.isEnabled()))
    actions = desktop.actions
    assert actions.push_to_talk.toolTip() == NOT_INSTALLED["voice"]
    assert actions.push_to_talk.text() == "Push to talk — Voice is not installed"
    assert not actions.mute.isEnabled()
    assert not actions.computer_control.isEnabled()
    assert actions.computer_control.toolTip() == NOT_INSTALLED["computer"]
    assert not actions.memory.isEnabled()  # the Assistant has no memory methods yet
    assert actions.memory.toolTip() == NOT_INSTALLED["memory"]
    assert actions.stop_everything.isEnabled()
    assert actions.open_chat.isEnabled()
    assert actions.quick_ask.isEnabled()
    menu_texts = [a.text().split("\t")[0] for a in desktop.tray_view.menu.actions() if a.text()]
    assert menu_texts[:2] == ["Open chat", "Quick ask…"]
    assert "Quit ARIA" in menu_texts


def test_tray_menu_lights_up_capabilities_and_sends_their_commands(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    received: list[Any] = []
    computer = {"enabled": False}

    async def handle(command: Any) -> None:
        received.append(command)
        if isinstance(command, SetComputerControl):
            computer["enabled"] = command.enabled

    orchestrator = stack.orchestrator
    for command_type in (PushToTalk, SetMicrophoneMuted, SetComputerControl):
        orchestrator.register_command(command_type, handle)
    orchestrator.register_capability(
        "voice", lambda: CapabilityStatus(name="voice", available=True)
    )
    orchestrator.register_capability(
        "computer",
        lambda: CapabilityStatus(name="computer", available=True, enabled=computer["enabled"]),
    )
    desktop = desktop_factory(stack.assistant, use_tray=True)
    actions = desktop.actions
    run(wait_for(lambda: actions.push_to_talk.isEnabled() and actions.computer_control.isEnabled()))
    assert not actions.computer_control.isChecked()
    actions.push_to_talk.trigger()
    actions.computer_control.trigger()
    actions.mute.trigger()
    run(wait_for(lambda: len(received) == 3))
    assert PushToTalk(action="toggle") in received
    assert SetComputerControl(enabled=True) in received
    assert SetMicrophoneMuted(muted=True) in received
    run(wait_for(lambda: actions.computer_control.isChecked()))
    # Voice unavailable with a reason: the item is disabled and says why.
    orchestrator._capabilities["voice"] = lambda: CapabilityStatus(
        name="voice", available=False, reason="No microphone was found. Plug one in."
    )
    desktop.tray.refresh_capabilities()
    run(wait_for(lambda: not actions.push_to_talk.isEnabled()))
    assert actions.push_to_talk.toolTip() == "No microphone was found. Plug one in."
    assert "No microphone was found" in actions.push_to_talk.text()


def test_tray_icon_and_tooltip_follow_states_and_the_overlay_stops_everything(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    stopped: list[str] = []

    async def stop_hook() -> None:
        stopped.append("stopped")

    stack.orchestrator.add_stop_hook(stop_hook)
    desktop = desktop_factory(stack.assistant, use_tray=True)
    tray = desktop.tray
    icons = desktop.icons
    for state in ("listening", "thinking", "speaking", "muted", "error", "idle"):
        stack.orchestrator.set_state(state)
        run(wait_for(partial(_tray_shows, tray, state)))
        assert desktop.tray_view.icon.icon().cacheKey() == icons.for_state(state).cacheKey()
        assert desktop.tray_view.icon.toolTip().startswith("ARIA — ")
    assert "Microphone muted" not in desktop.tray_view.icon.toolTip()
    stack.orchestrator._last_backend = "anthropic"
    stack.orchestrator._last_locality = "cloud"  # as the last think-end said
    stack.orchestrator.set_state("acting")
    run(wait_for(lambda: tray.state == "acting"))
    assert desktop.tray_view.icon.toolTip() == (
        "ARIA — Controlling the computer\nModel: cloud (anthropic)"
    )
    assert desktop.overlay.isVisible()
    desktop.overlay.stop_button.click()
    run(wait_for(lambda: stopped == ["stopped"]))
    stack.orchestrator.set_state("idle")
    run(wait_for(lambda: not desktop.overlay.isVisible()))


def test_offline_until_connected(desktop_factory: Any, stack: Any, run: Any) -> None:
    desktop = desktop_factory(None, use_tray=True)
    assert desktop.tray.state == "offline"
    assert desktop.tray_view.icon.toolTip().startswith("ARIA — Offline")
    assert not desktop.actions.push_to_talk.isEnabled()
    assert desktop.actions.push_to_talk.toolTip() == "ARIA is not connected."
    assert not desktop.chat_view.send_button.isEnabled()
    desktop.context.attach(stack.assistant)
    run(wait_for(lambda: desktop.tray.state == "idle"))
    assert desktop.chat_view.send_button.isEnabled()


def _tray_shows(tray: Any, state: str) -> bool:
    return bool(tray.state == state)
