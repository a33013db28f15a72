"""The "Reminders & lists" window's behaviour: draw the board, turn clicks into port calls.

Every change goes through the attached ARIA's ports (``ListAccess``, ``TimerAccess``); the
window is redrawn when the board says a part changed, and the board is read again when ARIA
publishes the change — so a change made here, by voice or by ``aria lists`` looks the same.
"""

from __future__ import annotations

from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QIcon
from PySide6.QtWidgets import QListWidgetItem

from aria_desktop.core.ports import ListAccess, ReminderAccess
from aria_desktop.domain.lists import KEPT_LISTS, canonical_list_name, list_name_problem
from aria_desktop.domain.reminders import NewReminder
from aria_desktop.gui.controllers.everyday_board import (
    EMPTY_REMINDERS,
    EMPTY_TIMERS,
    BoardPart,
    ListRow,
    ReminderRow,
    TimerRow,
    list_title,
    moment,
)
from aria_desktop.gui.controllers.everyday_sync import EverydaySync
from aria_desktop.gui.controllers.window import WindowController
from aria_desktop.gui.views.everyday import EverydayView, late_colour

__all__ = ["EverydayController"]

_ID_ROLE = Qt.ItemDataRole.UserRole
_NAME_ROLE = Qt.ItemDataRole.UserRole + 1
TABS = ("lists", "reminders", "timers")


