"""The Knowledge window: sources with watch state, counts and last error; add; search; progress."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QCheckBox,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from aria_desktop.gui.views._widgets import side_by_side, table

__all__ = ["SOURCE_COLUMNS", "KnowledgeView"]

SOURCE_COLUMNS = (
    "Source",
    "Kind",
    "Watched",
    "Files",
    "Passages",
    "Problems",
    "State",
    "Last error",
)


class KnowledgeView(QWidget):
    """The window's widgets (layout only): ``KnowledgeController`` fills them and reacts."""

    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.resize(980, 560)
        self.setWindowIcon(icon)
        self.setWindowTitle("ARIA — Knowledge")

        self.location = QLineEdit()
        self.location.setPlaceholderText("A file, a folder or an https:// address")
        self.watch = QCheckBox("Watch the folder for changes")
        self.add_button = QPushButton("Add")
        self.remove_button = QPushButton("Remove")
        self.reindex_button = QPushButton("Reindex all")

        last = len(SOURCE_COLUMNS) - 1
        self.sources = table(SOURCE_COLUMNS, stretch=(0, last))
        self.sources.setObjectName("knowledgeSources")
        sources_page = QWidget()
        sources_layout = QVBoxLayout(sources_page)
        sources_layout.addLayout(side_by_side(self.location, self.watch, self.add_button, grow=0))
        sources_layout.addWidget(self.sources, 1)
        sources_layout.addLayout(side_by_side(None, self.remove_button, self.reindex_button))

        self.query = QLineEdit()
        self.query.setPlaceholderText("Ask your documents…")
        self.results = QTextBrowser()
        self.results.setObjectName("knowledgeResults")
        self.results.setOpenLinks(False)
        search_page = QWidget()
        search_layout = QVBoxLayout(search_page)
        search_layout.addWidget(self.query)
        search_layout.addWidget(self.results, 1)

        self.tabs = QTabWidget()
        self.tabs.addTab(sources_page, "Sources")
        self.tabs.addTab(search_page, "Search")

        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.status = QLabel("")
        self.status.setObjectName("knowledgeStatus")
        self.status.setWordWrap(True)
        self.report = QLabel("")
        self.report.setObjectName("knowledgeReport")
        self.report.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.report)
