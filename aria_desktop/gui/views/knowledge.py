"""The Knowledge window: sources with watch state, counts and last error; add; search; progress."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

__all__ = ["SOURCE_COLUMNS", "KnowledgeView"]

SOURCE_COLUMNS = ("Source", "Kind", "Watched", "Files", "Passages", "Problems", "Last error")


class KnowledgeView(QWidget):
    """Layout only; ``KnowledgeController`` fills and drives it."""

    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("ARIA — Knowledge")
        self.setWindowIcon(icon)
        self.resize(980, 560)

        self.location = QLineEdit()
        self.location.setPlaceholderText("A file, a folder or an https:// address")
        self.watch = QCheckBox("Watch the folder for changes")
        self.add_button = QPushButton("Add")
        self.remove_button = QPushButton("Remove")
        self.reindex_button = QPushButton("Reindex all")
        adding = QHBoxLayout()
        adding.addWidget(self.location, 1)
        adding.addWidget(self.watch)
        adding.addWidget(self.add_button)

        self.sources = QTableWidget(0, len(SOURCE_COLUMNS))
        self.sources.setObjectName("knowledgeSources")
        self.sources.setHorizontalHeaderLabels(list(SOURCE_COLUMNS))
        self.sources.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.sources.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.sources.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.sources.verticalHeader().setVisible(False)
        header = self.sources.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(SOURCE_COLUMNS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(SOURCE_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.reindex_button)
        sources_page = QWidget()
        sources_layout = QVBoxLayout(sources_page)
        sources_layout.addLayout(adding)
        sources_layout.addWidget(self.sources, 1)
        sources_layout.addLayout(buttons)

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
