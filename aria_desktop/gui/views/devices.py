"""Picking the microphone and the speaker voice uses, with a live level and a test.

One widget for the settings dialog's voice page and the first-run wizard's: people pick from
the devices the computer has (never type a name), see the microphone hear them, and press
Test to hear a 3-second recording played back. ``DevicePicker`` (controllers/devices.py)
fills and drives it.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QLayout,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from aria_desktop.gui.theme import mark
from aria_desktop.gui.views._widgets import side_by_side, wrapped_label

__all__ = ["DevicePickerView"]

LEVEL_FLOOR_DBFS = -60.0
"""The meter's empty end: quieter than a quiet room through a laptop microphone."""


def level_percent(dbfs: float) -> int:
    """A loudness (dBFS) as the meter's 0–100: linear in dB from the floor to full scale."""
    share = (dbfs - LEVEL_FLOOR_DBFS) / -LEVEL_FLOOR_DBFS
    return round(100 * min(1.0, max(0.0, share)))


class DevicePickerView(QWidget):
    """Microphone and speaker drop-downs, the microphone's level, Test and a status line.

    Signals:
        shown: the picker became visible (the meter starts listening).
        hidden: it was hidden (the meter stops, closing the microphone).
    """

    shown = Signal()
    hidden = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.microphone = QComboBox()
        self.microphone.setObjectName("microphonePicker")
        self.microphone.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.microphone.setMinimumWidth(240)
        self.speaker = QComboBox()
        self.speaker.setObjectName("speakerPicker")
        self.speaker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.speaker.setMinimumWidth(240)
        self.refresh_button = QPushButton("Look again")
        self.refresh_button.setObjectName("refreshDevices")
        self.refresh_button.setToolTip("List the devices again (after plugging one in)")
        self.level = QProgressBar()
        self.level.setObjectName("microphoneLevel")
        self.level.setRange(0, 100)
        self.level.setTextVisible(False)
        self.level.setFixedHeight(10)
        self.level.setAccessibleName("Microphone level")
        self.level.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.test_button = QPushButton("Test")
        self.test_button.setObjectName("testDevices")
        self.test_button.setToolTip("Record 3 seconds from the microphone and play them back")
        self.status = mark(wrapped_label(""), "muted")
        self.status.setObjectName("deviceStatus")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Microphone", _row(side_by_side(self.microphone, self.refresh_button, grow=0)))
        form.addRow("Level", self.level)
        form.addRow("Speaker", self.speaker)
        form.addRow("", _row(side_by_side(self.test_button, None)))
        form.addRow("", self.status)

    def show_level(self, dbfs: float) -> None:
        """Show the microphone's loudness now."""
        self.level.setValue(level_percent(dbfs))

    def say(self, text: str, role: str = "muted") -> None:
        """The status line ("muted", "error" or "success")."""
        mark(self.status, role)
        self.status.setText(text)

    def showEvent(self, event: QShowEvent) -> None:
        """Tell the controller, so the microphone is open only while the picker is seen."""
        super().showEvent(event)
        self.shown.emit()

    def hideEvent(self, event: QHideEvent) -> None:
        """Tell the controller to close the microphone."""
        super().hideEvent(event)
        self.hidden.emit()


def _row(layout: QLayout) -> QWidget:
    """A layout as one form cell, without margins (it lines up with the fields around it)."""
    layout.setContentsMargins(0, 0, 0, 0)
    widget = QWidget()
    widget.setLayout(layout)
    return widget
