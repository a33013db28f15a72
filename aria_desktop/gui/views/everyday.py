"""The "Reminders & lists" window: lists with their entries, reminders and alarms, timers.

Layout only: ``EverydayController`` fills it from the Qt-free ``EverydayBoard`` and reacts to
it. Each part has its empty state, a sentence saying what to type or say, shown in place of
its table. Colours come from the palette (light and dark desktops alike); only the late
marker has a colour of its own, picked for the palette's lightness.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from aria_desktop.gui.views._widgets import side_by_side, table

__all__ = ["ID_ROLE", "REMINDER_COLUMNS", "TIMER_COLUMNS", "EverydayView", "late_colour"]

ID_ROLE = Qt.ItemDataRole.UserRole
"""A table row's thing (a timer's or reminder's id), kept on the row's first cell."""
REMINDER_COLUMNS = ("When", "What", "Kind", "State")
TIMER_COLUMNS = ("Timer", "Left", "Set for", "State")


def late_colour(palette: QPalette) -> QColor:
    """The late marker's colour: dark amber on a light window, light amber on a dark one."""
    dark = palette.color(QPalette.ColorRole.Window).lightness() < 128
    return QColor("#f0b35a" if dark else "#a35505")


def _check_boxes(check_mark: Path | None) -> str:
    """The entries' check boxes drawn from the palette, so they show on dark themes too.

    Qt's Fusion style outlines an empty box in a shade of the window colour, which all but
    vanishes on a dark palette; an entry's box is what a person clicks to check it off.
    """
    mark = f" image: url({check_mark.as_posix()});" if check_mark is not None else ""
    return (
        "QListWidget#listEntries::indicator { width: 13px; height: 13px; border-radius: 3px;"
        " border: 1px solid palette(placeholder-text); background: palette(base); }"
        "QListWidget#listEntries::indicator:checked { background: palette(highlight);"
        f" border-color: palette(highlight);{mark} }}"
    )


def _empty_label(name: str) -> QLabel:
    """A part's empty state: a centred, wrapped sentence in the palette's quiet colour."""
    label = QLabel("")
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    label.setMargin(24)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() + 1)
    label.setFont(font)
    return label


def _stack(body: QWidget, empty: QLabel) -> QStackedWidget:
    """``body`` or, in its place, ``empty`` (index 1)."""
    stack = QStackedWidget()
    stack.addWidget(body)
    stack.addWidget(empty)
    return stack


