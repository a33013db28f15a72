"""The confirmation dialog: non-modal, on top, and it never takes the keyboard focus."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QScreen
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from aria_desktop.gui.theme import mark

__all__ = ["ConfirmDialogView"]


class ConfirmDialogView(QWidget):
    """Names the action, its target and why confirmation is needed; Approve / Deny."""

    answered = Signal(bool)

    def __init__(self, *, tool: str, summary: str, reason: str, parent: QWidget | None = None):
        super().__init__(
            parent,
            Qt.WindowType.Tool
            | Qt.WindowType.WindowStaysOnTopHint
            | Qt.WindowType.WindowDoesNotAcceptFocus,
        )
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, True)
        self.setWindowTitle("ARIA needs your approval")
        self.setMinimumWidth(420)
        self.setMaximumWidth(640)
        title = QLabel("ARIA wants to do something that needs your approval")
        title.setStyleSheet("font-weight: bold; font-size: 14px;")
        title.setWordWrap(True)
        headline, _, detail = summary.partition("\n")
        self.summary = QLabel(headline)
        self.summary.setObjectName("confirmSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setStyleSheet("font-size: 13px; padding: 4px 0;")
        # The exact command, the diff or the list of items: shown whole, in a fixed font.
        self.detail = QPlainTextEdit(detail)
        self.detail.setObjectName("confirmDetail")
        self.detail.setReadOnly(True)
        self.detail.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.detail.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.detail.setStyleSheet("font-family: monospace; font-size: 12px;")
        self.detail.setMaximumHeight(240)
        self.detail.setVisible(bool(detail))
        self.action = QLabel(f"Action: {tool}")
        self.action.setObjectName("confirmAction")
        self.action.setTextFormat(Qt.TextFormat.PlainText)
        self.reason = QLabel(f"Why you are asked: {reason}")
        self.reason.setObjectName("confirmReason")
        self.reason.setWordWrap(True)
        self.reason.setTextFormat(Qt.TextFormat.PlainText)
        mark(self.reason, "muted")
        self.countdown = QLabel("")
        mark(self.countdown, "warning")
        self.approve_button = QPushButton("Approve")
        self.approve_button.setObjectName("approve")
        self.deny_button = QPushButton("Deny")
        self.deny_button.setObjectName("deny")
        for button in (self.approve_button, self.deny_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # typing elsewhere never lands here
        self.approve_button.setStyleSheet("background: #2e9e5b; color: white; padding: 6px 16px;")
        buttons = QHBoxLayout()
        buttons.addWidget(self.countdown, 1)
        buttons.addWidget(self.deny_button)
        buttons.addWidget(self.approve_button)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.summary)
        layout.addWidget(self.detail)
        layout.addWidget(self.action)
        layout.addWidget(self.reason)
        layout.addLayout(buttons)
        self.approve_button.clicked.connect(lambda: self.answered.emit(True))
        self.deny_button.clicked.connect(lambda: self.answered.emit(False))

    def set_remaining(self, seconds: int) -> None:
        """Show the countdown to the automatic deny."""
        self.countdown.setText(f"Denied automatically in {seconds} s")

    def place(self, index: int) -> None:
        """Bottom-right of the screen, stacked upwards for several requests."""
        self.adjustSize()
        screen: QScreen | None = QGuiApplication.primaryScreen()
        if screen is None:
            return
        area = screen.availableGeometry()
        x = area.right() - self.width() - 24
        y = area.bottom() - (self.height() + 16) * (index + 1) - 24
        self.move(x, max(area.top(), y))

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing the window is a deny."""
        self.answered.emit(False)
        super().closeEvent(event)
