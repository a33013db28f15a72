"""Memory browser over the real memory API: a ``LocalAssistant`` with the real
``MemoryService``, the real SQLite file and sqlite-vec (keyword search: vectors are not the
point here), facts extracted from real turns through the Ollama test server."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtWidgets import QMessageBox

from aria_desktop.core.memory.service import MemoryConfig
from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.commands import StartTurn
from aria_desktop.domain.memory import MEMORY_KINDS, MEMORY_STATUSES, NewMemory
from aria_desktop.gui.controllers.tray import NOT_INSTALLED
from aria_desktop.gui.views.memory_browser import MEMORY_COLUMNS
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text
from tests.gui.conftest import wait_for

TEA = "I prefer tea over coffee"


def extraction_reply(facts: list[dict[str, Any]]) -> Any:
    return ollama_text("```json\n" + json.dumps({"facts": facts}) + "\n```", chunks=3)


def turn_with_facts(
    stack: Any, ollama: FakeOllama, run: Any, text: str, facts: list[dict[str, Any]]
) -> str:
    """One real turn; the model's extraction proposes ``facts``. Returns the conversation id."""
    ollama.script("/api/chat", ollama_text("Noted!"), extraction_reply(facts))

    async def go() -> str:
        sub = stack.orchestrator.bus.subscribe()
        try:
            handle = await stack.assistant.start_turn(StartTurn(text=text))
            changed = 0
            async for event in sub:
                changed += event.type == "memory-changed"
                if changed == len(facts):
                    return str(handle.conversation_id)
            raise AssertionError("extraction did not finish")
        finally:
            sub.close()

    return str(run(go()))


def open_browser(desktop: Any, run: Any) -> Any:
    desktop.tray.refresh_capabilities()
    run(wait_for(lambda: desktop.actions.memory.isEnabled()))
    desktop.actions.memory.trigger()
    return desktop.memory.view


