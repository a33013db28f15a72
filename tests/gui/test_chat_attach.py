"""Attach in the chat window: a tool server's resource goes with the next message, fenced.

A real SDK-written server (tests/fakes/mcp_servers.py ``asks``, over stdio) offers
``notes://todo``; the person picks it from the Attach menu, sees it listed, sends a question, and
the model receives the note as untrusted data apart from the question (its injected line
flagged), while the transcript lists what went with the message.
"""

from __future__ import annotations

from typing import Any

from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.gui.controllers.chat_attach import NOTHING_OFFERED
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text
from tests.gui.conftest import wait_for
from tests.gui.mcp_hub import restaurant_hub
from tests.gui.test_render import screenshot, settle

__all__ = ["restaurant_hub"]


def _menu_texts(view: Any) -> list[str]:
    return [action.text() for action in view.attach_menu.actions()]


def test_an_attached_resource_goes_with_the_next_message_as_fenced_data(
    restaurant_hub: Any, desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any, theme: str
) -> None:
    ollama.script("/api/chat", ollama_text("Milk is on it."))
    desktop = desktop_factory(LocalAssistant(stack.orchestrator))
    view = desktop.chat_view
    view.show()
    view.attach_button.click()
    run(wait_for(lambda: view.attach_menu.isVisible()))
    assert _menu_texts(view) == ["todo — restaurant"]
    view.attach_menu.actions()[0].trigger()
    view.attach_menu.hide()
    run(wait_for(lambda: view.attached.isVisible()))
    assert view.attached.text() == "Attached: todo (restaurant)"
    view.composer.setPlainText("What is on my to-do list?")
    settle(run, view)
    screenshot("chat-attached", theme)

    finished: list[str] = []
    desktop.chat.turn_finished.connect(lambda _run, status: finished.append(status))
    view.send_button.click()
    run(wait_for(lambda: bool(finished)))
    assert finished == ["complete"]
    assert not view.attached.isVisible()  # sent: the next message carries nothing
    messages = ollama.requests_to("/api/chat")[0].json()["messages"]
    assert messages[-1] == {"role": "user", "content": "What is on my to-do list?"}
    fenced = [m["content"] for m in messages if "notes://todo" in m["content"]]
    assert len(fenced) == 1
    assert "buy milk" in fenced[0]
    assert messages[[m["content"] for m in messages].index(fenced[0])]["role"] == "system"
    shown = view.transcript.plain_text()
    assert "What is on my to-do list?\nAttached: todo (restaurant)" in shown
    assert "Milk is on it." in shown
    settle(run, view)
    screenshot("chat-attached-sent", theme)


def test_remove_sends_the_next_message_without_the_attachment(
    restaurant_hub: Any, desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any
) -> None:
    ollama.script("/api/chat", ollama_text("Hello."))
    desktop = desktop_factory(LocalAssistant(stack.orchestrator))
    view = desktop.chat_view
    view.show()
    view.attach_button.click()
    run(wait_for(lambda: view.attach_menu.isVisible()))
    view.attach_menu.actions()[0].trigger()
    view.attach_menu.hide()
    run(wait_for(lambda: view.attached.isVisible()))
    view.remove_attached_button.click()
    assert not view.attached.isVisible()
    finished: list[str] = []
    desktop.chat.turn_finished.connect(lambda _run, status: finished.append(status))
    view.composer.setPlainText("Hi")
    view.send_button.click()
    run(wait_for(lambda: bool(finished)))
    messages = ollama.requests_to("/api/chat")[0].json()["messages"]
    assert not any("notes://todo" in m["content"] for m in messages)


def test_without_tool_servers_the_menu_says_nothing_is_offered(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    desktop = desktop_factory(stack.assistant)
    view = desktop.chat_view
    view.show()
    view.attach_button.click()
    run(wait_for(lambda: view.attach_menu.isVisible()))
    [only] = view.attach_menu.actions()
    assert (only.text(), only.isEnabled()) == (NOTHING_OFFERED, False)
    view.attach_menu.hide()
