"""The memory and knowledge windows say what to do when empty, count in the right number, label
the new-memory button for what it does, and take files dropped onto the knowledge window."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from aria_desktop.core.memory.service import MemoryConfig
from tests.gui.conftest import wait_for
from tests.gui.test_knowledge_gui import _with_knowledge
from tests.gui.test_memory_browser import open_browser


def test_an_empty_memory_list_says_what_to_do_and_adding_one_counts_it_as_one(
    desktop_factory: Any, stack_factory: Any, run: Any
) -> None:
    stack = stack_factory(memory=MemoryConfig())
    view = open_browser(desktop_factory(stack.assistant), run)
    run(wait_for(lambda: view.status.text().startswith("0 memories shown")))
    assert view.memories_empty.isVisible()
    assert not view.memories.isVisible()  # no header over an empty table
    assert "No memories yet" in view.memories_empty.text()
    assert "Add memory" in view.memories_empty.text()
    view.tabs.setCurrentIndex(1)
    assert view.inbox_empty.isVisible()
    assert not view.inbox.isVisible()
    assert "Nothing to review" in view.inbox_empty.text()
    view.tabs.setCurrentIndex(0)

    view.add_button.click()
    assert view.save_button.text() == "Add memory"  # not "Save changes" for a new one
    view.content.setPlainText("My sister is called Ada")
    view.save_button.click()
    run(wait_for(lambda: view.status.text() == "Added."))
    run(wait_for(lambda: view.memories.rowCount() == 1))
    view.search.setText("sister")
    view.search.returnPressed.emit()
    run(wait_for(lambda: view.status.text().startswith("1 memory shown")))
    assert not view.memories_empty.isVisible()
    assert view.memories.isVisible()
    assert view.save_button.text() == "Save changes"
    view.search.setText("nothing like this")
    view.search.returnPressed.emit()
    run(wait_for(lambda: view.status.text().startswith("0 memories shown")))
    assert "No memory matches this search" in view.memories_empty.text()


def _drop(target: Any, paths: list[Path]) -> None:
    """Drag ``paths`` from a file manager onto ``target`` and let go (Qt's own events)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path)) for path in paths])
    action, buttons = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton
    enter = QDragEnterEvent(QPoint(10, 10), action, mime, buttons, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(10, 10), action, mime, buttons, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, drop)


def test_files_dropped_onto_the_empty_knowledge_window_are_added_with_a_plain_result(
    desktop_factory: Any, stack: Any, run: Any, tmp_path: Path
) -> None:
    notes, recipe = tmp_path / "notes.md", tmp_path / "recipe.txt"
    notes.write_text("# Notes\n\nThe boiler is serviced every March.\n", encoding="utf-8")
    recipe.write_text("Pancakes need two eggs and a cup of milk.\n", encoding="utf-8")
    assistant, _service = _with_knowledge(stack, run)
    desktop = desktop_factory(assistant)
    desktop.actions.knowledge.trigger()
    view = desktop.knowledge.view
    run(wait_for(lambda: view.empty.isVisible()))
    assert "Drag files or folders onto this window" in view.empty.text()
    assert not view.sources.isVisible()
    assert view.browse_files_button.text() == "Add files…"
    assert view.browse_folder_button.text() == "Add folder…"

    _drop(view, [notes, recipe])
    run(wait_for(lambda: view.report.text().startswith("Added"), 20))
    assert view.report.text() == "Added 2 items (2 files)."
    run(wait_for(lambda: view.sources.rowCount() == 2, 20))
    assert not view.empty.isVisible()
    assert "(s)" not in view.status.text()
    assert view.status.text().startswith("2 files, ")
