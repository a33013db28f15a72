"""The small "Listening — let go to type" sign shown while a dictation is recorded."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QGuiApplication, QPainterPath, QRegion, QResizeEvent, QScreen
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QWidget

from aria_desktop.gui.views.overlay import FloatingSign

__all__ = ["DictationOverlayView"]

_STYLE = (
    "QFrame#dictation {{ background: {background}; border-radius: 10px; }}"
    "QLabel {{ color: white; font-weight: bold; }}"
    "QLabel#dot {{ color: {dot}; font-size: 18px; }}"
)
_LISTENING = {"background": "#1f5fae", "dot": "#ff5a52"}
_TYPING = {"background": "#3d4a5c", "dot": "#b9c4d3"}


class DictationOverlayView(FloatingSign):
    """Bottom-centre, always on top, never takes the focus (the words go to the focused window)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("ARIA dictation", parent)
        self.frame = QFrame(self)
        self.frame.setObjectName("dictation")
        self.dot = QLabel("●")
        self.dot.setObjectName("dot")
        self.label = QLabel()
        row = QHBoxLayout(self.frame)
        row.setContentsMargins(14, 8, 16, 8)
        row.addWidget(self.dot)
        row.addSpacing(6)
        row.addWidget(self.label)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.frame)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Round the corners with a mask: no compositor is needed for them to look round."""
        super().resizeEvent(event)
        path = QPainterPath()
        path.addRoundedRect(QRectF(self.rect()), 10, 10)
        self.setMask(QRegion(path.toFillPolygon().toPolygon()))

    def listening(self, key: str) -> None:
        """Recording: say what to type; letting go of ``key`` ("" when not held) types it."""
        ending = f"let go of {key} to type it" if key else "pause to type it"
        self._show(f"Listening — speak, then {ending}", _LISTENING)

    def typing(self) -> None:
        """The words are being written down and typed."""
        self._show("Typing what you said…", _TYPING)

    @property
    def can_show(self) -> bool:
        """Whether the sign may show: not on Wayland (the tray icon shows listening there).

        A Wayland compositor gives a new window the focus, and the words would go to the sign
        instead of the field being written in.
        """
        return not QGuiApplication.platformName().startswith("wayland")

    def _show(self, text: str, colours: dict[str, str]) -> None:
        self.frame.setStyleSheet(_STYLE.format(**colours))
        self.label.setText(text)
        if not self.can_show:
            return
        self.adjustSize()
        screen: QScreen | None = QGuiApplication.primaryScreen()
        if screen is not None:
            area = screen.availableGeometry()
            self.move(area.center().x() - self.width() // 2, area.bottom() - self.height() - 48)
        self.show()
