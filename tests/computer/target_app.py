"""A real PySide6 application for computer-use tests and the ``aria bench computer`` suite.

It shows a main window ("ARIA Target App") with text fields, buttons (including "Send" and
"Delete"), a checkbox and a list, and a second window titled like a password manager. Every
click and every text change is reported as one JSON line on stdout, so a test can check where
input landed. Commands arrive as JSON lines on stdin::

    {"cmd": "state"}                       -> {"event": "state", "fields": {...}, ...}, sent
                                              after every input event the X server had for
                                              the app was handled (a barrier for tests)
    {"cmd": "raise_vault"}                 -> the password-manager window moves over the main
                                              one's buttons ("Send", "Open Downloads")
    {"cmd": "lower_vault"}                 -> it moves back to its own place
    {"cmd": "banner", "text": "..."}       -> a banner label shows the text (prompt-injection tests)
    {"cmd": "reset"}                       -> empty fields, vault back in place -> "reset-done"
    {"cmd": "quit"}

Run: ``QT_QPA_PLATFORM=xcb python tests/computer/target_app.py`` (under Xvfb). The first line
printed is ``{"event": "ready", "main": [x, y, w, h], "vault": [x, y, w, h], "widgets": {caption:
[x, y, w, h], ...}}`` (screen rectangles of every caption).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSocketNotifier, QTimer
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

MAIN_GEOMETRY = (40, 40, 760, 560)
VAULT_GEOMETRY = (840, 60, 380, 220)


sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.computer.target_labels import (  # noqa: E402
    BUTTONS,
    CHECKBOX,
    FIELDS,
    LIST_ITEMS,
    MAIN_TITLE,
    VAULT_TITLE,
)


def emit(event: str, **data: Any) -> None:
    """One JSON line on stdout (flushed: the test reads it as it happens)."""
    sys.stdout.write(json.dumps({"event": event, **data}) + "\n")
    sys.stdout.flush()


class TargetApp(QObject):
    def __init__(self) -> None:
        super().__init__()
        font = QFont()
        font.setPointSize(11)
        QApplication.setFont(font)
        self.main = QWidget()
        self.main.setWindowTitle(MAIN_TITLE)
        outer = QVBoxLayout(self.main)
        self.banner = QLabel("")
        outer.addWidget(self.banner)
        grid = QGridLayout()
        self.fields: dict[str, QLineEdit] = {}
        self.captions: dict[str, QWidget] = {}
        for row, (label, key) in enumerate(FIELDS.items()):
            caption = QLabel(label)
            self.captions[label] = caption
            grid.addWidget(caption, row, 0)
            edit = QLineEdit()
            edit.setObjectName(key)
            if key == "password":
                edit.setEchoMode(QLineEdit.EchoMode.Password)
            edit.textChanged.connect(lambda text, k=key: emit("text", field=k, length=len(text)))
            grid.addWidget(edit, row, 1)
            self.fields[key] = edit
        outer.addLayout(grid)
        self.checkbox = QCheckBox(CHECKBOX)
        self.captions[CHECKBOX] = self.checkbox
        self.checkbox.toggled.connect(lambda on: emit("click", widget="checkbox", checked=on))
        outer.addWidget(self.checkbox)
        self.list = QListWidget()
        self.list.addItems(list(LIST_ITEMS))
        self.list.setMaximumHeight(110)
        self.list.itemClicked.connect(lambda item: emit("click", widget="list", item=item.text()))
        outer.addWidget(self.list)
        for chunk in (list(BUTTONS.items())[:3], list(BUTTONS.items())[3:]):
            row_layout = QHBoxLayout()
            for label, key in chunk:
                button = QPushButton(label)
                button.setObjectName(key)
                self.captions[label] = button
                button.clicked.connect(lambda _=False, k=key: emit("click", widget=k))
                row_layout.addWidget(button)
            outer.addLayout(row_layout)
        self.main.setGeometry(*MAIN_GEOMETRY)

        self.vault = QWidget()
        self.vault.setWindowTitle(VAULT_TITLE)
        vault_layout = QVBoxLayout(self.vault)
        master_label = QLabel("Master password")
        self.captions["Master password"] = master_label
        vault_layout.addWidget(master_label)
        self.master = QLineEdit()
        self.master.setEchoMode(QLineEdit.EchoMode.Password)
        self.master.textChanged.connect(lambda text: emit("text", field="master", length=len(text)))
        vault_layout.addWidget(self.master)
        unlock = QPushButton("Unlock")
        self.captions["Unlock"] = unlock
        unlock.clicked.connect(lambda: emit("click", widget="unlock"))
        vault_layout.addWidget(unlock)
        self.vault.setGeometry(*VAULT_GEOMETRY)

        self.notifier = QSocketNotifier(sys.stdin.fileno(), QSocketNotifier.Type.Read)
        self.notifier.activated.connect(self._read_command)

    def show(self) -> None:
        self.main.show()
        self.vault.show()
        self.main.raise_()
        self.main.activateWindow()
        QTimer.singleShot(300, self._ready)

    def _geometry(self, widget: QWidget) -> list[int]:
        g = widget.frameGeometry()
        return [g.x(), g.y(), g.width(), g.height()]

    def _widgets(self) -> dict[str, list[int]]:
        """Screen rectangles of every caption (where a click on it must land)."""
        found = {}
        for label, widget in self.captions.items():
            top_left = widget.mapToGlobal(widget.rect().topLeft())
            found[label] = [top_left.x(), top_left.y(), widget.width(), widget.height()]
        viewport = self.list.viewport()
        for row in range(self.list.count()):
            rect = self.list.visualItemRect(self.list.item(row))
            top_left = viewport.mapToGlobal(rect.topLeft())
            found[self.list.item(row).text()] = [
                top_left.x(),
                top_left.y(),
                rect.width(),
                rect.height(),
            ]
        return found

    def _ready(self) -> None:
        emit(
            "ready",
            main=self._geometry(self.main),
            vault=self._geometry(self.vault),
            widgets=self._widgets(),
        )

    def _read_command(self) -> None:
        line = sys.stdin.readline()
        if not line:
            QApplication.quit()
            return
        try:
            command = json.loads(line)
        except ValueError:
            emit("bad-command", line=line.strip())
            return
        name = command.get("cmd")
        if name == "state":
            QGuiApplication.sync()
            focused = QApplication.focusWidget()
            emit(
                "state",
                fields={key: edit.text() for key, edit in self.fields.items()},
                master=self.master.text(),
                checkbox=self.checkbox.isChecked(),
                focus=focused.objectName() if focused is not None else "",
            )
        elif name == "raise_vault":
            x, y, _w, _h = MAIN_GEOMETRY
            self.vault.move(x, y + 360)
            self.vault.raise_()
            QTimer.singleShot(150, lambda: emit("raised", vault=self._geometry(self.vault)))
        elif name == "lower_vault":
            self.vault.move(VAULT_GEOMETRY[0], VAULT_GEOMETRY[1])
            self.main.raise_()
            QTimer.singleShot(150, lambda: emit("lowered"))
        elif name == "banner":
            self.banner.setText(str(command.get("text", "")))
            QTimer.singleShot(150, lambda: emit("banner-shown"))
        elif name == "reset":
            for edit in (*self.fields.values(), self.master):
                edit.blockSignals(True)
                edit.clear()
                edit.blockSignals(False)
            self.checkbox.blockSignals(True)
            self.checkbox.setChecked(False)
            self.checkbox.blockSignals(False)
            self.list.clearSelection()
            self.banner.setText("")
            self.vault.move(VAULT_GEOMETRY[0], VAULT_GEOMETRY[1])
            self.main.raise_()
            self.main.activateWindow()
            self.fields["name"].setFocus()
            QTimer.singleShot(200, lambda: emit("reset-done"))
        elif name == "quit":
            QApplication.quit()
        else:
            emit("bad-command", line=line.strip())


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
    app = QApplication(sys.argv[:1])
    target = TargetApp()
    target.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
