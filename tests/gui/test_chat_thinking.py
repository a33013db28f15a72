"""The chat window folds the model's reasoning: a "Thinking…" card while it streams, collapsed
by default, never part of the reply; a reopened conversation shows it folded again. Real
orchestrator, the Ollama test server streaming ``message.thinking``, SQLite."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl

from tests.fakes import FakeOllama
from tests.fakes.http_server import Send, Sleep
from tests.fakes.ollama_server import chat_line, done_line, ollama_stream
from tests.gui.conftest import wait_for

SECRET = "Consider zebras first."
ANSWER = "Use the blue one."


def send(desktop: Any, text: str) -> None:
    desktop.chat_view.composer.setPlainText(text)
    desktop.chat_view.send_button.click()


def test_thinking_streams_folded_and_unfolds_on_click(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any
) -> None:
    ollama.script(
        "/api/chat",
        ollama_stream(
            [
                Send(chat_line("llama3.2", thinking="Consider ")),
                Send(chat_line("llama3.2", thinking="zebras first.")),
                Sleep(1.5),  # the server is still thinking: the card shows "Thinking…"
                Send(chat_line("llama3.2", ANSWER)),
                Send(done_line("llama3.2")),
            ]
        ),
    )
    desktop = desktop_factory(stack.assistant)
    transcript = desktop.chat_view.transcript
    finished: list[str] = []
    rendered: list[str] = []
    desktop.chat.turn_finished.connect(lambda _run, status: finished.append(status))
    desktop.chat.reply_rendered.connect(rendered.append)
    send(desktop, "Which cable?")
    # While it streams: a folded "Thinking…" card, the reasoning itself not shown.
    run(wait_for(lambda: "Thinking…" in transcript.plain_text()))
    streaming = transcript.plain_text()
    assert "Show thinking" in streaming
    assert "zebras" not in streaming
    assert desktop.chat_view.status.text() == "Thinking…"
    run(wait_for(lambda: bool(finished)))
    done = transcript.plain_text()
    assert finished == ["complete"]
    assert "Thought" in done
    assert "Thinking…" not in done
    assert "zebras" not in done  # still folded
    assert rendered[-1] == ANSWER  # the reply is the answer alone
    assert done.index("Thought") < done.index(ANSWER)

    desktop.chat.ask_open_link(QUrl("aria-tool:0"))
    assert SECRET in transcript.plain_text()
    assert transcript.is_unfolded("aria-tool:0")
    desktop.chat.ask_open_link(QUrl("aria-tool:0"))
    assert SECRET not in transcript.plain_text()


def test_reopened_conversation_shows_stored_thinking_folded(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any
) -> None:
    ollama.script(
        "/api/chat",
        ollama_stream(
            [
                Send(chat_line("llama3.2", thinking=SECRET)),
                Send(chat_line("llama3.2", ANSWER)),
                Send(done_line("llama3.2")),
            ]
        ),
    )
    desktop = desktop_factory(stack.assistant)
    finished: list[str] = []
    desktop.chat.turn_finished.connect(lambda _run, status: finished.append(status))
    send(desktop, "Which cable?")
    run(wait_for(lambda: bool(finished)))
    conversation_id = desktop.chat.conversation_id
    desktop.chat.new_conversation()
    desktop.chat.open_conversation(conversation_id)
    transcript = desktop.chat_view.transcript
    run(wait_for(lambda: ANSWER in transcript.plain_text()))
    text = transcript.plain_text()
    assert "Thought" in text
    assert "Show thinking" in text
    assert SECRET not in text