class EverydayController(WindowController[EverydayView]):
    """Opens the window and keeps it drawn from ``sync.board``."""

    def __init__(self, sync: EverydaySync, icon: QIcon, check_mark: Path | None = None) -> None:
        """``check_mark``: the SVG of a checked entry's box (``resources/icons/check.svg``)."""
        super().__init__(icon)
        self._check_mark = check_mark
        self.sync = sync
        self.board = sync.board
        self._drawing = False
        self._new_list = ""
        """A list named with "New list" that has no entry yet (it exists once it has one)."""
        self.board.observe(self._on_board)
        sync.ticked.connect(self._on_tick)
        sync.problem.connect(self._show_problem)

    def open(self, tab: str = "") -> EverydayView:
        """Show the window (on ``tab``: lists, reminders or timers) and read everything."""
        view = self._ensure_view()
        if tab in TABS:
            view.tabs.setCurrentIndex(TABS.index(tab))
        self._bring_up(view)
        self.sync.reload_all()
        self._redraw_all()
        return view

    def _ensure_view(self) -> EverydayView:
        if self.view is not None:
            return self.view
        view = EverydayView(self._icon, check_mark=self._check_mark)
        self.view = view
        # Lists and reminders are followed only while the window is shown (closed: hidden).
        self.sync.watched = view.isVisible
        view.list_names.currentItemChanged.connect(self._on_list_chosen)
        view.entries.itemChanged.connect(self._on_entry_checked)
        view.entries.itemSelectionChanged.connect(self._enable_buttons)
        view.add_button.clicked.connect(self.add_entry)
        view.entry.returnPressed.connect(self.add_entry)
        view.remove_button.clicked.connect(self.remove_entry)
        view.clear_done_button.clicked.connect(self.clear_checked)
        view.new_list_button.clicked.connect(self.new_list)
        view.new_list.returnPressed.connect(self.new_list)
        view.delete_list_button.clicked.connect(self.delete_list)
        view.reminders.itemSelectionChanged.connect(self._enable_buttons)
        view.cancel_reminder_button.clicked.connect(self.cancel_reminder)
        view.add_reminder_button.clicked.connect(self.add_reminder)
        view.reminder_when.returnPressed.connect(self.add_reminder)
        view.timers.itemSelectionChanged.connect(self._enable_buttons)
        view.stop_ringing_button.clicked.connect(self.sync.stop_ringing)
        view.pause_button.clicked.connect(lambda: self._timer_action("pause"))
        view.resume_button.clicked.connect(lambda: self._timer_action("resume"))
        view.cancel_timer_button.clicked.connect(lambda: self._timer_action("cancel"))
        return view

    # --- drawing ------------------------------------------------------------------------------

    def _on_board(self, part: BoardPart) -> None:
        if self.view is None:
            return
        if part == "lists":
            self._draw_lists()
            self._draw_items()
        elif part == "items":
            self._draw_items()
        elif part == "reminders":
            self._draw_reminders()
        elif part in ("timers", "ringing"):
            self._draw_timers()
        self._enable_buttons()

    def _on_tick(self) -> None:
        if self.view is not None and self.view.isVisible():
            self._draw_timers()

    def _redraw_all(self) -> None:
        self._draw_lists()
        self._draw_items()
        self._draw_reminders()
        self._draw_timers()
        self._enable_buttons()

    def _draw_lists(self) -> None:
        view = self._ensure_view()
        rows = self.board.list_rows()
        if self._new_list and self._new_list not in {row.name for row in rows}:
            rows.append(ListRow(name=self._new_list, label=list_title(self._new_list)))
        self._drawing = True
        try:
            view.list_names.clear()
            for row in rows:
                item = QListWidgetItem(row.label)
                item.setData(_NAME_ROLE, row.name)
                if row.problem:
                    item.setToolTip(row.problem)
                view.list_names.addItem(item)
                if row.name == self.board.selected:
                    view.list_names.setCurrentItem(item)
        finally:
            self._drawing = False

    def _draw_items(self) -> None:
        view = self._ensure_view()
        name = self.board.selected
        title = list_title(name)
        view.list_heading.setText(f"{title} list")
        view.entry.setPlaceholderText(f"Add to the {title.lower()} list")
        unavailable = self.board.unavailable.get("lists", "")
        empty = unavailable or self.board.items_empty_text()
        self._drawing = True
        try:
            view.entries.clear()
            for row in self.board.item_rows():
                item = QListWidgetItem(row.text + (f"  ({row.note})" if row.note else ""))
                item.setData(_ID_ROLE, row.id)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if row.done else Qt.CheckState.Unchecked)
                if row.done:
                    font = QFont(item.font())
                    font.setStrikeOut(True)
                    item.setFont(font)
                    item.setForeground(view.palette().placeholderText())
                view.entries.addItem(item)
        finally:
            self._drawing = False
        view.show_empty(view.entries_stack, view.entries_empty, empty)

    def _draw_reminders(self) -> None:
        view = self._ensure_view()
        rows = self.board.reminder_rows(self.sync.clock())
        unavailable = self.board.unavailable.get("reminders", "")
        view.show_empty(
            view.reminders_stack,
            view.reminders_empty,
            unavailable or ("" if rows else EMPTY_REMINDERS),
        )
        view.fill_table(
            view.reminders, [(r.when, r.text, r.kind, r.state) for r in rows], [r.id for r in rows]
        )
        late, usual = late_colour(view.palette()), view.palette().text()
        for index, row in enumerate(rows):
            state = view.reminders.item(index, 3)
            if state is not None:
                state.setForeground(late if row.late else usual)
        pending = sum(1 for row in rows if row.pending)
        label = "Reminders && alarms"
        view.tabs.setTabText(TABS.index("reminders"), f"{label} ({pending})" if pending else label)

    def _draw_timers(self) -> None:
        view = self._ensure_view()
        rows = self.board.timer_rows(self.sync.clock())
        unavailable = self.board.unavailable.get("timers", "")
        view.show_empty(
            view.timers_stack, view.timers_empty, unavailable or ("" if rows else EMPTY_TIMERS)
        )
        view.fill_table(
            view.timers, [(r.title, r.left, r.set_for, r.state) for r in rows], [r.id for r in rows]
        )
        for index in range(len(rows)):
            left = view.timers.item(index, 1)
            if left is not None and not left.font().bold():
                bold = QFont(left.font())
                bold.setBold(True)
                left.setFont(bold)
        view.tabs.setTabText(TABS.index("timers"), f"Timers ({len(rows)})" if rows else "Timers")
        view.stop_ringing_button.setVisible(self.board.ringing)

    def _enable_buttons(self) -> None:
        view = self.view
        if view is None:
            return
        entry = view.entries.currentItem()
        view.remove_button.setEnabled(entry is not None and bool(view.entries.selectedItems()))
        view.clear_done_button.setEnabled(self.board.done_count > 0)
        view.delete_list_button.setEnabled(self.board.selected not in KEPT_LISTS)
        reminder = self._selected_reminder()
        view.cancel_reminder_button.setEnabled(reminder is not None and reminder.pending)
        timer = self._selected_timer()
        paused = timer is not None and timer.paused
        view.pause_button.setEnabled(timer is not None and not paused)
        view.resume_button.setEnabled(paused)
        view.cancel_timer_button.setEnabled(timer is not None)

    def _show_problem(self, message: str, _hint: str) -> None:
        """A failed change, said in the status line.

        The port's hint is for the command line (it names ``aria`` commands), so only the
        message is shown; the window itself is where to act.
        """
        if self.view is not None:
            self.view.status.setText(message)

    # --- lists --------------------------------------------------------------------------------

    def _lists(self) -> ListAccess | None:
        lists = self.sync.lists()
        if lists is None and self.view is not None:
            self.view.status.setText("Lists are not available right now.")
        return lists

    def _spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> None:
        if self.view is not None:
            self.view.status.setText("")
        self.sync.spawn(coro, name)

    def _on_list_chosen(self, current: QListWidgetItem | None, _previous: object) -> None:
        if self._drawing or current is None:
            return
        if self.board.select(str(current.data(_NAME_ROLE))):
            self.sync.reload("items")
        self._enable_buttons()

    def add_entry(self) -> None:
        """Put the typed entry on the selected list."""
        view = self._ensure_view()
        text = " ".join(view.entry.text().split())
        lists = self._lists()
        if not text or lists is None:
            return
        view.entry.clear()
        self._spawn(self._add(lists, self.board.selected, text), "aria-gui-list-add")

    async def _add(self, lists: ListAccess, name: str, text: str) -> None:
        await lists.add(name, [text])
        if name == self._new_list:
            self._new_list = ""
        self._say(f"Added “{text}” to the {list_title(name).lower()} list.")

    def _on_entry_checked(self, item: QListWidgetItem) -> None:
        lists = self._lists()
        if self._drawing or lists is None:
            return
        entry_id, name = str(item.data(_ID_ROLE)), self.board.selected
        checked = item.checkState() == Qt.CheckState.Checked
        change = lists.complete if checked else lists.reopen
        self._spawn(change(name, entry_id, by_id=True), "aria-gui-list-check")

    def remove_entry(self) -> None:
        """Delete the selected entry."""
        view = self._ensure_view()
        item = view.entries.currentItem()
        lists = self._lists()
        if item is None or lists is None:
            return
        entry_id = str(item.data(_ID_ROLE))
        self._spawn(lists.remove(self.board.selected, entry_id, by_id=True), "aria-gui-list-remove")

    def clear_checked(self) -> None:
        """Delete the selected list's checked-off entries."""
        lists = self._lists()
        if lists is not None:
            self._spawn(self._clear(lists, self.board.selected), "aria-gui-list-clear")

    async def _clear(self, lists: ListAccess, name: str) -> None:
        cleared = await lists.clear_done(name)
        self._say(f"Cleared {cleared} checked entr{'y' if cleared == 1 else 'ies'}.")

    def new_list(self) -> None:
        """Start a list of the user's own: it is shown at once and exists with its first entry."""
        view = self._ensure_view()
        typed = view.new_list.text()
        problem = list_name_problem(typed)
        if problem:
            view.status.setText(problem)
            return
        name = canonical_list_name(typed)
        view.new_list.clear()
        if name not in {summary.name for summary in self.board.lists}:
            self._new_list = name
        self.board.select(name)
        self._draw_lists()
        self._draw_items()
        view.entry.setFocus()
        self._say(f"Add the first entry to the {list_title(name).lower()} list below.")

    def delete_list(self) -> None:
        """Delete the selected list of the user's own with its entries."""
        name = self.board.selected
        if name in KEPT_LISTS:
            return
        if name == self._new_list:
            self._new_list = ""
            self.sync.reload("lists")
            return
        lists = self._lists()
        if lists is not None:
            self._spawn(self._delete(lists, name), "aria-gui-list-delete")

    async def _delete(self, lists: ListAccess, name: str) -> None:
        await lists.delete_list(name)
        self._say(f"Deleted the {list_title(name).lower()} list.")

    def _say(self, text: str) -> None:
        if self.view is not None:
            self.view.status.setText(text)

    # --- reminders ----------------------------------------------------------------------------

    def _selected_reminder(self) -> ReminderRow | None:
        view = self.view
        if view is None or not view.reminders.selectedItems():
            return None
        chosen = view.selected_id(view.reminders)
        rows = self.board.reminder_rows(self.sync.clock())
        return next((row for row in rows if row.id == chosen), None)

    def cancel_reminder(self) -> None:
        """Cancel the selected pending reminder or alarm."""
        reminder = self._selected_reminder()
        reminders = self.sync.reminders()
        if reminder is None or not reminder.pending or reminders is None:
            return
        self._spawn(self._cancel_reminder(reminders, reminder), "aria-gui-reminder-cancel")

    async def _cancel_reminder(self, reminders: ReminderAccess, reminder: ReminderRow) -> None:
        await reminders.cancel_reminder(reminder.id)
        self._say(f"Cancelled the {reminder.kind.lower()} for {reminder.when}.")

    def add_reminder(self) -> None:
        """Set the typed reminder or alarm; ``when`` is read as people say it."""
        view = self._ensure_view()
        text = " ".join(view.reminder_text.text().split())
        when = " ".join(view.reminder_when.text().split())
        kind = str(view.reminder_kind.currentData())
        reminders = self.sync.reminders()
        if reminders is None:
            view.status.setText("Reminders are not available right now.")
            return
        if not when:
            view.status.setText("Say when: for example “tomorrow at 9 am” or “in 20 minutes”.")
            return
        if not text and kind == "reminder":
            view.status.setText("Type what to remember.")
            return
        new = NewReminder(text=text, when=when, kind="alarm" if kind == "alarm" else "reminder")
        self._spawn(self._add_reminder(reminders, new), "aria-gui-reminder-add")

    async def _add_reminder(self, reminders: ReminderAccess, new: NewReminder) -> None:
        added = await reminders.add_reminder(new)
        view = self._ensure_view()
        view.reminder_text.clear()
        view.reminder_when.clear()
        kind = "alarm" if added.kind == "alarm" else "reminder"
        self._say(f"Set a {kind} for {moment(added.due_at, self.sync.clock())}.")

    # --- timers -------------------------------------------------------------------------------

    def _selected_timer(self) -> TimerRow | None:
        view = self.view
        if view is None or not view.timers.selectedItems():
            return None
        chosen = view.selected_id(view.timers)
        rows = self.board.timer_rows(self.sync.clock())
        return next((row for row in rows if row.id == chosen), None)

    def _timer_action(self, action: str) -> None:
        timer = self._selected_timer()
        change = None if timer is None else self.sync.timer_change(action, timer.id)
        if change is not None:
            self._spawn(change, f"aria-gui-timer-{action}")
