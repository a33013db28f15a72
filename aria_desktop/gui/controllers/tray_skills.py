"""The tray's part in the everyday skills: running timers, "Stop ringing", and the bubble.

The running timers head the tray menu and the tooltip with their countdown ("Pasta — 4:12
left", each with Pause/Resume and Cancel); while a timer or an alarm rings, "Stop ringing"
is the menu's first item. Both follow the shared ``EverydayBoard`` (read by ``EverydaySync``)
and its 1 s tick, which only re-renders.

When a timer ends or a reminder comes due, ARIA's announcer shows the desktop's notification;
the tray shows its bubble only where the desktop has no notification service, so nothing is
told twice (``gui/desktop_bus.py``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from aria_desktop.domain.skill_events import ReminderDue, RingingChanged, TimerFinished
from aria_desktop.gui.controllers.everyday_board import (
    BoardPart,
    TimerRow,
    duration_words,
)
from aria_desktop.gui.controllers.everyday_sync import EverydaySync
from aria_desktop.gui.controllers.tray import TrayController
from aria_desktop.gui.desktop_bus import notification_service_present

__all__ = ["TraySkills", "due_notice", "timer_notice"]


def timer_notice(event: TimerFinished) -> tuple[str, str]:
    """The bubble for a timer's end: ``("Timer", "Your pasta timer is done.")``."""
    name = event.name or f"{duration_words(event.duration_s)}"
    if event.missed:
        return "Timer", f"Your {name} timer ended while ARIA was not running."
    return "Timer", f"Your {name} timer is done."


def due_notice(event: ReminderDue) -> tuple[str, str]:
    """The bubble for a reminder or an alarm that came due (late ones say so)."""
    title = "Alarm" if event.kind == "alarm" else "Reminder"
    text = event.text or ("Time to wake up." if event.kind == "alarm" else "")
    if event.late:
        when = time.strftime("%H:%M", time.localtime(event.due_at))
        text = f"{text} (late: it was due at {when} while ARIA was not running)".strip()
    return title, text


class _TimerItem:
    """A timer's menu item: its countdown, and a submenu to pause, resume or cancel it."""

    def __init__(self, row: TimerRow, act: Callable[[str, str], None]) -> None:
        self.action = QAction(row.tray_line)
        self.menu = QMenu()
        self.pause = self.menu.addAction("Pause")
        self.resume = self.menu.addAction("Resume")
        self.cancel = self.menu.addAction("Cancel timer")
        self.pause.triggered.connect(lambda: act("pause", row.id))
        self.resume.triggered.connect(lambda: act("resume", row.id))
        self.cancel.triggered.connect(lambda: act("cancel", row.id))
        self.action.setMenu(self.menu)
        self.show(row)

    def show(self, row: TimerRow) -> None:
        if self.action.text() != row.tray_line:
            self.action.setText(row.tray_line)
        self.pause.setVisible(not row.paused)
        self.resume.setVisible(row.paused)


class TraySkills(QObject):
    """Keeps the tray's timers, "Stop ringing" and tooltip lines in step with the board."""

    notice_decided = Signal(str, bool)
    """``(title, shown)``: a timer's or reminder's notice was shown by the tray, or left to the
    desktop's notification service (which shows the announcer's)."""

    def __init__(self, sync: EverydaySync, tray: TrayController) -> None:
        super().__init__()
        self.sync = sync
        self.board = sync.board
        self.tray = tray
        self.stop_ringing = QAction("Stop ringing", self)
        urgent = self.stop_ringing.font()
        urgent.setBold(True)
        self.stop_ringing.setFont(urgent)
        self.stop_ringing.triggered.connect(sync.stop_ringing)
        self._items: dict[str, _TimerItem] = {}
        self._notice_order = asyncio.Lock()
        """Notices are decided one at a time, in the order they came (a fair lock)."""
        self.board.observe(self._on_board)
        sync.ticked.connect(self.render)
        tray.context.bridge.event_received.connect(self._on_event)

    @property
    def timer_actions(self) -> list[QAction]:
        """The timers' menu items, in the order shown."""
        return [self._items[row.id].action for row in self._rows()]

    def _rows(self) -> list[TimerRow]:
        return self.board.timer_rows(self.sync.clock())

    def _on_board(self, part: BoardPart) -> None:
        if part in ("timers", "ringing"):
            self.render()

    def render(self) -> None:
        """Menu items and tooltip lines as of now (called each second while one counts down)."""
        rows = self._rows()
        for gone in set(self._items) - {row.id for row in rows}:
            del self._items[gone]
        for row in rows:
            item = self._items.get(row.id)
            if item is None:
                self._items[row.id] = _TimerItem(row, self._timer_action)
            else:
                item.show(row)
        items = [self.stop_ringing] if self.board.ringing else []
        items += [self._items[row.id].action for row in rows]
        if self.tray.tray is not None:
            self.tray.tray.set_skill_items(items)
        lines = ["Ringing — “Stop ringing” in the menu silences it"] if self.board.ringing else []
        lines += [row.tray_line for row in rows]
        if lines != self.tray.skill_lines:
            self.tray.skill_lines = lines
            self.tray.refresh_tooltip()

    def _timer_action(self, action: str, timer_id: str) -> None:
        change = self.sync.timer_change(action, timer_id)
        if change is not None:
            self.sync.spawn(change, f"aria-gui-tray-timer-{action}")

    def _on_event(self, event: object) -> None:
        if isinstance(event, RingingChanged):
            self.board.set_ringing(event.ringing)
        elif isinstance(event, TimerFinished):
            self._stand_in(*timer_notice(event))
        elif isinstance(event, ReminderDue):
            self._stand_in(*due_notice(event))

    def _stand_in(self, title: str, text: str) -> None:
        """The tray's bubble, only where no notification service shows the announcer's."""

        async def maybe_notify() -> None:
            # Two notices at once (a timer and a reminder) each ask the session bus: decided
            # one after the other, their bubbles keep the order they came in.
            async with self._notice_order:
                shown = not await notification_service_present()
                if shown:
                    self.tray.notify(title, text)
                self.notice_decided.emit(title, shown)

        self.sync.spawn(maybe_notify(), "aria-gui-skill-notice")
