"""Esc closes ARIA's windows that are not dialogs (memory, knowledge, reminders and lists).

Dialogs (settings, the wizard, questions) close on Esc by themselves and quick ask handles
its own; these plain windows do not, so one application event filter closes the window a
key press of Esc lands in when nothing inside it took the key (an open drop-down list or a
key editor keeps it).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

__all__ = ["EscapeCloses"]


class EscapeCloses(QObject):
    """Closes (hides) a window of one of ``kinds`` when Esc is pressed in it."""

    def __init__(self, app: QApplication, kinds: tuple[type[QWidget], ...], parent: QObject):
        super().__init__(parent)
        self._kinds = kinds
        app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Esc in a window of one of the kinds: close that window."""
        if event.type() != QEvent.Type.KeyPress or not isinstance(watched, QWidget):
            return False
        if not isinstance(event, QKeyEvent) or event.key() != Qt.Key.Key_Escape:
            return False
        if event.modifiers() != Qt.KeyboardModifier.NoModifier:
            return False
        window = watched.window()
        if not isinstance(window, self._kinds) or not window.isVisible():
            return False
        window.close()
        return True
