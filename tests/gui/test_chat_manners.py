"""The chat window's manners: Ctrl+N, Ctrl+F, Ctrl+, and Esc; a copy button per code block;
dates in the conversation list."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest

from aria_desktop.gui.dates import conversation_date
from aria_desktop.gui.views.chat_window import DATE_ROLE
from aria_desktop.gui.views.code_copy import COPY_LABEL
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text
from tests.gui.conftest import process_events, wait_for

CODE = "from pathlib import Path\nfor p in Path('.').iterdir():\n    print(p)"
REPLY = f"List them like this:\n\n```python\n{CODE}\n```\n\nOr with `ls`:\n\n```sh\nls -la\n```\n"


@pytest.fixture
def lisbon() -> Iterator[None]:
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "Europe/Lisbon"
    time.tzset()
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = saved
        time.tzset()


def test_dates_read_like_a_person_says_them(lisbon: None) -> None:
    now = time.mktime((2025, 3, 14, 15, 30, 0, 0, 0, -1))
    at = time.mktime
    assert conversation_date(at((2025, 3, 14, 14, 2, 0, 0, 0, -1)), now) == "Today 14:02"
    assert conversation_date(at((2025, 3, 13, 23, 59, 0, 0, 0, -1)), now) == "Yesterday"
    assert conversation_date(at((2025, 3, 3, 9, 0, 0, 0, 0, -1)), now) == "3 Mar"
    assert conversation_date(at((2024, 12, 24, 9, 0, 0, 0, 0, -1)), now) == "24 Dec 2024"
    # across the change to summer time (30 Mar 2025 in Lisbon) a day is still a day
    later = at((2025, 3, 31, 0, 30, 0, 0, 0, -1))
    assert conversation_date(at((2025, 3, 30, 0, 30, 0, 0, 0, -1)), later) == "Yesterday"


def _answered(desktop: Any, run: Any, text: str) -> None:
    done: list[str] = []
    desktop.chat.turn_finished.connect(lambda _run, status: done.append(status))
    desktop.chat.send(text)
    run(wait_for(lambda: bool(done) and desktop.chat_view.conversations.count() == 1))


def test_each_code_block_has_a_copy_button_that_copies_it(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any
) -> None:
    ollama.script("/api/chat", ollama_text(REPLY, chunks=4))
    desktop = desktop_factory(stack.assistant)
    desktop.open_chat()
    _answered(desktop, run, "How do I list files?")
    transcript = desktop.chat_view.transcript
    assert transcript.plain_text().count(COPY_LABEL) == 2
    # the reply's time of day leads its badge
    assert re.search(r"\n\d\d:\d\d · llama3\.2 · local \(ollama\)", transcript.plain_text())
    keys = sorted(transcript.code_blocks)
    assert [transcript.code_blocks[k] for k in keys] == [CODE, "ls -la"]
    desktop.chat.ask_open_link(QUrl(keys[0]))  # the first button clicked
    assert QGuiApplication.clipboard().text() == CODE
    assert desktop.chat_view.status.text() == "Code copied."
    # reopened from history, the reply has its buttons again
    desktop.chat.open_conversation(desktop.chat.conversation_id)
    run(wait_for(lambda: transcript.plain_text().count(COPY_LABEL) == 2))
    assert re.search(r"\n\d\d:\d\d · llama3\.2", transcript.plain_text())  # stored reply too
    row = desktop.chat_view.conversations.item(0)
    assert str(row.data(DATE_ROLE)).startswith("Today ")


def _focus(view: Any, run: Any) -> None:
    view.show()
    view.raise_()
    view.activateWindow()
    run(wait_for(lambda: QGuiApplication.focusWindow() is view.windowHandle()))
    process_events(run)


def test_ctrl_n_starts_a_new_conversation_and_ctrl_f_finds(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any
) -> None:
    ollama.script("/api/chat", ollama_text("Hello.", chunks=1))
    desktop = desktop_factory(stack.assistant)
    view = desktop.chat_view
    _focus(view, run)
    _answered(desktop, run, "Hi")
    assert desktop.chat.conversation_id is not None
    QTest.keyClick(view.composer, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert desktop.chat.conversation_id is None
    assert view.transcript.is_placeholder
    QTest.keyClick(view.composer, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert view.search.hasFocus()


def test_ctrl_comma_opens_settings_and_esc_closes_it(desktop_factory: Any, run: Any) -> None:
    desktop = desktop_factory(None)
    view = desktop.chat_view
    _focus(view, run)
    QTest.keyClick(view.composer, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    settings = desktop.settings.view
    assert settings is not None
    assert settings.isVisible()
    _focus(settings, run)
    QTest.keyClick(settings.focusWidget() or settings, Qt.Key.Key_Escape)
    assert not settings.isVisible()


def test_esc_closes_the_memory_window(desktop_factory: Any, stack: Any, run: Any) -> None:
    desktop = desktop_factory(stack.assistant)
    desktop.open_memory()
    memory = desktop.memory.view
    assert memory is not None
    _focus(memory, run)
    QTest.keyClick(memory.focusWidget() or memory, Qt.Key.Key_Escape)
    assert not memory.isVisible()
