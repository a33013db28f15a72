"""File tools in the tray app: the card's output expands and folds, and the confirmation
dialog shows the diff whole with the effect in words — a real orchestrator and files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl

from aria_desktop.domain.events import ActionConfirmRequest, Event
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text, ollama_tool_calls
from tests.gui.conftest import wait_for
from tests.hands.conftest import build_home, make_hands


def test_file_cards_expand_and_the_dialog_shows_the_diff(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any, tmp_path: Path
) -> None:
    home = build_home(tmp_path / "fs")
    make_hands(home).install(stack.orchestrator)
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("file_read", {"path": "~/Documents/notes.txt"})]),
        ollama_tool_calls(
            [("file_edit", {"path": "~/Documents/notes.txt", "old_text": "beta", "new_text": "B"})]
        ),
        ollama_text("Edited."),
    )
    desktop = desktop_factory(stack.assistant)
    events: list[Event] = []
    desktop.bridge.event_received.connect(events.append)
    desktop.chat.send("fix my notes")
    run(wait_for(lambda: bool(desktop.confirm.open_requests)))
    request = next(e for e in events if isinstance(e, ActionConfirmRequest))
    dialog = desktop.confirm.dialog(request.request_id)
    assert dialog is not None
    assert dialog.summary.text() == "Edit ~/Documents/notes.txt:"
    assert dialog.detail.isVisible()
    assert "-beta\n+B" in dialog.detail.toPlainText()
    assert "changes the contents of a file" in dialog.reason.text()
    dialog.approve_button.click()
    transcript = desktop.chat_view.transcript
    run(wait_for(lambda: "Edited." in transcript.plain_text()))
    assert (home.home / "Documents" / "notes.txt").read_text() == "alpha\nB\ngamma\n"
    text = transcript.plain_text()
    assert "Files  file_read(" in text
    assert text.count("▸ Show output") == 2
    assert "alpha\nbeta\ngamma" not in text  # folded: only the one-line summary
    transcript.anchorClicked.emit(QUrl("aria-tool:0"))
    expanded = transcript.plain_text()
    assert "▾ Hide output" in expanded
    assert "alpha\nbeta\ngamma" in expanded
    assert 'trust="untrusted"' not in expanded
    transcript.anchorClicked.emit(QUrl("aria-tool:0"))
    assert transcript.plain_text() == text
