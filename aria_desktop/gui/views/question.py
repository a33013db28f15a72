"""A yes/no question that never nests an event loop.

Deleting a conversation, forgetting a memory and rotating the API token all ask first. The box
is window-modal and opened with ``open()`` — never ``exec()``, which would run a nested event
loop and stall every asyncio task until the user answers (ARCHITECTURE.md: one loop) — and the
answer arrives through the box's ``finished`` signal.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

__all__ = ["ask_before"]


def ask_before(
    parent: QWidget,
    title: str,
    question: str,
    action: str,
    on_yes: Callable[[], None],
    *,
    destructive: bool = True,
) -> QMessageBox:
    """Ask ``question`` with Cancel and an ``action`` button; run ``on_yes`` if it is chosen.

    Returns the open box (tests and controllers may hold it; it deletes itself when answered).
    """
    box = QMessageBox(
        QMessageBox.Icon.Question, title, question, QMessageBox.StandardButton.Cancel, parent
    )
    role = (
        QMessageBox.ButtonRole.DestructiveRole if destructive else QMessageBox.ButtonRole.AcceptRole
    )
    button = box.addButton(action, role)
    box.setWindowModality(Qt.WindowModality.WindowModal)

    def finished() -> None:
        if box.clickedButton() is button:
            on_yes()
        box.deleteLater()

    box.finished.connect(finished)
    box.open()
    return box
