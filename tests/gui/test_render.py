"""Every window rendered on Xvfb (1280x800): PNGs in test-artifacts/, key widgets visible and
not clipped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from aria_desktop.domain.events import ActionConfirmRequest
from aria_desktop.domain.memory import NewMemory
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text
from tests.gui.conftest import ARTIFACTS, process_events, wait_for
from tests.gui.test_memory_browser import open_browser, turn_with_facts

REPLY = (
    "Here is a quick way to list files:\n\n```python\nfrom pathlib import Path\n"
    "for p in Path('.').iterdir():\n    print(p)\n```\n\n- works on every OS\n- no shell needed\n\n"
    "See the [pathlib docs](https://docs.python.org/3/library/pathlib.html)."
)


SETTLE_PASSES = 3
"""Loop passes after the windows are exposed: Qt handles events posted during a pass (the
layout request a move posts, the update request a layout posts) in the next one."""


def settle(run: Any, *windows: QWidget) -> None:
    """Wait until ``windows`` are on screen, then let Qt lay out and paint them.

    On the conditions, not on time: each window has been exposed by the X server (mapped and
    painted once), then a few loop passes handle what that posted (layout, repaint).
    """

    def exposed() -> bool:
        handles = [w.windowHandle() for w in windows]
        return all(h is not None and h.isExposed() for h in handles)

    run(wait_for(exposed))
    for _ in range(SETTLE_PASSES):
        process_events(run)


def screenshot(name: str, theme: str = "light") -> Path:
    """The whole screen as ``test-artifacts/<name>-<theme>.png`` (look at both themes)."""
    ARTIFACTS.mkdir(exist_ok=True)
    screen = QGuiApplication.primaryScreen()
    assert (screen.geometry().width(), screen.geometry().height()) == (1280, 800)
    path = ARTIFACTS / f"{name}-{theme}.png"
    assert screen.grabWindow(0).save(str(path))
    return path


def assert_fully_visible(window: QWidget, widgets: list[QWidget]) -> None:
    screen = QGuiApplication.primaryScreen().geometry()
    frame = window.frameGeometry()
    assert window.isVisible(), window.windowTitle()
    assert screen.contains(frame), f"{window.windowTitle()} {frame} leaves the screen"
    bounds = window.rect()
    for widget in widgets:
        name = widget.objectName() or type(widget).__name__
        assert widget.isVisible(), f"{name} is not visible"
        top_left = widget.mapTo(window, QPoint(0, 0))
        area = QRect(top_left, widget.size())
        assert bounds.contains(area), f"{name} {area} is clipped by the window {bounds}"
        hint = widget.minimumSizeHint()
        squeezed = f"{name} is squeezed: {widget.size()} < {hint}"
        assert widget.width() >= hint.width(), squeezed
        assert widget.height() >= hint.height(), squeezed


def test_chat_window_renders(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any, theme: str
) -> None:
    ollama.script("/api/chat", ollama_text(REPLY, chunks=5))
    desktop = desktop_factory(stack.assistant)
    done: list[str] = []
    desktop.chat.turn_finished.connect(lambda _r, s: done.append(s))
    desktop.show_shell()
    view = desktop.chat_view
    view.move(150, 60)
    desktop.chat.send("How do I list files in Python?")
    run(wait_for(lambda: bool(done) and view.conversations.count() == 1))
    settle(run, view)
    screenshot("chat-window", theme)
    assert_fully_visible(
        view,
        [
            view.conversations,
            view.search,
            view.new_button,
            view.rename_button,
            view.delete_button,
            view.banner,
            view.transcript,
            view.composer,
            view.send_button,
            view.stop_button,
            view.status,
        ],
    )
    assert "no system tray" in view.banner.text()


def test_quick_ask_renders(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any, theme: str
) -> None:
    ollama.script("/api/chat", ollama_text("It is **14:05** in Lisbon right now.", chunks=3))
    desktop = desktop_factory(stack.assistant)
    answered: list[str] = []
    desktop.quick_ask.answered.connect(lambda _r, s: answered.append(s))
    desktop.open_quick_ask()
    view = desktop.quick_ask_view
    view.prompt.setText("What time is it in Lisbon?")
    view.prompt.returnPressed.emit()
    run(wait_for(lambda: answered == ["complete"]))
    settle(run, view)
    screenshot("quick-ask", theme)
    assert_fully_visible(view, [view.prompt, view.answer])
    assert "14:05" in view.answer.plain_text()
    from PySide6.QtCore import Qt

    assert view.windowFlags() & Qt.WindowType.WindowStaysOnTopHint
    assert view.windowFlags() & Qt.WindowType.FramelessWindowHint


def test_confirm_dialog_and_overlay_render(
    desktop_factory: Any, stack: Any, run: Any, theme: str
) -> None:
    desktop = desktop_factory(stack.assistant)
    stack.orchestrator.bus.publish(
        ActionConfirmRequest(
            request_id="r1",
            nonce="n1",
            tool="computer_click",
            summary="Click “Send” in Thunderbird — Inbox (the message to Ana)",
            reason="Sending an e-mail cannot be undone.",
            timeout_s=60.0,
        )
    )
    run(wait_for(lambda: desktop.confirm.open_requests == ["r1"]))
    stack.orchestrator.set_state("acting")
    run(wait_for(lambda: desktop.overlay.isVisible()))
    dialog = desktop.confirm.dialog("r1")
    assert dialog is not None
    settle(run, dialog, desktop.overlay)
    screenshot("confirm-dialog-and-overlay", theme)
    assert_fully_visible(
        dialog,
        [
            dialog.summary,
            dialog.action,
            dialog.reason,
            dialog.approve_button,
            dialog.deny_button,
            dialog.countdown,
        ],
    )
    assert_fully_visible(desktop.overlay, [desktop.overlay.label, desktop.overlay.stop_button])
    desktop.confirm.close_all()


def test_memory_browser_renders(
    desktop_factory: Any, stack_factory: Any, ollama: FakeOllama, run: Any, theme: str
) -> None:
    from aria_desktop.core.memory.service import MemoryConfig

    stack = stack_factory(memory=MemoryConfig())
    turn_with_facts(
        stack,
        ollama,
        run,
        "I prefer tea over coffee; the Q3 report is in ~/work/q3.",
        [
            {"content": "I prefer tea over coffee", "kind": "preference", "importance": 0.7},
            {"content": "The Q3 report is in ~/work/q3", "kind": "document", "subject": "Q3"},
        ],
    )
    run(
        stack.assistant.add_memory(
            NewMemory(content="My wife's name is Dana", subject="Dana", importance=0.9)
        )
    )
    desktop = desktop_factory(stack.assistant)
    view = open_browser(desktop, run)
    view.move(140, 80)
    run(wait_for(lambda: view.memories.rowCount() == 3))
    row = next(i for i, m in enumerate(desktop.memory.memories) if "tea" in m.content)
    view.memories.selectRow(row)
    # Learnt in one conversation, the two facts are linked: the editor names the other one.
    run(wait_for(lambda: "Q3 report" in view.related.text()))
    settle(run, view)
    screenshot("memory-browser", theme)
    assert_fully_visible(
        view,
        [
            view.search,
            view.kind_filter,
            view.subject_filter,
            view.status_filter,
            view.tier_filter,
            view.memories,
            view.content,
            view.tier,
            view.tier_pinned,
            view.provenance,
            view.save_button,
            view.forget_button,
            view.open_conversation_button,
            view.related_label,
            view.related,
        ],
    )
    assert view.open_conversation_button.isEnabled()


def test_wizard_renders(desktop_factory: Any, ollama: FakeOllama, run: Any, theme: str) -> None:
    from aria_desktop.compose.desktop_services import LocalSettingsService
    from aria_desktop.gui.views import wizard as pages
    from tests.gui.wizard_steps import go_to

    desktop = desktop_factory(None)
    LocalSettingsService().apply({"llm.ollama.url": ollama.url})
    view = desktop.wizard.open()
    view.move(300, 60)
    run(wait_for(lambda: desktop.wizard.server_ok))
    shown = {
        "welcome": (pages.WELCOME_PAGE, []),
        "model": (
            pages.MODEL_PAGE,
            [view.server_status, view.url, view.test_button, view.model, view.skip_choice],
        ),
        "voice": (pages.VOICE_PAGE, [view.voice_enabled, view.voice_status, view.devices]),
        "privacy": (pages.PRIVACY_PAGE, [view.file_roots, view.add_folder_button]),
        "homeassistant": (pages.HOME_ASSISTANT_PAGE, [view.ha_url, view.ha_test_button]),
        "finish": (pages.FINISH_PAGE, [view.summary, view.first_try]),
    }
    for name, (page, widgets) in shown.items():
        go_to(view, page)
        settle(run, view)
        screenshot(f"wizard-{name}", theme)
        assert_fully_visible(view, widgets)


def test_tray_menu_renders(desktop_factory: Any, stack: Any, run: Any, theme: str) -> None:
    desktop = desktop_factory(stack.assistant, use_tray=True)
    desktop.tray.refresh_capabilities()
    run(
        wait_for(
            lambda: desktop.tray.capabilities == {} and desktop.actions.stop_everything.isEnabled()
        )
    )
    menu = desktop.tray_view.menu
    menu.popup(QPoint(900, 420))
    settle(run, menu)
    screenshot("tray-menu", theme)
    assert menu.isVisible()
    screen = QGuiApplication.primaryScreen().geometry()
    assert screen.contains(menu.frameGeometry())
    for action in menu.actions():
        if action.isSeparator():
            continue
        area = menu.actionGeometry(action)
        assert menu.rect().contains(area), action.text()
        text_width = menu.fontMetrics().horizontalAdvance(action.text().split("\t")[0])
        assert area.width() >= text_width, f"{action.text()} is clipped"
    menu.hide()
