"""What the controllers of ARIA's own windows share: the window, built once and kept."""

from __future__ import annotations

from typing import Generic, TypeVar

from PySide6.QtCore import QObject
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QWidget

__all__ = ["WindowController"]

_W = TypeVar("_W", bound=QWidget)


class WindowController(QObject, Generic[_W]):
    """The controller of one window (settings, wizard, knowledge, memory).

    The window is built on first open and kept after ``close``, which only hides it, so it
    opens again as the user left it; each subclass builds its own ``view``.

    Args:
        icon: the window icon.
    """

    def __init__(self, icon: QIcon) -> None:
        super().__init__()
        self._icon = icon
        self.view: _W | None = None

    def close(self) -> None:
        """Hide the window (nothing is saved)."""
        if self.view is not None:
            self.view.hide()

    @staticmethod
    def _bring_up(view: _W) -> None:
        """Show ``view`` above the other windows, with the keyboard focus."""
        view.show()
        view.raise_()
        view.activateWindow()
