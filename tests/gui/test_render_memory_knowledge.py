"""The memory and knowledge windows rendered on Xvfb (1280x800), light and dark, in the states
a new user meets first: empty (saying what to do), adding a memory, a dropped-in document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aria_desktop.core.memory.service import MemoryConfig
from tests.gui.conftest import wait_for
from tests.gui.test_knowledge_gui import _with_knowledge
from tests.gui.test_memory_browser import open_browser
from tests.gui.test_render import assert_fully_visible, screenshot, settle


def test_empty_memory_browser_renders(
    desktop_factory: Any, stack_factory: Any, run: Any, theme: str
) -> None:
    stack = stack_factory(memory=MemoryConfig())
    view = open_browser(desktop_factory(stack.assistant), run)
    view.move(140, 80)
    run(wait_for(lambda: view.memories_empty.isVisible()))
    view.add_button.click()
    settle(run, view)
    screenshot("memory-browser-empty-adding", theme)
    assert_fully_visible(view, [view.memories_empty, view.add_button, view.save_button])


def test_knowledge_window_renders_empty_and_with_a_document(
    desktop_factory: Any, stack: Any, run: Any, tmp_path: Path, theme: str
) -> None:
    assistant, _service = _with_knowledge(stack, run)
    desktop = desktop_factory(assistant)
    desktop.actions.knowledge.trigger()
    view = desktop.knowledge.view
    view.move(150, 100)
    run(wait_for(lambda: view.empty.isVisible()))
    settle(run, view)
    screenshot("knowledge-empty", theme)
    assert_fully_visible(
        view, [view.empty, view.browse_files_button, view.browse_folder_button, view.add_button]
    )
    notes = tmp_path / "boiler.md"
    notes.write_text("# Boiler\n\nServiced every March by Ada.\n", encoding="utf-8")
    desktop.knowledge.add_paths([str(notes)])
    run(wait_for(lambda: view.sources.rowCount() == 1, 20))
    run(wait_for(lambda: view.report.text().startswith("Added"), 20))
    settle(run, view)
    screenshot("knowledge-added", theme)
    assert_fully_visible(view, [view.sources, view.report, view.status])
