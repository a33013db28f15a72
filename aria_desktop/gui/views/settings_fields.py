"""One form field per setting, made from what the schema allows (``SettingInfo``).

A choice is a drop-down of its allowed values, a list with allowed items a row of ticks, a
number a spin box with its unit and bounds, a switch a checkbox, anything else a text field.
Values go in and out as the text ``SettingsService`` takes.
"""

from __future__ import annotations

import contextlib

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from aria_desktop.domain.config import SettingInfo
from aria_desktop.gui.settings_catalog import Entry, unit_of

__all__ = ["ChoiceRow", "FieldWidget", "make_field", "read_field", "write_field"]

_BIG = 1_000_000_000
_TEXT = "ariaText"
"""A number field's stored text: read back unchanged when the number was not changed."""
_CHOICE_WORDS = {
    "on": "On",
    "off": "Off",
    "auto": "Automatic",
    "local": "On this computer",
    "wyoming": "A Wyoming server",
    "ollama": "Ollama",
    "anthropic": "Claude",
    "openai": "OpenAI-compatible server",
    "DEBUG": "Everything (for finding a problem)",
    "INFO": "Normal",
    "WARNING": "Warnings and errors",
    "ERROR": "Errors only",
    "tools": "Uses tools",
    "vision": "Reads images",
    "thinking": "Reasons first",
}


class ChoiceRow(QWidget):
    """A list setting with allowed items: one tick per item."""

    def __init__(self, choices: tuple[str, ...]) -> None:
        super().__init__()
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.boxes = {choice: QCheckBox(_choice_text(choice)) for choice in choices}
        for box in self.boxes.values():
            row.addWidget(box)
        row.addStretch(1)


FieldWidget = QLineEdit | QCheckBox | QComboBox | QSpinBox | QDoubleSpinBox | ChoiceRow


def _choice_text(value: str) -> str:
    return _CHOICE_WORDS.get(value, value.replace("_", " ").capitalize())


def _decimals(info: SettingInfo) -> int:
    digits = [len(text.partition(".")[2]) for text in (info.default, info.value)]
    return min(4, max(1, *digits))


def make_field(info: SettingInfo, shown: Entry) -> FieldWidget:
    """The widget for one setting (its value is set with ``write_field``)."""
    unit = unit_of(info.key)
    widget: FieldWidget
    if info.type_name == "bool":
        widget = QCheckBox(shown.label)
    elif info.choices and info.type_name == "str":
        widget = QComboBox()
        for choice in info.choices:
            widget.addItem(_choice_text(choice), choice)
    elif info.choices:
        widget = ChoiceRow(info.choices)
    elif info.type_name == "int":
        widget = QSpinBox()
        low = int(info.minimum) + (1 if info.above_minimum else 0) if info.minimum else 0
        widget.setRange(low, int(info.maximum) if info.maximum is not None else _BIG)
        widget.setSuffix(f" {unit}" if unit else "")
    elif info.type_name == "float":
        widget = QDoubleSpinBox()
        decimals = _decimals(info)
        widget.setDecimals(decimals)
        step = 10.0**-decimals
        bottom = info.minimum if info.minimum is not None else 0.0
        widget.setRange(bottom + (step if info.above_minimum else 0.0), info.maximum or _BIG)
        widget.setSingleStep(max(step, 0.1 if decimals == 1 else step * 10))
        if unit == "$":
            widget.setPrefix("$ ")
        elif unit:
            widget.setSuffix(f" {unit}")
    else:
        widget = QLineEdit()
        widget.setPlaceholderText(shown.placeholder or info.default)
    if shown.zero and isinstance(widget, QSpinBox | QDoubleSpinBox) and widget.minimum() == 0:
        widget.setSpecialValueText(shown.zero)  # shown for 0, the minimum
    if shown.help:
        widget.setToolTip(shown.help)
    widget.setAccessibleName(shown.label)
    return widget


def write_field(widget: FieldWidget, value: str) -> None:
    """Show ``value`` (the setting's text) in the widget."""
    if isinstance(widget, QCheckBox):
        widget.setChecked(value == "true")
    elif isinstance(widget, QComboBox):
        widget.setCurrentIndex(max(0, widget.findData(value)))
    elif isinstance(widget, ChoiceRow):
        items = {item.strip() for item in value.split(",")}
        for choice, box in widget.boxes.items():
            box.setChecked(choice in items)
    elif isinstance(widget, QSpinBox | QDoubleSpinBox):
        widget.setProperty(_TEXT, value)
        try:
            number = float(value)
        except ValueError:
            number = widget.minimum()
        if isinstance(widget, QSpinBox):
            widget.setValue(int(number))
        else:
            widget.setValue(number)
    else:
        widget.setText(value)


def read_field(widget: FieldWidget) -> str:
    """The widget's value as the setting's text."""
    if isinstance(widget, QCheckBox):
        return "true" if widget.isChecked() else "false"
    if isinstance(widget, QComboBox):
        return str(widget.currentData())
    if isinstance(widget, ChoiceRow):
        return ",".join(choice for choice, box in widget.boxes.items() if box.isChecked())
    if isinstance(widget, QSpinBox):
        return str(widget.value())
    if isinstance(widget, QDoubleSpinBox):
        stored = str(widget.property(_TEXT) or "")
        with contextlib.suppress(ValueError):
            if stored and abs(float(stored) - widget.value()) < 10.0 ** -widget.decimals() / 2:
                return stored  # unchanged: "600.0" stays "600.0", not a change to "600"
        return f"{widget.value():.{widget.decimals()}f}".rstrip("0").rstrip(".")
    return widget.text()
