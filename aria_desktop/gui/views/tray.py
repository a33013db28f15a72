"""The system tray icon and its menu."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from aria_desktop.gui.views.actions import ActionSet

__all__ = ["TrayView"]


class TrayView(QObject):
    """Tray icon + menu; built only when the desktop has a tray host."""

    def __init__(self, actions: ActionSet, icon: QIcon, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.menu = QMenu()
        self.menu.setToolTipsVisible(True)
        self._first = actions.open_chat
        self._skill_items: list[QAction] = []
        self._skill_separator: QAction | None = None
        self.menu.addAction(actions.open_chat)
        self.menu.addAction(actions.quick_ask)
        self.menu.addSeparator()
        self.menu.addAction(actions.push_to_talk)
        self.menu.addAction(actions.dictate)  # the tray only: the chat window would get the words
        self.menu.addAction(actions.mute)
        self.menu.addAction(actions.computer_control)
        self.menu.addAction(actions.stop_everything)
        self.menu.addSeparator()
        self.menu.addAction(actions.everyday)
        self.menu.addAction(actions.memory)
        self.menu.addAction(actions.knowledge)
        self.menu.addAction(actions.settings)
        self.menu.addSeparator()
        self.menu.addAction(actions.quit)
        self.icon = QSystemTrayIcon(icon, self)
        self.icon.setContextMenu(self.menu)

    def set_skill_items(self, items: list[QAction]) -> None:
        """The menu's top section: "Stop ringing" and the running timers ([] removes it).

        What is counting down or ringing now is what a glance at the menu is for, so it comes
        first, above a separator.
        """
        if items == self._skill_items:
            return
        for item in self._skill_items:
            self.menu.removeAction(item)
        if self._skill_separator is not None:
            self.menu.removeAction(self._skill_separator)
            self._skill_separator = None
        self._skill_items = list(items)
        if items:
            self.menu.insertActions(self._first, items)
            self._skill_separator = self.menu.insertSeparator(self._first)

    def show(self) -> None:
        """Put the icon in the tray."""
        self.icon.show()

    def hide(self) -> None:
        """Take the icon out of the tray."""
        self.icon.hide()

    def set_state(self, icon: QIcon, tooltip: str) -> None:
        """Show the assistant's state."""
        self.icon.setIcon(icon)
        self.icon.setToolTip(tooltip)

    def notify(self, title: str, text: str, *, warning: bool = False) -> None:
        """A desktop notification bubble from the tray icon."""
        kind = (
            QSystemTrayIcon.MessageIcon.Warning
            if warning
            else QSystemTrayIcon.MessageIcon.Information
        )
        self.icon.showMessage(title, text, kind, 6000)
