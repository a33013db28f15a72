"""Small building blocks the secondary windows (settings, wizard, knowledge, lists) share."""

from __future__ import annotations

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QTableWidget,
    QWidget,
)

__all__ = [
    "HOTKEYS",
    "hotkey_edit",
    "init_secondary_window",
    "secret_edit",
    "side_by_side",
    "table",
    "wrapped_label",
]

#: The global hotkeys the user can set (setting key, label), in the order both windows list them.
HOTKEYS = (
    ("gui.hotkey_quick_ask", "Quick ask"),
    ("gui.hotkey_push_to_talk", "Push to talk (hold)"),
    ("gui.hotkey_stop", "Stop everything"),
    ("gui.hotkey_dictate", "Dictate (hold)"),
)


def wrapped_label(text: str, style: str = "") -> QLabel:
    """A label whose text wraps to the width it is given, optionally styled.

    Explanations and error messages are sentences of unknown length; unwrapped they would
    widen the whole window instead of growing downwards.
    """
    label = QLabel(text)
    label.setWordWrap(True)
    if style:
        label.setStyleSheet(style)
    return label


def init_secondary_window(window: QDialog, *, title: str, icon: QIcon) -> None:
    """Give ``window`` its title and ARIA's icon, and make it non-modal.

    Settings and the wizard open beside the chat window, which must stay usable meanwhile
    (the user may want to read a reply while changing a setting), so neither blocks it.
    """
    window.setWindowTitle(title)
    window.setWindowIcon(icon)
    window.setModal(False)


def hotkey_edit() -> QKeySequenceEdit:
    """An editor for one global hotkey: a single combination, clearable to turn it off.

    A global hotkey is one key combination, not a chord of several, so the editor stops after
    the first; settings and the wizard must accept the same values, so they share it.
    """
    edit = QKeySequenceEdit()
    edit.setMaximumSequenceLength(1)
    edit.setClearButtonEnabled(True)
    return edit


def secret_edit(placeholder: str) -> QLineEdit:
    """A password field for a key or token the user pastes (it goes to the keyring)."""
    edit = QLineEdit()
    edit.setEchoMode(QLineEdit.EchoMode.Password)
    edit.setPlaceholderText(placeholder)
    return edit


def table(columns: tuple[str, ...], *, stretch: tuple[int, ...] = (0,)) -> QTableWidget:
    """A read-only, single-row-selection table; ``stretch`` columns share the spare width."""
    widget = QTableWidget(0, len(columns))
    widget.setHorizontalHeaderLabels(list(columns))
    widget.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    widget.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    widget.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    widget.verticalHeader().setVisible(False)
    header = widget.horizontalHeader()
    for column in range(len(columns)):
        mode = QHeaderView.ResizeMode
        header.setSectionResizeMode(
            column, mode.Stretch if column in stretch else mode.ResizeToContents
        )
    return widget


def side_by_side(*widgets: QWidget | None, grow: int | None = None) -> QHBoxLayout:
    """Widgets side by side; None is a stretch; ``grow`` is the index of the one that grows."""
    layout = QHBoxLayout()
    for index, widget in enumerate(widgets):
        if widget is None:
            layout.addStretch(1)
        else:
            layout.addWidget(widget, 1 if index == grow else 0)
    return layout
