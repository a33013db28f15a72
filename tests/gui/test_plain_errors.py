"""Errors in plain words and honest state: with no model reachable the chat window, quick ask
and tray say so before the first message (and what still works); a failed question shows one
plain sentence with its buttons, the detail folded; Retry asks again (real orchestrator over a
dead Ollama address, real SQLite, Xvfb)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage

from aria_desktop.adapters.llm import BreakerPolicy, OllamaBackend, RetryPolicy, Router
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.domain.error_text import WORKS_WITHOUT_MODEL
from aria_desktop.domain.settings_events import ModelStatus
from tests.fakes.audit import MemoryAuditStore
from tests.gui.conftest import FAST, Stack, wait_for
from tests.gui.test_render import screenshot, settle

QUESTION = "Why is the sky blue?"


def dead_url() -> str:
    """An address where nothing listens (a port just given back by the kernel)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def dead(tmp_path: Path, run: Any) -> Iterator[tuple[Stack, str]]:
    """The real stack with Ollama's address pointing at nothing, and that address."""
    url = dead_url()

    async def build() -> Stack:
        db = await Database.open(tmp_path / "aria.db")
        router = Router(
            {"ollama": OllamaBackend(base_url=url, model="llama3.2", timeouts=FAST)},
            {"chat": ("ollama", "anthropic"), "extract": ("ollama",)},
            retry=RetryPolicy(max_attempts=1, base_delay_s=0.0, max_delay_s=0.0),
            breaker=BreakerPolicy(failure_threshold=50, reset_s=30.0),
        )
        orchestrator = Orchestrator(
            model=router, store=SQLiteConversationStore(db), audit=AuditLog(MemoryAuditStore())
        )
        return Stack(orchestrator, router, db)

    stack = run(build())
    yield stack, url
    run(stack.aclose())


def warm_up_failed(stack: Stack, url: str) -> None:
    """What the model warm-up publishes when Ollama cannot be reached."""
    stack.orchestrator.bus.publish(
        ModelStatus(
            status="failed",
            backend="ollama",
            model="llama3.2",
            code="backend_unreachable",
            error=f"ollama: cannot connect to {url}/api/chat: All connection attempts failed",
            hint="Is Ollama running? Start it with `ollama serve`.",
        )
    )


def assert_no_codes(text: str) -> None:
    assert "`" not in text, text
    for code in ("backend_unreachable", "no_backend", "llm.", "aria config", "ollama serve"):
        assert code not in text, text


def test_no_model_is_said_before_the_first_message_everywhere(
    desktop_factory: Any, dead: tuple[Stack, str], run: Any
) -> None:
    stack, url = dead
    desktop = desktop_factory(stack.assistant, use_tray=True)
    where = url.removeprefix("http://")
    warm_up_failed(stack, url)
    view = desktop.chat_view
    run(wait_for(lambda: "Can't reach Ollama" in view.transcript.plain_text()))

    shown = view.transcript.plain_text()
    assert f"Can't reach Ollama at {where}." in shown
    assert WORKS_WITHOUT_MODEL in shown
    assert "Set up a model" in shown
    assert_no_codes(shown)
    assert "Ready" not in view.status.text()
    assert "No model can answer" in desktop.tray_view.icon.toolTip()
    assert desktop.tray.shown_state == "no-model"

    desktop.open_quick_ask()
    answer = desktop.quick_ask_view.answer.plain_text()
    assert f"Can't reach Ollama at {where}." in answer
    assert WORKS_WITHOUT_MODEL in answer


