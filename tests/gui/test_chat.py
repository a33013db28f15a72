"""Chat window against a real orchestrator (Ollama test server, SQLite): streaming, Stop,
conversations, tool cards, errors, links."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QMessageBox
from shiboken6 import Shiboken

from aria_desktop.core.tools import Tool
from aria_desktop.domain.events import RunEnd
from tests.fakes import FakeOllama
from tests.fakes.http_server import Hang, Send
from tests.fakes.ollama_server import (
    chat_line,
    ollama_error,
    ollama_stream,
    ollama_text,
    ollama_tool_calls,
)
from tests.gui.conftest import process_events, wait_for


def send(desktop: Any, text: str) -> None:
    desktop.chat_view.composer.setPlainText(text)
    desktop.chat_view.send_button.click()


def test_streamed_reply_renders_incrementally_with_a_badge(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any
) -> None:
    answer = "Paris is the capital of France. It sits on the Seine river."
    ollama.script("/api/chat", ollama_text(answer, chunks=6, delay_s=0.12))
    desktop = desktop_factory(stack.assistant)
    rendered: list[str] = []
    finished: list[tuple[str, str]] = []
    desktop.chat.reply_rendered.connect(rendered.append)
    desktop.chat.turn_finished.connect(lambda run_id, status: finished.append((run_id, status)))
    send(desktop, "What is the capital of France?")
    run(wait_for(lambda: bool(finished)))
    assert finished[0][1] == "complete"
    # Several partial renders, each a prefix of the next, ending with the whole answer.
    assert len(rendered) >= 3
    assert all(answer.startswith(text) for text in rendered)
    assert rendered[-1] == answer
    assert len(set(rendered)) == len(rendered)
    text = desktop.chat_view.transcript.plain_text()
    assert "What is the capital of France?" in text
    assert answer in text
    assert "llama3.2 · local (ollama) ·" in text  # model, where it ran, latency
    assert text.rstrip().endswith(" s")
    assert not desktop.chat_view.stop_button.isEnabled()
    # The new conversation is listed with its title and selected.
    run(wait_for(lambda: desktop.chat_view.conversations.count() == 1))
    assert desktop.chat_view.conversations.item(0).text() == "What is the capital of France?"


def test_stop_cancels_the_turn_and_keeps_what_arrived(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any
) -> None:
    ollama.script(
        "/api/chat", ollama_stream([Send(chat_line("llama3.2", "Counting: one, ")), Hang()])
    )
    desktop = desktop_factory(stack.assistant)
    rendered: list[str] = []
    finished: list[str] = []
    desktop.chat.reply_rendered.connect(rendered.append)
    desktop.chat.turn_finished.connect(lambda _run, status: finished.append(status))
    send(desktop, "count forever")
    run(wait_for(lambda: bool(rendered)))
    assert desktop.chat_view.stop_button.isEnabled()
    desktop.chat_view.stop_button.click()
    run(wait_for(lambda: bool(finished)))
    assert finished == ["cancelled"]
    assert stack.orchestrator.running_turns == []
    text = desktop.chat_view.transcript.plain_text()
    assert "Counting: one," in text
    assert "Stopped" in text
    run(wait_for(lambda: ollama.disconnects >= 1))  # the HTTP stream was closed too


def test_errors_are_shown_in_plain_words(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any
) -> None:
    ollama.script("/api/chat", ollama_error(500, "model crashed"))
    desktop = desktop_factory(stack.assistant)
    finished: list[str] = []
    desktop.chat.turn_finished.connect(lambda _run, status: finished.append(status))
    send(desktop, "hello")
    run(wait_for(lambda: bool(finished)))
    text = desktop.chat_view.transcript.plain_text()
    assert finished == ["error"]
    assert "Traceback" not in text
    error_lines = [line for line in text.splitlines() if "ollama" in line.lower() or "500" in line]
    assert error_lines, text


def test_tool_calls_render_as_cards(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any
) -> None:
    _register_recall_tool(stack)
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("memory_recall", {"query": "drinks"})]),
        ollama_text("You prefer tea."),
    )
    desktop = desktop_factory(stack.assistant)
    finished: list[str] = []
    desktop.chat.turn_finished.connect(lambda _run, status: finished.append(status))
    send(desktop, "What do I like to drink?")
    run(wait_for(lambda: bool(finished)))
    text = desktop.chat_view.transcript.plain_text()
    assert "Memory recalled" in text
    assert 'memory_recall(query="drinks")' in text
    assert "prefers tea" in text
    assert text.index("Memory recalled") < text.index("You prefer tea.")


def test_conversations_list_search_rename_delete_and_reopen(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any
) -> None:
    ollama.script("/api/chat", ollama_text("First reply."), ollama_text("Second reply."))
    desktop = desktop_factory(stack.assistant)
    chat, view = desktop.chat, desktop.chat_view
    done: list[str] = []
    chat.turn_finished.connect(lambda _run, status: done.append(status))
    send(desktop, "alpha question")
    run(wait_for(lambda: len(done) == 1))
    chat.new_conversation()
    assert "Ask ARIA anything" in view.transcript.plain_text()
    send(desktop, "beta question")
    run(wait_for(lambda: len(done) == 2 and view.conversations.count() == 2))
    # Search filters by title.
    view.search.setText("alph")
    assert [view.conversations.item(i).text() for i in range(view.conversations.count())] == [
        "alpha question"
    ]
    view.search.clear()
    run(wait_for(lambda: view.conversations.count() == 2))
    # Rename through the list's inline editor.
    item = next(
        view.conversations.item(i)
        for i in range(view.conversations.count())
        if view.conversations.item(i).text() == "alpha question"
    )
    alpha_id = item.data(Qt.ItemDataRole.UserRole)
    item.setText("Renamed alpha")

    async def renamed() -> None:
        while (await stack.assistant.get_conversation(alpha_id)).title != "Renamed alpha":
            await asyncio.sleep(0.02)

    run(renamed())
    # Reopen it: the stored messages are shown.
    chat.open_conversation(alpha_id)
    run(wait_for(lambda: "First reply." in view.transcript.plain_text()))
    assert "alpha question" in view.transcript.plain_text()
    # Where a stored reply ran is not stored: the backend is named, its place never guessed.
    assert "llama3.2 · ollama" in view.transcript.plain_text()
    # Delete asks first (non-modal box); confirming deletes it.
    view.conversations.setCurrentRow(
        next(
            i
            for i in range(view.conversations.count())
            if view.conversations.item(i).data(Qt.ItemDataRole.UserRole) == alpha_id
        )
    )
    view.delete_button.click()
    box = chat._delete_box
    assert box is not None
    assert box.isVisible()
    delete = next(b for b in box.buttons() if b.text() == "Delete")
    delete.click()
    run(wait_for(lambda: view.conversations.count() == 1))
    assert run(stack.assistant.get_conversation(alpha_id)) is None


def test_links_ask_before_opening(desktop_factory: Any, stack: Any, run: Any) -> None:
    desktop = desktop_factory(stack.assistant)
    desktop.chat.ask_open_link(QUrl("https://example.org/page"))
    box = desktop.chat._link_box
    assert isinstance(box, QMessageBox)
    assert box.isVisible()
    assert "https://example.org/page" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    process_events(run)
    assert desktop.chat._link_box is None
    assert not Shiboken.isValid(box)  # closed and freed
    desktop.chat.ask_open_link(QUrl("file:///etc/passwd"))
    assert "does not open file links" in desktop.chat_view.status.text()


def test_events_of_other_runs_and_unknown_types_are_ignored(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    from dataclasses import dataclass
    from typing import ClassVar

    from aria_desktop.domain.events import Event

    @dataclass(frozen=True, kw_only=True)
    class VoiceLevel(Event):
        type: ClassVar[str] = "voice-level"
        rms: float

    desktop = desktop_factory(stack.assistant)
    states: list[str] = []
    desktop.tray.state_shown.connect(states.append)
    stack.orchestrator.bus.publish(VoiceLevel(rms=0.3))
    stack.orchestrator.bus.publish(RunEnd(run_id="other", conversation_id="x", status="complete"))
    stack.orchestrator.set_state("listening")
    run(wait_for(lambda: states[-1:] == ["listening"]))
    assert desktop.context.bridge.running


def test_quick_ask_answers_with_the_last_steps_text_and_where_it_ran(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any
) -> None:
    _register_recall_tool(stack)
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("memory_recall", {"query": "drinks"})], text="Let me check."),
        ollama_text("You prefer tea."),
    )
    desktop = desktop_factory(stack.assistant)
    answered: list[str] = []
    desktop.quick_ask.answered.connect(lambda _run, status: answered.append(status))
    desktop.open_quick_ask()
    view = desktop.quick_ask_view
    view.prompt.setText("What do I like to drink?")
    view.prompt.returnPressed.emit()
    run(wait_for(lambda: answered == ["complete"]))
    text = view.answer.plain_text()
    assert "You prefer tea." in text
    assert "Let me check." not in text  # the reply is the last model step's text
    assert "llama3.2 · local (ollama) ·" in text


def _register_recall_tool(stack: Any) -> None:
    """A read-only ``memory_recall`` tool that answers with one stored preference."""

    async def recall(args: dict[str, Any]) -> dict[str, Any]:
        return {"memories": ["The user prefers tea."]}

    stack.orchestrator.tools.register(
        Tool(
            name="memory_recall",
            description="Recall memories",
            parameters={"type": "object", "properties": {"query": {"type": "string"}}},
            permission="read_only",
            handler=recall,
        )
    )
