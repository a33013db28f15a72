"""The Knowledge window: sources with their state; add (typed, browsed or dropped); search."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QIcon
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

    paths_dropped = Signal(list)
    """Local files or folders dropped onto the window (a list of paths)."""

    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setAcceptDrops(True)
        self.resize(980, 560)
        self.setWindowIcon(icon)
        self.setWindowTitle("ARIA — Knowledge")

        self.location = QLineEdit()
        self.location.setPlaceholderText("A file, a folder or an https:// address")
        self.watch = QCheckBox("Watch the folder for changes")
        self.add_button = QPushButton("Add")
        self.browse_files_button = QPushButton("Add files…")
        self.browse_folder_button = QPushButton("Add folder…")
        self.remove_button = QPushButton("Remove")
        self.reindex_button = QPushButton("Reindex all")

        last = len(SOURCE_COLUMNS) - 1
        self.sources = table(SOURCE_COLUMNS, stretch=(0, last))
        self.sources.setObjectName("knowledgeSources")
        sources_page = QWidget()
        sources_layout = QVBoxLayout(sources_page)
        sources_layout.addLayout(side_by_side(self.location, self.watch, self.add_button, grow=0))
        sources_layout.addLayout(
            side_by_side(self.browse_files_button, self.browse_folder_button, None)
        )
        self.empty = QLabel(
            "No documents yet. Drag files or folders onto this window, or click “Add files…” "
            "or “Add folder…”. ARIA then answers from them and says where each answer came from."
        )
        self.empty.setObjectName("knowledgeEmpty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet("font-size: 14px; padding: 24px;")
        self.empty.hide()
        sources_layout.addWidget(self.empty)
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

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """Accept local files and folders (not text or web links)."""
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        """Hand the dropped local paths on; the controller adds them."""
        paths = [url.toLocalFile() for url in event.mimeData().urls() if url.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.paths_dropped.emit(paths)