def test_a_failed_question_is_one_plain_sentence_with_buttons_and_retry_asks_again(
    desktop_factory: Any, dead: tuple[Stack, str], run: Any
) -> None:
    stack, url = dead
    desktop = desktop_factory(stack.assistant)
    done: list[str] = []
    desktop.chat.turn_finished.connect(lambda _r, status: done.append(status))
    transcript = desktop.chat_view.transcript
    desktop.chat.send(QUESTION)
    run(wait_for(lambda: done == ["error"]))

    card = transcript.plain_text()
    where = url.removeprefix("http://")
    assert f"Can't reach Ollama at {where}, and no other model is set up." in card
    assert "Retry" in card
    assert "Set up a model" in card
    assert "▸ Details" in card
    assert "All connection attempts failed" not in card  # folded away
    assert_no_codes(card)
    assert card.count("Can't reach Ollama") == 1

    details = next(k for k in transcript._outputs if transcript._outputs[k].show == "▸ Details")
    transcript.anchorClicked.emit(QUrl(details))
    assert "All connection attempts failed" in transcript.plain_text()
    assert_no_codes(transcript.plain_text())

    transcript.anchorClicked.emit(QUrl("aria-action:retry"))
    run(wait_for(lambda: done == ["error", "error"]))
    assert transcript.plain_text().count(QUESTION) == 2

    transcript.anchorClicked.emit(QUrl("aria-action:set_up_model"))
    assert desktop.wizard is not None
    assert desktop.wizard.view is not None
    assert desktop.wizard.view.isVisible()


def test_a_failed_reply_reopened_from_history_says_why_it_failed(
    desktop_factory: Any, dead: tuple[Stack, str], run: Any
) -> None:
    stack, url = dead
    desktop = desktop_factory(stack.assistant)
    done: list[str] = []
    desktop.chat.turn_finished.connect(lambda _r, status: done.append(status))
    desktop.chat.send(QUESTION)
    run(wait_for(lambda: done == ["error"]))
    conversation_id = desktop.chat.conversation_id
    desktop.chat.new_conversation()
    desktop.chat.open_conversation(conversation_id)
    transcript = desktop.chat_view.transcript
    where = url.removeprefix("http://")
    run(wait_for(lambda: "Can't reach Ollama" in transcript.plain_text()))
    reopened = transcript.plain_text()
    assert f"Can't reach Ollama at {where}, and no other model is set up." in reopened
    assert "why was not kept" not in reopened
    assert "Retry" in reopened
    assert_no_codes(reopened)


def test_the_tray_icon_differs_per_state(desktop_factory: Any, stack: Any, run: Any) -> None:
    desktop = desktop_factory(stack.assistant, use_tray=True)
    tray = desktop.tray
    run(wait_for(lambda: tray.state == "idle"))

    def shown() -> QImage:
        image: QImage = desktop.tray_view.icon.icon().pixmap(32, 32).toImage()
        return image

    images: dict[str, QImage] = {}
    for state in ("idle", "listening", "thinking", "error"):
        tray.show_state(state, "", "")
        images[state] = shown()
    tray.show_state("idle", "", "")
    tray.set_no_model("Can't reach Ollama at 127.0.0.1:11434.")
    images["no-model"] = shown()
    assert tray.shown_state == "no-model"
    distinct = {bytes(image.constBits()) for image in images.values()}
    assert len(distinct) == len(images)
    for line in desktop.tray_view.icon.toolTip().split("\n"):
        assert len(line) <= 90


def test_render_the_notice_and_an_error_card(
    desktop_factory: Any, dead: tuple[Stack, str], run: Any, theme: str
) -> None:
    stack, url = dead
    desktop = desktop_factory(stack.assistant)
    desktop.show_shell()
    view = desktop.chat_view
    view.move(150, 60)
    warm_up_failed(stack, url)
    run(wait_for(lambda: "Can't reach Ollama" in view.transcript.plain_text()))
    settle(run, view)
    screenshot("chat-no-model", theme)
    desktop.open_quick_ask()
    settle(run, desktop.quick_ask_view)
    screenshot("quick-ask-no-model", theme)
    desktop.quick_ask_view.hide()
    done: list[str] = []
    desktop.chat.turn_finished.connect(lambda _r, status: done.append(status))
    desktop.chat.new_conversation()
    desktop.chat.send(QUESTION)
    run(wait_for(lambda: bool(done)))
    settle(run, view)
    screenshot("chat-error-card", theme)


def test_test_connection_says_it_in_plain_words(isolated_env: Path, run: Any) -> None:
    """Settings' "Test connection" and the wizard's model page show this result as it is."""
    from aria_desktop.compose.desktop_services import LocalSettingsService

    url = dead_url()
    result = run(LocalSettingsService().check_ollama(url))

    assert not result.ok
    assert result.message == f"Can't reach Ollama at {url.removeprefix('http://')}."
    assert_no_codes(result.message)