class EverydayView(QWidget):
    """The window's widgets; ``EverydayController`` fills them and reacts."""

    def __init__(
        self, icon: QIcon, parent: QWidget | None = None, *, check_mark: Path | None = None
    ) -> None:
        """``check_mark``: the SVG drawn in a checked entry's box (none: a filled box)."""
        super().__init__(parent, Qt.WindowType.Window)
        self._check_mark = check_mark
        self.setWindowTitle("ARIA — Reminders & lists")
        self.setWindowIcon(icon)
        self.resize(940, 580)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("everydayTabs")
        self.lists_page = self._build_lists()
        self.reminders_page = self._build_reminders()
        self.timers_page = self._build_timers()
        self.tabs.addTab(self.lists_page, "Lists")
        self.tabs.addTab(self.reminders_page, "Reminders && alarms")
        self.tabs.addTab(self.timers_page, "Timers")
        self.status = QLabel("")
        self.status.setObjectName("everydayStatus")
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.status)

    def _build_lists(self) -> QWidget:
        """The lists on the left (with "New list"); the chosen list's entries on the right."""
        self.list_names = QListWidget()
        self.list_names.setObjectName("listNames")
        self.list_names.setSpacing(2)
        self.list_names.setMaximumWidth(260)
        self.new_list = QLineEdit()
        self.new_list.setObjectName("newListName")
        self.new_list.setPlaceholderText("New list's name")
        self.new_list_button = QPushButton("New list")
        self.delete_list_button = QPushButton("Delete list")
        left = QVBoxLayout()
        left.addWidget(self.list_names, 1)
        left.addLayout(side_by_side(self.new_list, self.new_list_button, grow=0))
        left.addLayout(side_by_side(self.delete_list_button, None))

        self.list_heading = QLabel("")
        self.list_heading.setObjectName("listHeading")
        heading_font = self.list_heading.font()
        heading_font.setBold(True)
        heading_font.setPointSizeF(heading_font.pointSizeF() + 2)
        self.list_heading.setFont(heading_font)
        self.entries = QListWidget()
        self.entries.setObjectName("listEntries")
        self.entries.setSpacing(2)
        self.entries.setStyleSheet(_check_boxes(self._check_mark))
        self.entries_empty = _empty_label("listEntriesEmpty")
        self.entries_stack = _stack(self.entries, self.entries_empty)
        self.entry = QLineEdit()
        self.entry.setObjectName("newEntry")
        self.add_button = QPushButton("Add")
        self.remove_button = QPushButton("Remove")
        self.clear_done_button = QPushButton("Clear checked")
        right = QVBoxLayout()
        right.addWidget(self.list_heading)
        right.addWidget(self.entries_stack, 1)
        right.addLayout(side_by_side(self.entry, self.add_button, grow=0))
        right.addLayout(side_by_side(None, self.remove_button, self.clear_done_button))

        page = QWidget()
        layout = QHBoxLayout(page)
        layout.addLayout(left, 0)
        layout.addLayout(right, 1)
        return page

    def _build_reminders(self) -> QWidget:
        """Pending and recent reminders and alarms, and "Cancel"."""
        self.reminders = table(REMINDER_COLUMNS, stretch=(1,))
        self.reminders.setObjectName("reminders")
        self.reminders_empty = _empty_label("remindersEmpty")
        self.reminders_stack = _stack(self.reminders, self.reminders_empty)
        self.cancel_reminder_button = QPushButton("Cancel reminder")
        self.reminder_text = QLineEdit()
        self.reminder_text.setObjectName("reminderText")
        self.reminder_text.setPlaceholderText("What to remember (call mom)")
        self.reminder_when = QLineEdit()
        self.reminder_when.setObjectName("reminderWhen")
        self.reminder_when.setPlaceholderText(
            "When (tomorrow at 9 am, in 20 minutes, every weekday at 7)"
        )
        self.reminder_kind = QComboBox()
        self.reminder_kind.addItem("Reminder", "reminder")
        self.reminder_kind.addItem("Alarm", "alarm")
        self.add_reminder_button = QPushButton("Set")
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(self.reminders_stack, 1)
        add = side_by_side(
            self.reminder_text, self.reminder_when, self.reminder_kind, self.add_reminder_button
        )
        add.setStretch(0, 2)
        add.setStretch(1, 3)
        layout.addLayout(add)
        layout.addLayout(side_by_side(None, self.cancel_reminder_button))
        return page

    def _build_timers(self) -> QWidget:
        """The running and paused timers counting down, with pause, resume, cancel, stop."""
        self.timers = table(TIMER_COLUMNS, stretch=(0,))
        self.timers.setObjectName("timers")
        self.timers_empty = _empty_label("timersEmpty")
        self.timers_stack = _stack(self.timers, self.timers_empty)
        self.stop_ringing_button = QPushButton("Stop ringing")
        self.stop_ringing_button.setObjectName("stopRinging")
        bold = self.stop_ringing_button.font()
        bold.setBold(True)
        self.stop_ringing_button.setFont(bold)
        self.stop_ringing_button.hide()
        self.pause_button = QPushButton("Pause")
        self.resume_button = QPushButton("Resume")
        self.cancel_timer_button = QPushButton("Cancel timer")
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(self.timers_stack, 1)
        layout.addLayout(
            side_by_side(
                self.stop_ringing_button,
                None,
                self.pause_button,
                self.resume_button,
                self.cancel_timer_button,
            )
        )
        return page

    @staticmethod
    def show_empty(stack: QStackedWidget, empty: QLabel, text: str) -> None:
        """Show ``text`` in place of the stack's table, or the table when ``text`` is ""."""
        empty.setText(text)
        stack.setCurrentIndex(1 if text else 0)

    @staticmethod
    def fill_table(widget: QTableWidget, rows: list[tuple[str, ...]], ids: list[str]) -> None:
        """Show ``rows`` (``ids[n]`` is row n's thing); the selected thing stays selected.

        Cells are changed in place, so the 1 s countdown redraw neither flickers nor loses the
        selection when the order changes.
        """
        chosen = EverydayView.selected_id(widget) if widget.selectedItems() else None
        widget.setRowCount(len(rows))
        for row, cells in enumerate(rows):
            for column, text in enumerate(cells):
                item = widget.item(row, column)
                if item is None:
                    item = QTableWidgetItem()
                    widget.setItem(row, column, item)
                if item.text() != text:
                    item.setText(text)
                    item.setToolTip(text)
            first = widget.item(row, 0)
            if first is not None:
                first.setData(ID_ROLE, ids[row])
        if chosen is None:
            return
        if chosen in ids:
            widget.selectRow(ids.index(chosen))
        else:
            widget.clearSelection()

    @staticmethod
    def selected_id(widget: QTableWidget) -> str | None:
        """The thing of the table's current row (None when no row is current)."""
        item = widget.item(widget.currentRow(), 0) if widget.currentRow() >= 0 else None
        value = item.data(ID_ROLE) if item is not None else None
        return None if value is None else str(value)
