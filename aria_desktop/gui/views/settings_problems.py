"""The window ``aria desktop`` shows before the tray when its settings file has mistakes.

Started from the menu, the user has no terminal: a typo in ``settings.toml`` must not leave
them with nothing at all (ARCHITECTURE.md: a start that never breaks). The window names the
file and each problem in plain words, and offers to open the file, to start with the
defaults where the problems are, or to quit. Colours come from the app's theme (``mark``), so
it reads in light and dark.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtGui import QCloseEvent, QIcon
from PySide6.QtWidgets import (
    QDialogButtonBox,
    QFrame,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from aria_desktop.domain.settings_problems import SettingsProblem
from aria_desktop.gui.theme import mark

__all__ = ["SettingsProblemsView", "problem_text"]

_LISTED_WITHOUT_SCROLLING = 6
"""Up to this many problems are listed as they are; more scroll (the window stays on screen)."""


def problem_text(problem: SettingsProblem) -> str:
    """One problem as the window lists it: where in the file first, then the sentence."""
    if problem.line is None:
        return problem.message
    if not problem.key and problem.column is not None:  # the file does not parse: be exact
        return f"Line {problem.line}, column {problem.column}: {problem.message}"
    return f"Line {problem.line}: {problem.message}"


def _headline(problems: Sequence[SettingsProblem]) -> str:
    if any(not p.key and p.file for p in problems):
        return "ARIA cannot read its settings file"
    if len(problems) == 1:
        return "One setting needs a look"
    return f"{len(problems)} settings need a look"


def _advice(problems: Sequence[SettingsProblem]) -> str:
    if any(not p.key and p.file for p in problems):
        return (
            "ARIA can start with its default settings. Your file is left exactly as it is; "
            "once you fix it, ARIA uses it again."
        )
    return (
        "ARIA can start anyway: each of these uses its default, and everything else in your "
        "file is used as you wrote it. Your file is left as it is."
    )


class SettingsProblemsView(QWidget):
    """The file, each problem, and three choices: open the file, start, quit.

    Closing the window counts as "Start with defaults": it only reports, and ARIA runs.
    """

    open_file = Signal()
    start = Signal()
    quit = Signal()

    def __init__(
        self, problems: Sequence[SettingsProblem], file: str, icon: QIcon | None = None
    ) -> None:
        super().__init__(None, Qt.WindowType.Window)
        self.setWindowTitle("ARIA — settings")
        if icon is not None:
            self.setWindowIcon(icon)
        self.setMinimumWidth(520)
        self.setMaximumWidth(760)
        self._answered = False
        title = QLabel(_headline(problems))
        title.setObjectName("settingsProblemsTitle")
        title.setStyleSheet("font-weight: bold; font-size: 15px;")
        title.setWordWrap(True)
        self.file_label = QLabel(f"In {file}:" if file else "In ARIA's settings:")
        self.file_label.setObjectName("settingsProblemsFile")
        self.file_label.setTextFormat(Qt.TextFormat.PlainText)
        self.file_label.setWordWrap(True)
        self.file_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problem_labels = [self._problem_label(p) for p in problems]
        listing = QWidget()
        rows = QVBoxLayout(listing)
        rows.setContentsMargins(12, 4, 4, 4)
        rows.setSpacing(8)
        for label in self.problem_labels:
            rows.addWidget(label)
        shown: QWidget = listing
        if len(problems) > _LISTED_WITHOUT_SCROLLING:  # a long list scrolls, a short one fits
            scroll = QScrollArea()
            scroll.setWidget(listing)
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setMinimumHeight(240)
            shown = scroll
        shown.setObjectName("settingsProblemsList")
        self.advice = mark(QLabel(_advice(problems)), "muted")
        self.advice.setObjectName("settingsProblemsAdvice")
        self.advice.setWordWrap(True)
        self.status = mark(QLabel(""), "warning")
        self.status.setObjectName("settingsProblemsStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.hide()
        self.open_button = QPushButton("Open settings file")
        self.open_button.setObjectName("openSettingsFile")
        self.open_button.setEnabled(bool(file))
        self.start_button = QPushButton("Start with defaults")
        self.start_button.setObjectName("startWithDefaults")
        self.start_button.setDefault(True)
        self.quit_button = QPushButton("Quit")
        self.quit_button.setObjectName("quitAria")
        buttons = QDialogButtonBox()
        buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.start_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.quit_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.open_button.clicked.connect(self.open_file)
        self.start_button.clicked.connect(lambda: self._answer(self.start))
        self.quit_button.clicked.connect(lambda: self._answer(self.quit))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 16, 18, 14)
        layout.setSpacing(10)
        layout.addWidget(title)
        layout.addWidget(self.file_label)
        layout.addWidget(shown, 1)
        layout.addWidget(self.advice)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self.start_button.setFocus()

    @staticmethod
    def _problem_label(problem: SettingsProblem) -> QLabel:
        label = QLabel(f"•  {problem_text(problem)}")
        label.setObjectName("settingsProblem")
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def show_status(self, text: str) -> None:
        """A line under the advice (the file could not be opened, where it is)."""
        self.status.setText(text)
        self.status.setVisible(bool(text))

    def _answer(self, signal: SignalInstance) -> None:
        if self._answered:
            return
        self._answered = True
        self.hide()
        signal.emit()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing the window starts ARIA with the defaults (the window only reports)."""
        self._answer(self.start)
        super().closeEvent(event)
