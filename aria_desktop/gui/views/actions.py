"""The app's menu actions, shared by the tray menu and the chat window's menu bar."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

__all__ = ["ActionSet"]


class ActionSet(QObject):
    """One ``QAction`` per menu item; controllers connect to ``triggered``/``toggled``."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.open_chat = QAction("Open chat", self)
        self.quick_ask = QAction("Quick ask…", self)
        self.push_to_talk = QAction("Push to talk", self)
        self.dictate = QAction("Dictate", self)
        self.mute = QAction("Mute microphone", self)
        self.mute.setCheckable(True)
        self.computer_control = QAction("Computer control", self)
        self.computer_control.setCheckable(True)
        self.stop_everything = QAction("Stop everything", self)
        self.memory = QAction("Memory…", self)
        self.knowledge = QAction("Knowledge…", self)
        self.everyday = QAction("Reminders && lists…", self)
        self.settings = QAction("Settings…", self)
        self.quit = QAction("Quit ARIA", self)
        self.quit.setShortcut(QKeySequence.StandardKey.Quit)
        self._labels = {
            action: action.text()
            for action in (
                self.push_to_talk,
                self.dictate,
                self.mute,
                self.computer_control,
                self.memory,
            )
        }
        self._hints: dict[QAction, str] = {}

    def set_availability(self, action: QAction, available: bool, reason: str = "") -> None:
        """Enable ``action``, or disable it and show why in its text and tooltip."""
        label = self._labels.get(action, action.text())
        action.setEnabled(available)
        if available or not reason:
            hint = self._hints.get(action, "")
            action.setText(f"{label}\t{hint}" if hint else label)
            action.setToolTip(label)
        else:
            action.setText(f"{label} — {_short(reason)}")
            action.setToolTip(reason)

    def set_hotkey_hint(self, action: QAction, text: str) -> None:
        """Show a global hotkey next to a menu item (it is not a window shortcut)."""
        label = self._labels.get(action, action.text().split("\t")[0])
        self._labels[action] = label
        self._hints[action] = text
        if action.isEnabled():
            action.setText(f"{label}\t{text}" if text else label)


def _short(reason: str, limit: int = 48) -> str:
    first = reason.split(". ")[0].rstrip(".")
    return first if len(first) <= limit else first[: limit - 1] + "…"
