"""The everyday skills' desktop face rendered on Xvfb (1280x800), light and dark: the
"Reminders & lists" window (each tab, filled and empty), the chat badge of a local answer and
the tray menu with timers and "Stop ringing". PNGs in test-artifacts/; widgets visible and
not clipped; no raw backend names or commands in what is shown."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from aria_desktop.domain.reminders import NewReminder, Reminder, ReminderKind
from aria_desktop.domain.skill_events import RingingChanged
from tests.gui.conftest import Runner, wait_for
from tests.gui.everyday import skills_app
from tests.gui.test_render import assert_fully_visible, screenshot, settle

__all__ = ["skills_app"]

THEMES = ("light", "dark")


def dark_palette() -> QPalette:
    """A dark desktop's palette (KDE's Breeze Dark colours, as a platform theme hands Qt).

    Xvfb has no platform theme to switch, so the palette is set as a dark desktop sets it.
    """
    roles = QPalette.ColorRole
    colours = {
        roles.Window: "#2a2e32",
        roles.WindowText: "#fcfcfc",
        roles.Base: "#1b1e20",
        roles.AlternateBase: "#232629",
        roles.Text: "#fcfcfc",
        roles.Button: "#31363b",
        roles.ButtonText: "#fcfcfc",
        roles.Highlight: "#3daee9",
        roles.HighlightedText: "#fcfcfc",
        roles.PlaceholderText: "#a1a9b1",
        roles.ToolTipBase: "#31363b",
        roles.ToolTipText: "#fcfcfc",
        roles.Light: "#40464c",
        roles.Midlight: "#363b40",
        roles.Mid: "#25292c",
        roles.Dark: "#1b1e20",
        roles.Shadow: "#0f1012",
        roles.Link: "#1d99f3",
    }
    palette = QPalette()
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6e7174"))
    return palette


@pytest.fixture(params=THEMES)
def theme(request: pytest.FixtureRequest, qapp: QApplication) -> Iterator[str]:
    """The desktop's theme for the test: light (Qt's own palette) or dark."""
    saved = qapp.palette()
    if request.param == "dark":
        qapp.setPalette(dark_palette())
    try:
        yield str(request.param)
    finally:
        qapp.setPalette(saved)


def fill(skills_app: Any, run: Runner) -> None:
    """Lists, reminders and timers as a person would have them."""
    assistant = skills_app.assistant
    run(assistant.lists.add("shopping", ["oat milk", "eggs", "sourdough bread", "coffee beans"]))
    run(assistant.lists.complete("shopping", "eggs"))
    run(assistant.lists.add("hardware", ["wood screws 4x40"]))
    reminders: tuple[tuple[str, str, ReminderKind], ...] = (
        ("call mom", "tomorrow at 9 am", "reminder"),
        ("", "every weekday at 7", "alarm"),
        ("take the bins out", "in 20 minutes", "reminder"),
    )
    for text, when, kind in reminders:
        run(assistant.reminders.add_reminder(NewReminder(text=text, when=when, kind=kind)))
    run(assistant.timers.start_timer(252, name="pasta"))
    run(assistant.timers.start_timer(600))


def ink_and_paper(transcript: Any, words: str) -> tuple[QColor, QColor]:
    """The colour ``words`` are drawn in, and the colour of the card behind them."""
    found = transcript.document().find(words)
    assert not found.isNull(), words
    brush = found.charFormat().foreground()
    palette = transcript.palette()
    text = brush.color() if brush.style() != Qt.BrushStyle.NoBrush else palette.text().color()
    paper = found.currentFrame().frameFormat().background()
    background = paper.color() if paper.style() != Qt.BrushStyle.NoBrush else palette.base().color()
    return text, background


def visible_text(view: Any) -> str:
    """Every label, cell and tab a person reads in the window."""
    parts = [view.tabs.tabText(i) for i in range(view.tabs.count())]
    parts += [view.status.text(), view.list_heading.text(), view.entries_empty.text()]
    parts += [view.reminders_empty.text(), view.timers_empty.text()]
    for table in (view.reminders, view.timers):
        parts += [
            table.item(r, c).text()
            for r in range(table.rowCount())
            for c in range(table.columnCount())
        ]
    parts += [view.entries.item(i).text() for i in range(view.entries.count())]
    return "\n".join(parts)


@pytest.mark.parametrize("tab", ["lists", "reminders", "timers"])
def test_the_reminders_and_lists_window_renders(
    theme: str, tab: str, desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    fill(skills_app, run)
    desktop = desktop_factory(skills_app.assistant)
    view = desktop.everyday.open(tab)
    view.move(170, 90)
    run(wait_for(lambda: view.timers.rowCount() == 2 and view.reminders.rowCount() == 3))
    run(wait_for(lambda: view.entries.count() == 4))
    if tab == "reminders":  # one delivered late while ARIA was off, as the scheduler marks it
        board = desktop.everyday_sync.board
        now = desktop.everyday_sync.clock()
        late = Reminder(
            id="late1",
            text="water the plants",
            due_at=now - 7200,
            state="delivered",
            delivered_at=now - 1800,
            late=True,
        )
        board.set_reminders([*board.reminders, late])
    if tab == "timers":
        skills_app.orchestrator.bus.publish(RingingChanged(ringing=True))
        run(wait_for(lambda: view.stop_ringing_button.isVisible()))
        view.timers.selectRow(0)
    settle(run, view)
    screenshot(f"everyday-{tab}-{theme}")
    widgets = {
        "lists": [
            view.list_names,
            view.new_list,
            view.new_list_button,
            view.delete_list_button,
            view.list_heading,
            view.entries,
            view.entry,
            view.add_button,
            view.remove_button,
            view.clear_done_button,
        ],
        "reminders": [
            view.reminders,
            view.reminder_text,
            view.reminder_when,
            view.reminder_kind,
            view.add_reminder_button,
            view.cancel_reminder_button,
        ],
        "timers": [
            view.timers,
            view.stop_ringing_button,
            view.pause_button,
            view.resume_button,
            view.cancel_timer_button,
        ],
    }[tab]
    assert_fully_visible(view, [view.tabs, *widgets])
    shown = visible_text(view)
    for raw in ("skills", "aria ", "todo", "_", "--"):
        assert raw not in shown, raw


def test_the_empty_window_says_what_to_do(
    theme: str, desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant)
    view = desktop.everyday.open("timers")
    view.move(170, 90)
    run(wait_for(lambda: view.timers_stack.currentWidget() is view.timers_empty))
    settle(run, view)
    screenshot(f"everyday-empty-timers-{theme}")
    assert_fully_visible(view, [view.timers_empty])
    view.tabs.setCurrentIndex(0)
    run(wait_for(lambda: view.entries_stack.currentWidget() is view.entries_empty))
    settle(run, view)
    screenshot(f"everyday-empty-lists-{theme}")
    assert_fully_visible(view, [view.entries_empty, view.entry, view.add_button])


def test_the_chat_badge_of_a_local_answer_renders(
    theme: str, desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant)
    done: list[str] = []
    desktop.chat.turn_finished.connect(lambda _r, status: done.append(status))
    view = desktop.chat_view
    view.move(150, 60)
    desktop.open_chat()
    for said in ("add oat milk and eggs to my shopping list", "set a timer for 5 minutes"):
        expected = len(done) + 1
        desktop.chat.send(said)

        def answered(expected: int = expected) -> bool:
            return len(done) == expected

        run(wait_for(answered, timeout_s=30), timeout_s=40)
    run(wait_for(lambda: view.conversations.count() == 1))
    settle(run, view)
    screenshot(f"chat-local-badge-{theme}")
    shown = view.transcript.plain_text()
    assert "Answered on this computer · Lists" in shown
    assert "Answered on this computer · Timers" in shown
    assert "skills" not in shown
    assert_fully_visible(view, [view.transcript, view.composer])
    for words in ("Added oat milk", "Answered on this computer · Lists", "add oat milk"):
        ink, paper = ink_and_paper(view.transcript, words)
        assert abs(ink.lightness() - paper.lightness()) > 110, (words, theme)
    run(skills_app.assistant.timers.cancel_all_timers())


def test_the_tray_menu_with_timers_and_stop_ringing_renders(
    theme: str, desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant, use_tray=True)
    run(skills_app.assistant.timers.start_timer(252, name="pasta"))
    run(skills_app.assistant.timers.start_timer(600))
    skills_app.orchestrator.bus.publish(RingingChanged(ringing=True))
    run(
        wait_for(
            lambda: (
                len(desktop.tray_skills.timer_actions) == 2 and desktop.everyday_sync.board.ringing
            )
        )
    )
    menu = desktop.tray_view.menu
    menu.popup(QPoint(820, 300))
    settle(run, menu)
    screenshot(f"tray-menu-timers-{theme}")
    screen = QGuiApplication.primaryScreen().geometry()
    assert screen.contains(menu.frameGeometry())
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert texts[0] == "Stop ringing"
    assert texts[1].startswith("Pasta — ")
    assert texts[1].endswith(" left")
    for action in menu.actions():
        if action.isSeparator():
            continue
        area = menu.actionGeometry(action)
        text_width = menu.fontMetrics().horizontalAdvance(action.text().split("\t")[0])
        assert area.width() >= text_width, f"{action.text()} is clipped"
    menu.hide()
    run(skills_app.assistant.timers.cancel_all_timers())
