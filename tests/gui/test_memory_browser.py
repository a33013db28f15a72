"""Memory browser: unavailable without memory; with it, edits reach the Assistant port."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QMessageBox

from aria_desktop.domain.memory import Memory, MemoryQuery
from aria_desktop.gui.memory_port import MemoryAccess
from tests.gui.conftest import wait_for
from tests.gui.memory_double import AssistantWithMemory

NOW = 1_760_000_000.0


def sample(conversation_id: str | None = None) -> list[Memory]:
    return [
        Memory(
            id="m1",
            content="The user prefers tea over coffee.",
            kind="preference",
            importance=0.7,
            created_at=NOW,
            updated_at=NOW,
            provenance="extracted",
            conversation_id=conversation_id,
        ),
        Memory(
            id="m2",
            content="The user's dog is called Rex.",
            kind="fact",
            created_at=NOW,
            updated_at=NOW,
        ),
        Memory(
            id="m3",
            content="The user is learning Portuguese.",
            kind="fact",
            status="proposed",
            confidence=0.8,
            created_at=NOW,
            updated_at=NOW,
            provenance="extracted",
        ),
    ]


def test_memory_browser_says_memory_is_not_available(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    assert not isinstance(stack.assistant, MemoryAccess)
    desktop = desktop_factory(stack.assistant)
    desktop.memory.open()
    view = desktop.memory.view
    assert view.unavailable.isVisible()
    assert "Memory not available" in view.unavailable.text()
    assert not view.body.isVisible()


def test_memory_edits_reach_the_port(desktop_factory: Any, stack: Any, run: Any) -> None:
    conversation = run(stack.assistant.create_conversation("Drinks"))
    assistant = AssistantWithMemory(stack.orchestrator, sample(conversation.id))
    assert isinstance(assistant, MemoryAccess)
    desktop = desktop_factory(assistant)
    controller = desktop.memory
    reloaded: list[int] = []
    controller.changed.connect(lambda: reloaded.append(1))
    desktop.tray.refresh_capabilities()
    run(wait_for(lambda: desktop.actions.memory.isEnabled()))
    desktop.actions.memory.trigger()
    view = controller.view
    run(wait_for(lambda: view.memories.rowCount() == 2))
    assert view.body.isVisible()
    assert not view.unavailable.isVisible()
    assert view.tabs.tabText(1) == "Inbox (1)"
    # Search goes to the port with the filters.
    view.kind_filter.setCurrentIndex(view.kind_filter.findData("preference"))
    view.search.setText("tea")
    run(wait_for(lambda: any(c[0] == "search" for c in assistant.calls)))
    query = next(c[1] for c in assistant.calls if c[0] == "search")
    assert query == MemoryQuery(text="tea", limit=100, kinds=("preference",), statuses=("active",))
    run(wait_for(lambda: view.memories.rowCount() == 1))
    # Edit the selected memory.
    view.memories.selectRow(0)
    assert view.content.toPlainText() == "The user prefers tea over coffee."
    assert "extracted" in view.provenance.text()
    view.content.setPlainText("The user prefers green tea.")
    view.importance.setValue(0.9)
    view.save_button.click()
    run(wait_for(lambda: any(c[0] == "update" for c in assistant.calls)))
    assert (
        "update",
        ("m1", "The user prefers green tea.", "preference", "user", 0.9),
    ) in assistant.calls
    # Provenance: jump to the conversation.
    opened: list[str] = []
    controller.open_conversation.connect(opened.append)
    view.open_conversation_button.click()
    assert opened == [conversation.id]
    # Forget asks first, then reaches the port.
    view.search.clear()
    view.kind_filter.setCurrentIndex(0)
    run(wait_for(lambda: view.memories.rowCount() == 2))
    view.memories.selectRow(1)
    view.forget_button.click()
    box = next(w for w in view.findChildren(QMessageBox) if w.isVisible())
    next(b for b in box.buttons() if b.text() == "Forget").click()
    run(wait_for(lambda: ("forget", "m2") in assistant.calls))
    run(wait_for(lambda: view.memories.rowCount() == 1))
    # Inbox: approve.
    view.tabs.setCurrentIndex(1)
    view.inbox.selectRow(0)
    view.approve_button.click()
    run(wait_for(lambda: ("approve", "m3") in assistant.calls))
    run(wait_for(lambda: view.inbox.rowCount() == 0 and view.memories.rowCount() == 2))
    # Add by hand.
    view.add_button.click()
    view.content.setPlainText("Birthday is on 3 May.")
    view.save_button.click()
    run(wait_for(lambda: any(c[0] == "add" for c in assistant.calls)))
    assert ("add", ("Birthday is on 3 May.", "fact", "user", 0.5, "manual")) in [
        (c[0], (c[1][0], c[1][1], c[1][2], round(c[1][3], 2), c[1][4]))
        for c in assistant.calls
        if c[0] == "add"
    ]


def test_rejecting_a_proposed_memory_reaches_the_port(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    assistant = AssistantWithMemory(stack.orchestrator, sample())
    desktop = desktop_factory(assistant)
    desktop.tray.refresh_capabilities()
    run(wait_for(lambda: desktop.actions.memory.isEnabled()))
    desktop.memory.open()
    view = desktop.memory.view
    run(wait_for(lambda: view.inbox.rowCount() == 1))
    view.inbox.selectRow(0)
    view.reject_button.click()
    run(wait_for(lambda: ("reject", "m3") in assistant.calls))
    run(wait_for(lambda: view.inbox.rowCount() == 0))
