"""The "Reminders & lists" window against a whole ARIA with no model: lists change from the
window, from chat and by voice alike, and the window follows ARIA's events."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from aria_desktop.domain.skill_events import SkillDataChanged
from tests.gui.conftest import Runner, wait_for
from tests.gui.everyday import skills_app

__all__ = ["skills_app"]


def entries(view: Any) -> list[tuple[str, bool]]:
    widget = view.entries
    return [
        (widget.item(i).text(), widget.item(i).checkState() == Qt.CheckState.Checked)
        for i in range(widget.count())
    ]


def list_labels(view: Any) -> list[str]:
    return [view.list_names.item(i).text() for i in range(view.list_names.count())]


def test_the_window_opens_from_the_tray_menu_with_plain_empty_states(
    desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant, use_tray=True)
    assert desktop.actions.everyday in desktop.tray_view.menu.actions()
    desktop.actions.everyday.trigger()
    view = desktop.everyday.view
    run(wait_for(lambda: list_labels(view) == ["Shopping", "To-do"]))
    assert view.isVisible()
    assert view.windowTitle() == "ARIA — Reminders & lists"
    assert view.entries_stack.currentWidget() is view.entries_empty
    assert '"add milk to my shopping list"' in view.entries_empty.text()
    view.tabs.setCurrentIndex(2)
    assert view.timers_stack.currentWidget() is view.timers_empty
    assert '"set a timer for 10 minutes"' in view.timers_empty.text()


def test_entries_added_by_chat_and_in_the_window_are_checked_off_and_cleared(
    desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant)
    view = desktop.everyday.open("lists")
    run(wait_for(lambda: list_labels(view) == ["Shopping", "To-do"]))

    desktop.chat.send("add milk and eggs to my shopping list")  # the window follows the event
    run(wait_for(lambda: entries(view) == [("milk", False), ("eggs", False)]))
    assert list_labels(view)[0] == "Shopping (2)"

    view.entry.setText("  bread  ")
    view.add_button.click()
    run(wait_for(lambda: [text for text, _ in entries(view)] == ["milk", "eggs", "bread"]))
    assert view.status.text() == "Added “bread” to the shopping list."

    view.entries.item(0).setCheckState(Qt.CheckState.Checked)  # milk
    run(wait_for(lambda: entries(view)[-1] == ("milk", True)))
    assert view.entries.item(2).font().strikeOut()
    stored = run(skills_app.assistant.lists.items("shopping", include_done=True))
    assert [(i.text, i.done) for i in stored] == [("eggs", False), ("bread", False), ("milk", True)]
    assert view.clear_done_button.isEnabled()
    view.clear_done_button.click()
    run(wait_for(lambda: entries(view) == [("eggs", False), ("bread", False)]))
    assert not view.clear_done_button.isEnabled()

    view.entries.setCurrentRow(0)
    view.remove_button.click()
    run(wait_for(lambda: entries(view) == [("bread", False)]))


def test_a_list_of_ones_own_is_made_by_its_first_entry_and_deleted(
    desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant)
    view = desktop.everyday.open("lists")
    run(wait_for(lambda: list_labels(view) == ["Shopping", "To-do"]))
    assert not view.delete_list_button.isEnabled()  # shopping is always there
    view.new_list.setText("Hardware")
    view.new_list_button.click()
    assert list_labels(view) == ["Shopping", "To-do", "Hardware"]
    assert view.list_heading.text() == "Hardware list"
    assert '"add something to my hardware list"' in view.entries_empty.text()
    view.entry.setText("screws")
    view.entry.returnPressed.emit()
    run(wait_for(lambda: entries(view) == [("screws", False)]))
    assert "Hardware (1)" in list_labels(view)
    assert view.delete_list_button.isEnabled()
    view.delete_list_button.click()
    run(wait_for(lambda: list_labels(view) == ["Shopping", "To-do"]))
    assert view.list_heading.text() == "Shopping list"


def test_lists_are_read_again_only_when_aria_says_they_changed(
    desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant)
    view = desktop.everyday.open("lists")
    run(wait_for(lambda: list_labels(view) == ["Shopping", "To-do"]))
    run(skills_app.assistant.lists.add("todo", ["call the bank"]))
    run(wait_for(lambda: list_labels(view) == ["Shopping", "To-do (1)"]))
    view.close()  # the window's own close button: it is hidden, and no longer followed
    assert not desktop.everyday_sync.watched()
    seen: list[object] = []
    desktop.bridge.event_received.connect(seen.append)
    run(skills_app.assistant.lists.add("todo", ["water the plants"]))
    marker = SkillDataChanged(kind="reminders")
    skills_app.orchestrator.bus.publish(marker)  # events arrive in order: lists' came first
    run(wait_for(lambda: marker in seen))
    assert not desktop.tasks._tasks  # closed: nothing is read
    assert list_labels(view) == ["Shopping", "To-do (1)"]
    desktop.everyday.open()
    run(wait_for(lambda: list_labels(view) == ["Shopping", "To-do (2)"]))


def timer_cells(view: Any) -> list[tuple[str, ...]]:
    table = view.timers
    return [
        tuple(table.item(r, c).text() for c in range(table.columnCount()))
        for r in range(table.rowCount())
    ]


def test_timers_count_down_each_second_and_pause_resume_and_cancel(
    desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant)
    sync = desktop.everyday_sync
    now = [1_000_000.0]
    sync.clock = lambda: now[0]
    timers = skills_app.assistant.timers
    started = run(timers.start_timer(300, name="pasta"))
    view = desktop.everyday.open("timers")
    run(wait_for(lambda: len(timer_cells(view)) == 1))
    assert sync.ticking
    now[0] = started.ends_at - 252  # the tick re-renders against the clock; nothing is read
    ticks: list[None] = []
    sync.ticked.connect(lambda: ticks.append(None))
    run(wait_for(lambda: bool(ticks), timeout_s=3))
    assert timer_cells(view) == [("Pasta", "4:12", "5 min", "Running")]
    assert view.tabs.tabText(2) == "Timers (1)"

    view.timers.selectRow(0)
    assert view.pause_button.isEnabled()
    assert not view.resume_button.isEnabled()
    view.pause_button.click()
    run(wait_for(lambda: timer_cells(view)[0][3] == "Paused"))
    assert not sync.ticking  # nothing counts down: no tick
    assert view.resume_button.isEnabled()
    assert not view.pause_button.isEnabled()
    view.resume_button.click()
    run(wait_for(lambda: timer_cells(view)[0][3] == "Running" and sync.ticking))
    view.cancel_timer_button.click()
    run(wait_for(lambda: view.timers_stack.currentWidget() is view.timers_empty))
    assert view.tabs.tabText(2) == "Timers"
    assert not sync.ticking


def reminder_cells(view: Any) -> list[tuple[str, ...]]:
    table = view.reminders
    return [
        tuple(table.item(r, c).text() for c in range(table.columnCount()))
        for r in range(table.rowCount())
    ]


def test_reminders_set_in_the_window_and_by_chat_are_listed_and_cancelled(
    desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant)
    view = desktop.everyday.open("reminders")
    run(wait_for(lambda: view.reminders_stack.currentWidget() is view.reminders_empty))
    assert '"remind me at 4 pm to call mom"' in view.reminders_empty.text()

    view.reminder_text.setText("water the plants")
    view.reminder_when.setText("in 20 minutes")
    view.add_reminder_button.click()
    run(wait_for(lambda: len(reminder_cells(view)) == 1))
    _when, text, kind, state = reminder_cells(view)[0]
    assert (text, kind, state) == ("water the plants", "Reminder", "Pending · in 20 min")
    assert view.status.text().startswith("Set a reminder for ")
    assert view.tabs.tabText(1) == "Reminders && alarms (1)"

    desktop.chat.send("wake me up at 7")  # the window follows the change event
    run(wait_for(lambda: len(reminder_cells(view)) == 2))
    assert [cells[2] for cells in reminder_cells(view)].count("Alarm") == 1

    view.reminder_when.setText("")
    view.add_reminder_button.click()
    assert "Say when" in view.status.text()

    row = next(i for i, cells in enumerate(reminder_cells(view)) if cells[2] == "Reminder")
    view.reminders.selectRow(row)
    assert view.cancel_reminder_button.isEnabled()
    view.cancel_reminder_button.click()
    run(wait_for(lambda: len(reminder_cells(view)) == 1))
    assert reminder_cells(view)[0][2] == "Alarm"
    assert view.status.text().startswith("Cancelled the reminder for ")


def test_a_late_delivery_is_marked_in_the_window(
    desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    from aria_desktop.domain.reminders import Reminder
    from aria_desktop.gui.views.everyday import late_colour

    desktop = desktop_factory(skills_app.assistant)
    view = desktop.everyday.open("reminders")
    now = desktop.everyday_sync.clock()
    desktop.everyday_sync.board.set_reminders(
        [
            Reminder(
                id="r1",
                text="call mom",
                due_at=now - 3600,
                state="delivered",
                delivered_at=now - 600,
                late=True,
            )
        ]
    )
    assert reminder_cells(view)[0][3].startswith("Delivered late · ")
    state = view.reminders.item(0, 3)
    assert state.foreground().color() == late_colour(view.palette())
    assert not view.cancel_reminder_button.isEnabled()


def test_the_windows_stop_ringing_shows_while_one_rings_and_silences_it(
    desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    from aria_desktop.domain.skill_events import RingingChanged

    desktop = desktop_factory(skills_app.assistant)
    view = desktop.everyday.open("timers")
    assert not view.stop_ringing_button.isVisible()
    skills_app.orchestrator.bus.publish(RingingChanged(ringing=True))
    run(wait_for(lambda: view.stop_ringing_button.isVisible()))
    view.stop_ringing_button.click()  # nothing rang in fact: the button still goes away
    run(wait_for(lambda: not view.stop_ringing_button.isVisible()))
