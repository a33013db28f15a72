"""Test my voice: read a few sentences aloud, see which speech model hears you best.

Layout only; ``VoiceTrialController`` records, compares and keeps the choice.
"""

from __future__ import annotations

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from aria_desktop.gui.theme import mark
from aria_desktop.gui.views._widgets import init_secondary_window, wrapped_label
from aria_desktop.gui.views.devices import level_percent

__all__ = ["VoiceTrialView"]

_INTRO = (
    "Press Record and read the sentence aloud, as you would talk to ARIA. After the last one "
    "ARIA tries each of its speech models on your voice and picks the one that hears you best."
)


class VoiceTrialView(QDialog):
    """The sentence to read, Record with a level meter, then the models' results."""

    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        init_secondary_window(self, title="Test my voice", icon=icon)
        self.resize(560, 380)
        self.intro = wrapped_label(_INTRO)
        self.step = mark(QLabel(""), "muted")
        self.sentence = wrapped_label("")
        self.sentence.setObjectName("trialSentence")
        font = self.sentence.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        self.sentence.setFont(font)
        self.level = QProgressBar()
        self.level.setRange(0, 100)
        self.level.setTextVisible(False)
        self.level.setFixedHeight(10)
        self.level.setAccessibleName("Microphone level")
        self.record_button = QPushButton("Record")
        self.record_button.setDefault(True)
        self.status = wrapped_label("")
        self.status.setObjectName("trialStatus")
        self.results = wrapped_label("")
        self.results.setObjectName("trialResults")
        self.use_button = QPushButton("Use it")
        self.use_button.hide()
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.reject)
        self.use_button.clicked.connect(self.accept)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.use_button)
        buttons.addWidget(self.close_button)
        record = QHBoxLayout()
        record.addWidget(self.record_button)
        record.addWidget(self.level, 1)
        layout = QVBoxLayout(self)
        for widget in (self.intro, self.step, self.sentence):
            layout.addWidget(widget)
        layout.addLayout(record)
        layout.addWidget(self.status)
        layout.addWidget(self.results)
        layout.addStretch(1)
        layout.addLayout(buttons)

    def show_level(self, dbfs: float) -> None:
        """Show the microphone's loudness now."""
        self.level.setValue(level_percent(dbfs))

    def say(self, text: str, role: str = "muted") -> None:
        """The status line ("muted", "error" or "success")."""
        mark(self.status, role)
        self.status.setText(text)
