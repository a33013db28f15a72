"""Quick ask: a small frameless always-on-top prompt; the answer appears under it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent, QScreen
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QVBoxLayout, QWidget

from aria_desktop.gui.theme import mark
from aria_desktop.gui.views.transcript import TranscriptView

__all__ = ["QuickAskView"]


class QuickAskView(QWidget):
    """Enter sends, Esc closes."""

    submitted = Signal(str)
    escape_pressed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(
            parent,
            Qt.WindowType.Tool
            | Qt.WindowType.FramelessWindowHint
            | Qt.WindowType.WindowStaysOnTopHint,
        )
        self.setWindowTitle("ARIA quick ask")
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground, False)
        self.setFixedWidth(640)
        frame = QFrame(self)
        frame.setObjectName("quickAskFrame")
        mark(frame, "panel")
        frame.setStyleSheet(
            "QLineEdit { border: none; font-size: 17px; padding: 6px; background: transparent; }"
        )
        self.prompt = QLineEdit()
        self.prompt.setObjectName("quickAskPrompt")
        self.prompt.setPlaceholderText("Ask ARIA…  (Enter sends, Esc closes)")
        self.hint = QLabel("")
        self.hint.setStyleSheet("font-size: 11px; padding: 0 6px;")
        mark(self.hint, "muted")
        self.answer = TranscriptView()
        self.answer.setObjectName("quickAskAnswer")
        self.answer.setFrameShape(QFrame.Shape.NoFrame)
        self.answer.setMinimumHeight(140)
        self.answer.hide()
        inner = QVBoxLayout(frame)
        inner.setContentsMargins(10, 8, 10, 8)
        inner.addWidget(self.prompt)
        inner.addWidget(self.hint)
        inner.addWidget(self.answer, 1)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(frame)
        self.prompt.returnPressed.connect(self._submit)

    def _submit(self) -> None:
        text = self.prompt.text().strip()
        if text:
            self.submitted.emit(text)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Esc closes the prompt."""
        if event.key() == Qt.Key.Key_Escape:
            self.escape_pressed.emit()
            return
        super().keyPressEvent(event)

    def show_answer_area(self) -> None:
        """Grow to show the answer under the prompt."""
        if not self.answer.isVisible():
            self.answer.show()
            self.resize(self.width(), 380)

    def present(self) -> None:
        """Show centred in the upper third of the screen, with the keyboard focus."""
        self.answer.hide()
        self.answer.show_placeholder("")
        self.hint.setText("")
        self.adjustSize()
        screen: QScreen | None = QGuiApplication.primaryScreen()
        if screen is not None:
            area = screen.availableGeometry()
            self.move(area.center().x() - self.width() // 2, area.top() + area.height() // 4)
        self.show()
        self.raise_()
        self.activateWindow()
        self.prompt.setFocus()
        self.prompt.selectAll()
