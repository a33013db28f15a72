"""The memory browser: search and filters, the memory list, an editor, and the inbox."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from aria_desktop.domain.memory import MEMORY_KINDS, MEMORY_STATUSES
from aria_desktop.gui.views._widgets import table as _table

__all__ = ["KINDS", "STATUSES", "TIER_LABELS", "MemoryBrowserView"]

KINDS = MEMORY_KINDS
STATUSES = MEMORY_STATUSES
TIER_LABELS = {"active": "New", "thread": "In use", "stable": "Stable"}
"""How the browser names each tier: what it means to the user, not the store's word."""
MEMORY_COLUMNS = ("Memory", "Kind", "Subject", "Importance", "Status", "Tier", "Updated")
INBOX_COLUMNS = ("Proposed memory", "Kind", "Subject", "Confidence", "Proposed")


class MemoryBrowserView(QWidget):
    """Layout only; ``MemoryController`` fills and drives it."""

    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("ARIA — Memory")
        self.setWindowIcon(icon)
        self.resize(1000, 640)

        self.unavailable = self._build_unavailable()
        filters = self._build_filters()
        self.tabs = self._build_tabs()
        self.editor = self._build_editor()
        self.body = self._build_body(filters)
        layout = QVBoxLayout(self)
        layout.addWidget(self.unavailable, 1)
        layout.addWidget(self.body, 1)

    def _build_unavailable(self) -> QLabel:
        """The plain explanation shown instead of the browser when memory cannot be used."""
        unavailable = QLabel("")
        unavailable.setObjectName("memoryUnavailable")
        unavailable.setWordWrap(True)
        unavailable.setAlignment(Qt.AlignmentFlag.AlignCenter)
        unavailable.setStyleSheet("font-size: 15px; padding: 40px;")  # the theme's text colour
        unavailable.hide()
        return unavailable

    def _build_filters(self) -> QHBoxLayout:
        """The search field, the kind, subject and status filters, and the add button."""
        self.search = QLineEdit()
        self.search.setObjectName("memorySearch")
        self.search.setPlaceholderText("Search memories")
        self.search.setClearButtonEnabled(True)
        self.kind_filter = QComboBox()
        self.kind_filter.addItem("All kinds", "")
        for kind in KINDS:
            self.kind_filter.addItem(kind.capitalize(), kind)
        self.subject_filter = QLineEdit()
        self.subject_filter.setPlaceholderText("Subject (any)")
        self.subject_filter.setMaximumWidth(160)
        self.status_filter = QComboBox()
        for status in STATUSES:
            self.status_filter.addItem(status.capitalize(), status)
        self.tier_filter = QComboBox()
        self.tier_filter.setObjectName("memoryTierFilter")
        self.tier_filter.addItem("Any tier", "")
        for tier, label in TIER_LABELS.items():
            self.tier_filter.addItem(label, tier)
        self.add_button = QPushButton("Add memory…")
        filters = QHBoxLayout()
        filters.addWidget(self.search, 1)
        filters.addWidget(self.kind_filter)
        filters.addWidget(self.subject_filter)
        filters.addWidget(self.status_filter)
        filters.addWidget(self.tier_filter)
        filters.addWidget(self.add_button)
        return filters

    def _build_tabs(self) -> QTabWidget:
        """The memory list, and the inbox of proposed memories with approve and reject."""
        self.memories = _table(MEMORY_COLUMNS)
        self.memories.setObjectName("memoryTable")
        self.inbox = _table(INBOX_COLUMNS)
        self.inbox.setObjectName("inboxTable")
        self.approve_button = QPushButton("Approve")
        self.reject_button = QPushButton("Reject")
        inbox_buttons = QHBoxLayout()
        inbox_buttons.addStretch(1)
        inbox_buttons.addWidget(self.reject_button)
        inbox_buttons.addWidget(self.approve_button)
        inbox_page = QWidget()
        inbox_layout = QVBoxLayout(inbox_page)
        inbox_layout.addWidget(
            QLabel(
                "ARIA proposes these memories from your conversations. Nothing here is "
                "used until you approve it."
            )
        )
        inbox_layout.addWidget(self.inbox, 1)
        inbox_layout.addLayout(inbox_buttons)
        self.memories_empty = _empty_note("memoriesEmpty")
        self.inbox_empty = _empty_note("inboxEmpty")
        self.inbox_empty.setText(
            "Nothing to review. When ARIA notices something worth remembering in a "
            "conversation, it is proposed here for you to approve."
        )
        inbox_layout.insertWidget(1, self.inbox_empty, 1)
        memories_page = QWidget()
        memories_layout = QVBoxLayout(memories_page)
        memories_layout.setContentsMargins(0, 0, 0, 0)
        memories_layout.addWidget(self.memories_empty, 1)
        memories_layout.addWidget(self.memories, 1)
        tabs = QTabWidget()
        tabs.addTab(memories_page, "Memories")
        tabs.addTab(inbox_page, "Inbox")
        return tabs

    def _build_editor(self) -> QGroupBox:
        """The selected memory's fields, where it was learnt, and save and forget."""
        editor = QGroupBox("Selected memory")
        self.content = QPlainTextEdit()
        self.content.setObjectName("memoryContent")
        self.kind = QComboBox()  # not editable: the store accepts only the known kinds
        for kind in KINDS:
            self.kind.addItem(kind.capitalize(), kind)
        self.subject = QLineEdit()
        self.importance = QDoubleSpinBox()
        self.importance.setRange(0.0, 1.0)
        self.importance.setSingleStep(0.1)
        self.importance.setDecimals(2)
        self.tier = QComboBox()
        self.tier.setObjectName("memoryTier")
        for tier, label in TIER_LABELS.items():
            self.tier.addItem(label, tier)
        self.tier_pinned = QCheckBox("Keep it in this tier")
        self.tier_pinned.setObjectName("memoryTierPinned")
        self.tier_pinned.setToolTip(
            "Stable memories are part of every conversation. Unticked, ARIA moves the memory "
            "by how often it is used."
        )
        self.tier_pinned.toggled.connect(self.tier.setEnabled)
        tier_row = QHBoxLayout()
        tier_row.addWidget(self.tier)
        tier_row.addWidget(self.tier_pinned, 1)
        self.provenance = QLabel("")
        self.provenance.setWordWrap(True)
        self.provenance.setTextFormat(Qt.TextFormat.PlainText)
        self.related = QLabel("")
        self.related.setObjectName("memoryRelated")
        self.related.setWordWrap(True)
        self.related.setTextFormat(Qt.TextFormat.PlainText)
        self.related_label = QLabel("Linked to")
        self.open_conversation_button = QPushButton("Open the conversation")
        self.save_button = QPushButton("Save changes")
        self.forget_button = QPushButton("Forget")
        # The theme's own button colours: a fixed dark red was unreadable on the dark theme.
        form = QFormLayout(editor)
        form.addRow("Memory", self.content)
        form.addRow("Kind", self.kind)
        form.addRow("Subject", self.subject)
        form.addRow("Importance", self.importance)
        form.addRow("Tier", tier_row)
        form.addRow("Learnt from", self.provenance)
        form.addRow("", self.open_conversation_button)
        form.addRow(self.related_label, self.related)
        self.show_related([])
        editor_buttons = QHBoxLayout()
        editor_buttons.addWidget(self.forget_button)
        editor_buttons.addStretch(1)
        editor_buttons.addWidget(self.save_button)
        form.addRow(editor_buttons)
        return editor

    def _build_body(self, filters: QHBoxLayout) -> QWidget:
        """The filters over the list and editor side by side, and the status line."""
        splitter = QSplitter()
        splitter.addWidget(self.tabs)
        splitter.addWidget(self.editor)
        splitter.setSizes([640, 360])
        splitter.setChildrenCollapsible(False)
        self.status = QLabel("")
        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.addLayout(filters)
        body_layout.addWidget(splitter, 1)
        body_layout.addWidget(self.status)
        return body

    def set_available(self, available: bool, reason: str = "") -> None:
        """Show the browser, or only a plain explanation why memory cannot be used."""
        self.body.setVisible(available)
        self.unavailable.setVisible(not available)
        self.unavailable.setText("" if available else f"Memory not available.\n\n{reason}")

    def show_empty(self, memories: str, inbox: bool) -> None:
        """Say what to do instead of an empty table (``memories`` "" when there are some).

        The empty table goes (a header over nothing reads as broken); the note takes its place.
        """
        self.memories_empty.setText(memories)
        self.memories_empty.setVisible(bool(memories))
        self.memories.setVisible(not memories)
        self.inbox_empty.setVisible(inbox)
        self.inbox.setVisible(not inbox)

    def show_related(self, lines: Sequence[str]) -> None:
        """The memories used together with the selected one (the row hides when none)."""
        self.related.setText("\n".join(f"• {line}" for line in lines))
        self.related.setVisible(bool(lines))
        self.related_label.setVisible(bool(lines))

    def set_editor_enabled(self, enabled: bool) -> None:
        """Enable the editor when a memory is selected."""
        self.set_editor_mode("memory" if enabled else "none")

    def set_editor_mode(self, mode: str) -> None:
        """``none`` (nothing selected), ``memory`` (editable) or ``candidate`` (read-only).

        A proposed memory is only approved or rejected as it stands: the store has no
        "edit, then approve" step, so its fields are shown but cannot be changed here.
        """
        self.editor.setEnabled(mode != "none")
        editable = mode != "candidate"
        self.editor.setTitle("Selected memory" if editable else "Proposed memory")
        self.content.setReadOnly(not editable)
        for widget in (self.kind, self.subject, self.importance, self.save_button):
            widget.setEnabled(editable)
        self.tier_pinned.setEnabled(mode == "memory")
        self.tier.setEnabled(mode == "memory" and self.tier_pinned.isChecked())
        self.forget_button.setVisible(editable)
        self.save_button.setVisible(editable)
        self.save_button.setText("Save changes")

    def chosen_kind(self) -> str:
        """The kind picked in the form, as the store names it ("fact", "preference", …)."""
        return str(self.kind.currentData() or "")

    def show_tier(self, tier: str, pinned: bool) -> None:
        """Show a memory's tier, and whether the user keeps it there."""
        self.tier.setCurrentIndex(max(0, self.tier.findData(tier)))
        self.tier_pinned.setChecked(pinned)
        self.tier.setEnabled(pinned and self.tier_pinned.isEnabled())

    def chosen_tier(self) -> tuple[str, bool]:
        """The tier picked in the form, and whether to keep the memory there."""
        return str(self.tier.currentData() or "active"), self.tier_pinned.isChecked()

    def choose_kind(self, kind: str) -> None:
        """Show ``kind`` as picked in the form (its label, capitalised)."""
        self.kind.setCurrentIndex(max(0, self.kind.findData(kind)))


def _empty_note(name: str) -> QLabel:
    """A centred line saying what to do where a table would be empty."""
    note = QLabel("")
    note.setObjectName(name)
    note.setWordWrap(True)
    note.setAlignment(Qt.AlignmentFlag.AlignCenter)
    note.setStyleSheet("font-size: 14px; padding: 24px;")
    note.hide()
    return note
