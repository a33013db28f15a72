"""A tool server's question to the user: a small form, or a page it wants opened.

Layout and the form's values only; ``gui/controllers/mcp_questions.py`` sends the answer. The
fields come from the server's flat JSON schema (text, numbers, yes/no, a choice, several
choices), filled with the server's defaults. The server's words are shown as its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from aria_desktop.gui.theme import mark

__all__ = ["McpQuestionDialogView"]

_Field = QLineEdit | QCheckBox | QComboBox | QListWidget


def _choices(spec: Mapping[str, Any]) -> list[tuple[Any, str]]:
    """(value, label) pairs of a choice field (``enum`` with ``enumNames``, or ``oneOf``)."""
    if spec.get("oneOf"):
        return [(o.get("const"), str(o.get("title") or o.get("const"))) for o in spec["oneOf"]]
    names = spec.get("enumNames") or []
    values = spec.get("enum") or []
    return [(v, str(names[i]) if i < len(names) else str(v)) for i, v in enumerate(values)]


class McpQuestionDialogView(QWidget):
    """The question, its form (or the page's domain), and Send / Decline."""

    answered = Signal(str)
    """``accept``, ``decline`` or ``cancel`` (closing the window)."""

    def __init__(
        self,
        *,
        server: str,
        message: str,
        mode: str,
        fields: Mapping[str, Any],
        domain: str = "",
        url: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window | Qt.WindowType.WindowStaysOnTopHint)
        self.setWindowTitle(f"{server} asks")
        self.setMinimumWidth(420)
        self.setMaximumWidth(640)
        self._sent = False
        title = QLabel(f"The tool server {server} asks you")
        title.setStyleSheet("font-weight: bold; font-size: 14px;")
        self.message = QLabel(message)
        self.message.setObjectName("mcpQuestionMessage")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.message)
        self.inputs: dict[str, tuple[Mapping[str, Any], _Field]] = {}
        if mode == "url":
            page = QLabel(f"It wants you to open a page on {domain or 'an unknown site'}:\n{url}")
            page.setObjectName("mcpQuestionPage")
            page.setWordWrap(True)
            page.setTextFormat(Qt.TextFormat.PlainText)
            layout.addWidget(page)
        else:
            form = QFormLayout()
            required = set(fields.get("required") or ())
            for name, spec in (fields.get("properties") or {}).items():
                widget = self._field(spec)
                self.inputs[name] = (spec, widget)
                label = str(spec.get("title") or name) + (" *" if name in required else "")
                form.addRow(label, widget)
                if spec.get("description"):
                    hint = QLabel(str(spec["description"]))
                    hint.setWordWrap(True)
                    mark(hint, "muted")
                    form.addRow("", hint)
            layout.addLayout(form)
        first = (
            "The page opens in your web browser only if you choose to."
            if mode == "url"
            else "Only this server sees your answer."
        )
        note = QLabel(f"{first} ARIA declines for you if you do not answer within 5 minutes.")
        note.setWordWrap(True)
        mark(note, "muted")
        layout.addWidget(note)
        self.problem = QLabel("")
        self.problem.setObjectName("mcpQuestionProblem")
        self.problem.setWordWrap(True)
        self.problem.setVisible(False)
        mark(self.problem, "warning")
        layout.addWidget(self.problem)
        self.accept_button = QPushButton("Open the page" if mode == "url" else "Send")
        self.accept_button.setObjectName("accept")
        self.accept_button.setDefault(True)
        self.decline_button = QPushButton("Decline")
        self.decline_button.setObjectName("decline")
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.decline_button)
        buttons.addWidget(self.accept_button)
        layout.addLayout(buttons)
        self.accept_button.clicked.connect(lambda: self.answered.emit("accept"))
        self.decline_button.clicked.connect(lambda: self.answered.emit("decline"))

    @staticmethod
    def _field(spec: Mapping[str, Any]) -> _Field:
        kind = spec.get("type", "string")
        default = spec.get("default")
        if kind == "boolean":
            box = QCheckBox()
            box.setChecked(bool(default))
            return box
        if kind == "array":
            items = QListWidget()
            items.setMaximumHeight(120)
            chosen = set(default or ())
            for value, label in _choices(spec.get("items") or {}):
                item = QListWidgetItem(label)
                item.setData(Qt.ItemDataRole.UserRole, value)
                item.setCheckState(
                    Qt.CheckState.Checked if value in chosen else Qt.CheckState.Unchecked
                )
                items.addItem(item)
            return items
        choices = _choices(spec)
        if choices:
            combo = QComboBox()
            for value, label in choices:
                combo.addItem(label, value)
            combo.setCurrentIndex(max(0, combo.findData(default)))
            return combo
        line = QLineEdit("" if default is None else str(default))
        if spec.get("format") in {"email", "uri", "date", "date-time"}:
            line.setPlaceholderText(str(spec["format"]))
        return line

    def values(self) -> dict[str, Any]:
        """The form's values (an empty text field is left out: the server's default applies)."""
        values: dict[str, Any] = {}
        for name, (spec, widget) in self.inputs.items():
            if isinstance(widget, QCheckBox):
                values[name] = widget.isChecked()
            elif isinstance(widget, QComboBox):
                values[name] = widget.currentData()
            elif isinstance(widget, QListWidget):
                values[name] = [
                    widget.item(i).data(Qt.ItemDataRole.UserRole)
                    for i in range(widget.count())
                    if widget.item(i).checkState() == Qt.CheckState.Checked
                ]
            elif widget.text().strip():
                values[name] = _typed(widget.text().strip(), spec.get("type", "string"))
        return values

    def show_problem(self, text: str) -> None:
        """Say why the answer was refused (the dialog stays open to correct it)."""
        self.problem.setText(text)
        self.problem.setVisible(True)

    def mark_sent(self) -> None:
        """The answer went out: closing the window no longer counts as cancel."""
        self._sent = True

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing the window without answering is a cancel."""
        if not self._sent:
            self.answered.emit("cancel")
        super().closeEvent(event)


def _typed(text: str, kind: str) -> Any:
    """A typed number where the field wants one (left as text when it is none: refused later)."""
    try:
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text.replace(",", "."))
    except ValueError:
        return text
    return text