def test_memory_browser_explains_when_memory_is_not_set_up(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    desktop = desktop_factory(stack.assistant)
    desktop.tray.refresh_capabilities()
    run(wait_for(lambda: "memory" not in desktop.tray.capabilities and desktop.context.connected))
    assert not desktop.actions.memory.isEnabled()
    assert desktop.actions.memory.toolTip() == NOT_INSTALLED["memory"]
    desktop.memory.open()
    view = desktop.memory.view
    assert view.unavailable.isVisible()
    assert "Memory not available" in view.unavailable.text()
    assert "not set up" in view.unavailable.text()
    assert not view.body.isVisible()


def test_memory_unavailable_error_switches_the_browser_to_its_explanation(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    # The capability says yes but the Assistant has no memory service: its calls raise
    # MemoryUnavailableError, which the browser shows instead of an empty list.
    stack.orchestrator.register_capability(
        "memory", lambda: CapabilityStatus(name="memory", available=True)
    )
    desktop = desktop_factory(stack.assistant)
    view = open_browser(desktop, run)
    run(wait_for(lambda: view.unavailable.isVisible()))
    assert "Long-term memory is not set up" in view.unavailable.text()
    assert not view.body.isVisible()


def test_memory_browser_searches_edits_forgets_and_adds_real_memories(
    desktop_factory: Any, stack_factory: Any, ollama: FakeOllama, run: Any
) -> None:
    stack = stack_factory(memory=MemoryConfig())
    memory = stack.memory
    conversation_id = turn_with_facts(
        stack,
        ollama,
        run,
        "I prefer tea over coffee, and my dog is called Rex.",
        [
            {"content": TEA, "kind": "preference", "topic": "drink", "importance": 0.7},
            {"content": "My dog is called Rex", "kind": "fact", "subject": "user"},
        ],
    )
    assert len(run(memory.list_memories())) == 2
    desktop = desktop_factory(stack.assistant)
    view = open_browser(desktop, run)
    controller = desktop.memory
    run(wait_for(lambda: view.memories.rowCount() == 2))
    assert view.body.isVisible()
    assert not view.unavailable.isVisible()
    assert [view.kind_filter.itemData(i) for i in range(1, view.kind_filter.count())] == list(
        MEMORY_KINDS
    )
    assert [view.status_filter.itemData(i) for i in range(view.status_filter.count())] == list(
        MEMORY_STATUSES
    )
    assert view.tabs.tabText(1) == "Inbox"
    # Search with a kind filter runs against the store.
    view.kind_filter.setCurrentIndex(view.kind_filter.findData("preference"))
    view.search.setText("coffee")
    run(wait_for(lambda: [m.content for m in controller.memories] == [TEA]))
    assert view.memories.item(0, 0).text() == TEA
    assert view.memories.item(0, 1).text() == "preference"
    # Select and edit: the change is stored.
    view.memories.selectRow(0)
    assert view.content.toPlainText() == TEA
    assert view.provenance.text().startswith("learnt in a conversation")
    assert view.open_conversation_button.isEnabled()
    tea_id = controller.selected.id
    view.content.setPlainText("I prefer green tea over coffee")
    view.importance.setValue(0.9)
    view.save_button.click()
    run(wait_for(lambda: view.status.text() == "Saved."))
    stored = run(memory.get_memory(tea_id))
    assert (stored.content, stored.importance, stored.kind) == (
        "I prefer green tea over coffee",
        0.9,
        "preference",
    )
    assert controller.selected is not None
    assert controller.selected.id == tea_id
    # Provenance: the chat window opens that conversation, with its messages.
    view.open_conversation_button.click()
    run(wait_for(lambda: desktop.chat.conversation_id == conversation_id))
    run(wait_for(lambda: "my dog is called Rex" in desktop.chat_view.transcript.plain_text()))
    assert desktop.chat_view.isVisible()
    # Forget asks first; the memory is then marked forgotten (and listed under that status).
    view.search.clear()
    view.kind_filter.setCurrentIndex(0)
    run(wait_for(lambda: view.memories.rowCount() == 2 and not controller._search_timer.isActive()))
    rex_row = next(i for i, m in enumerate(controller.memories) if "Rex" in m.content)
    rex_id = controller.memories[rex_row].id
    view.memories.selectRow(rex_row)
    view.forget_button.click()
    box = next(w for w in view.findChildren(QMessageBox) if w.isVisible())
    next(b for b in box.buttons() if b.text() == "Forget").click()
    run(wait_for(lambda: view.memories.rowCount() == 1))
    assert run(memory.get_memory(rex_id)).status == "forgotten"
    view.status_filter.setCurrentIndex(view.status_filter.findData("forgotten"))
    run(wait_for(lambda: [m.id for m in controller.memories] == [rex_id]))
    view.status_filter.setCurrentIndex(view.status_filter.findData("active"))
    run(wait_for(lambda: view.memories.rowCount() == 1))
    # Add by hand: stored as manual, then selected.
    view.add_button.click()
    assert view.editor.title() == "New memory"
    view.content.setPlainText("My birthday is on 3 May")
    view.choose_kind("event")
    view.save_button.click()
    run(wait_for(lambda: view.status.text() == "Added."))
    added = [m for m in run(memory.list_memories()) if "birthday" in m.content]
    assert [(m.kind, m.provenance) for m in added] == [("event", "manual")]
    assert controller.selected is not None
    assert controller.selected.id == added[0].id
    assert view.provenance.text().startswith("added by you")
    assert not view.open_conversation_button.isEnabled()


def test_inbox_shows_proposed_memories_and_approves_or_rejects_them(
    desktop_factory: Any, stack_factory: Any, ollama: FakeOllama, run: Any
) -> None:
    stack = stack_factory(memory=MemoryConfig(ask_first=True))
    conversation_id = turn_with_facts(
        stack,
        ollama,
        run,
        "I'm allergic to peanuts and I like jazz.",
        [
            {"content": "I am allergic to peanuts", "kind": "fact", "importance": 0.9},
            {"content": "I like jazz", "kind": "preference", "subject": "user"},
        ],
    )
    desktop = desktop_factory(stack.assistant)
    view = open_browser(desktop, run)
    controller = desktop.memory
    run(wait_for(lambda: view.inbox.rowCount() == 2))
    assert view.memories.rowCount() == 0
    assert view.tabs.tabText(1) == "Inbox (2)"
    rows = [[view.inbox.item(r, c).text() for c in range(4)] for r in range(2)]
    assert rows == [
        ["I am allergic to peanuts", "fact", "user", "80%"],
        ["I like jazz", "preference", "user", "80%"],
    ]
    # A proposed memory is shown read-only, with where it came from.
    view.tabs.setCurrentIndex(1)
    view.inbox.selectRow(1)
    assert controller.selected_candidate is not None
    assert view.content.toPlainText() == "I like jazz"
    assert view.content.isReadOnly()
    assert not view.save_button.isVisible()
    assert view.editor.title() == "Proposed memory"
    assert view.provenance.text().startswith("proposed from a conversation")
    view.open_conversation_button.click()
    run(wait_for(lambda: desktop.chat.conversation_id == conversation_id))
    # Reject it, approve the other.
    view.reject_button.click()
    run(wait_for(lambda: view.inbox.rowCount() == 1))
    assert "Rejected" in view.status.text()
    view.inbox.selectRow(0)
    view.approve_button.click()
    run(wait_for(lambda: view.inbox.rowCount() == 0 and view.memories.rowCount() == 1))
    assert "Approved" in view.status.text()
    assert view.tabs.tabText(1) == "Inbox"
    assert run(stack.assistant.list_memory_inbox()) == []
    stored = run(stack.assistant.list_memories())
    assert [(m.content, m.conversation_id) for m in stored] == [
        ("I am allergic to peanuts", conversation_id)
    ]


def test_open_browser_refreshes_when_extraction_adds_to_the_inbox(
    desktop_factory: Any, stack_factory: Any, ollama: FakeOllama, run: Any
) -> None:
    stack = stack_factory(memory=MemoryConfig(ask_first=True))
    desktop = desktop_factory(stack.assistant)
    view = open_browser(desktop, run)
    run(wait_for(lambda: view.status.text().startswith("0 memories shown")))
    assert "keyword search only" in view.status.text()  # no embedder in this stack
    turn_with_facts(stack, ollama, run, "I work at Acme.", [{"content": "I work at Acme"}])
    run(wait_for(lambda: view.inbox.rowCount() == 1))
    assert view.tabs.tabText(1) == "Inbox (1)"


def test_a_memory_kept_in_the_stable_tier_is_pinned_listed_by_tier_and_released(
    desktop_factory: Any, stack_factory: Any, run: Any
) -> None:
    stack = stack_factory(memory=MemoryConfig(auto_extract=False))
    memory = stack.memory
    veg = run(memory.add_memory(NewMemory(content="I am vegetarian")))
    run(memory.add_memory(NewMemory(content="The plumber comes on Tuesday")))
    desktop = desktop_factory(stack.assistant)
    view = open_browser(desktop, run)
    controller = desktop.memory
    run(wait_for(lambda: view.memories.rowCount() == 2))
    tier_column = MEMORY_COLUMNS.index("Tier")
    assert {view.memories.item(r, tier_column).text() for r in range(2)} == {"New"}
    row = next(i for i, m in enumerate(controller.memories) if m.id == veg.id)
    view.memories.selectRow(row)
    assert not view.tier_pinned.isChecked()
    assert not view.tier.isEnabled()  # the use rules decide until the user keeps it
    view.tier_pinned.setChecked(True)
    assert view.tier.isEnabled()
    view.tier.setCurrentIndex(view.tier.findData("stable"))
    view.save_button.click()
    run(wait_for(lambda: view.status.text() == "Saved."))
    stored = run(memory.get_memory(veg.id))
    assert (stored.tier, stored.tier_pinned) == ("stable", True)
    view.tier_filter.setCurrentIndex(view.tier_filter.findData("stable"))
    run(wait_for(lambda: [m.id for m in controller.memories] == [veg.id]))
    assert view.memories.item(0, tier_column).text() == "Stable (kept)"
    view.memories.selectRow(0)
    assert view.tier_pinned.isChecked()
    view.tier_pinned.setChecked(False)
    view.status.setText("")
    view.save_button.click()
    run(wait_for(lambda: view.status.text() == "Saved."))
    assert not run(memory.get_memory(veg.id)).tier_pinned
    reasons = [c.reason for c in run(memory.memory_tier_changes(veg.id))]
    assert reasons == ["pinned by the user", "released to the use rules by the user"]
