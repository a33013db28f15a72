"""The "ARIA is controlling your computer" overlay with a Stop button."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

__all__ = ["ActingOverlayView", "FloatingSign"]


class FloatingSign(QWidget):
    """A frameless window on top of the others that never takes the focus (ARIA's signs)."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(
            parent,
            Qt.WindowType.Tool
            | Qt.WindowType.FramelessWindowHint
            | Qt.WindowType.WindowStaysOnTopHint
            | Qt.WindowType.WindowDoesNotAcceptFocus,
        )
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, True)
        self.setWindowTitle(title)


class ActingOverlayView(FloatingSign):
    """Small, always on top, top-centre; shown while the assistant's state is ``acting``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("ARIA is controlling the computer", parent)
        frame = QFrame(self)
        frame.setObjectName("overlay")
        frame.setStyleSheet(
            "QFrame#overlay { background: #e07b12; border-radius: 8px; }"
            "QLabel { color: white; font-weight: bold; }"
            "QPushButton { background: white; color: #a35505; font-weight: bold;"
            " border-radius: 4px; padding: 4px 14px; }"
        )
        self.label = QLabel("ARIA is controlling the mouse and keyboard")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("overlayStop")
        self.stop_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        row = QHBoxLayout(frame)
        row.setContentsMargins(14, 8, 8, 8)
        row.addWidget(self.label)
        row.addSpacing(12)
        row.addWidget(self.stop_button)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(frame)

    def present(self) -> None:
        """Show at the top centre of the screen without taking focus."""
        self.adjustSize()
        screen: QScreen | None = QGuiApplication.primaryScreen()
        if screen is not None:
            area = screen.availableGeometry()
            self.move(area.center().x() - self.width() // 2, area.top() + 12)
        self.show()
