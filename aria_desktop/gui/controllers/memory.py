"""Memory browser behaviour: search, filters, edit, forget, provenance, inbox."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QMessageBox, QTableWidget, QTableWidgetItem

from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.memory import Memory, MemoryQuery
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.memory_port import MemoryAccess
from aria_desktop.gui.views.memory_browser import MemoryBrowserView

__all__ = ["MemoryController"]

_ID_ROLE = Qt.ItemDataRole.UserRole
_SEARCH_DELAY_MS = 250


class MemoryController(QObject):
    """Opens the browser and sends every edit to the Assistant's memory methods."""

    open_conversation = Signal(str)
    """The user wants to see the conversation a memory came from."""
    changed = Signal()
    """A list was reloaded (after a search, an edit, an approval ...)."""

    def __init__(
        self, context: GuiContext, icon: QIcon, status: Callable[[], CapabilityStatus]
    ) -> None:
        super().__init__()
        self.context = context
        self._icon = icon
        self._status = status
        self.view: MemoryBrowserView | None = None
        self.memories: list[Memory] = []
        self.inbox: list[Memory] = []
        self.selected: Memory | None = None
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(_SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.reload)

    def _memory(self) -> MemoryAccess:
        assistant = self.context.assistant
        if not isinstance(assistant, MemoryAccess):
            raise TypeError("memory is not available")  # guarded by available() before use
        return assistant

    def open(self) -> None:
        """Show the browser (or why memory is unavailable)."""
        view = self._ensure_view()
        status = self._status()
        view.set_available(status.available, status.reason)
        view.show()
        view.raise_()
        view.activateWindow()
        if status.available:
            self.reload()

    def close(self) -> None:
        """Hide the browser."""
        if self.view is not None:
            self.view.hide()

    def _ensure_view(self) -> MemoryBrowserView:
        if self.view is not None:
            return self.view
        view = MemoryBrowserView(self._icon)
        self.view = view
        view.set_editor_enabled(False)
        view.search.textChanged.connect(lambda _text: self._search_timer.start())
        view.subject_filter.textChanged.connect(lambda _text: self._search_timer.start())
        view.kind_filter.currentIndexChanged.connect(lambda _i: self.reload())
        view.status_filter.currentIndexChanged.connect(lambda _i: self.reload())
        view.memories.itemSelectionChanged.connect(self._on_memory_selected)
        view.inbox.itemSelectionChanged.connect(self._on_inbox_selected)
        view.save_button.clicked.connect(self.save_selected)
        view.forget_button.clicked.connect(self._ask_forget)
        view.approve_button.clicked.connect(lambda: self._inbox_decision(True))
        view.reject_button.clicked.connect(lambda: self._inbox_decision(False))
        view.add_button.clicked.connect(self._add)
        view.open_conversation_button.clicked.connect(self._open_provenance)
        return view

    # --- loading ------------------------------------------------------------------------------

    def reload(self) -> None:
        """Re-run the search / listing with the current filters, and reload the inbox."""
        if self._status().available:
            self.context.tasks.spawn(
                self._reload(), name="aria-gui-memory-reload", on_error=self._failed
            )

    async def _reload(self) -> None:
        view = self._ensure_view()
        memory = self._memory()
        kind = str(view.kind_filter.currentData() or "")
        status = str(view.status_filter.currentData() or "active")
        subject = view.subject_filter.text().strip() or None
        text = view.search.text().strip()
        kinds = (kind,) if kind else ()
        if text:
            hits = await memory.search_memories(
                MemoryQuery(text=text, limit=100, kinds=kinds, subject=subject, statuses=(status,))
            )
            self.memories = [hit.memory for hit in hits]
        else:
            self.memories = await memory.list_memories(
                kinds=kinds, subject=subject, statuses=(status,), limit=200
            )
        self.inbox = await memory.list_memory_inbox()
        self._fill(view.memories, [self._row(m) for m in self.memories], self.memories)
        self._fill(
            view.inbox,
            [
                [m.content, m.kind, m.subject, f"{m.confidence:.0%}", m.provenance]
                for m in self.inbox
            ],
            self.inbox,
        )
        view.tabs.setTabText(1, f"Inbox ({len(self.inbox)})" if self.inbox else "Inbox")
        view.status.setText(f"{len(self.memories)} memories shown")
        self.changed.emit()

    @staticmethod
    def _row(memory: Memory) -> list[str]:
        updated = time.strftime("%Y-%m-%d", time.localtime(memory.updated_at or memory.created_at))
        return [
            memory.content,
            memory.kind,
            memory.subject,
            f"{memory.importance:.2f}",
            memory.status,
            updated,
        ]

    @staticmethod
    def _fill(table: QTableWidget, rows: list[list[str]], memories: list[Memory]) -> None:
        table.setRowCount(len(rows))
        for r, (row, memory) in enumerate(zip(rows, memories, strict=True)):
            for c, value in enumerate(row):
                item = QTableWidgetItem(value)
                item.setData(_ID_ROLE, memory.id)
                item.setToolTip(value)
                table.setItem(r, c, item)

    def _failed(self, message: str, hint: str) -> None:
        if self.view is not None:
            self.view.status.setText(f"{message} {hint}".strip())

    # --- editing ------------------------------------------------------------------------------

    def _selected_in(self, table: QTableWidget, memories: list[Memory]) -> Memory | None:
        rows = table.selectionModel().selectedRows()
        if not rows:
            return None
        index = rows[0].row()
        return memories[index] if 0 <= index < len(memories) else None

    def _on_memory_selected(self) -> None:
        view = self._ensure_view()
        self.select(self._selected_in(view.memories, self.memories))

    def _on_inbox_selected(self) -> None:
        view = self._ensure_view()
        self.select(self._selected_in(view.inbox, self.inbox))

    def select(self, memory: Memory | None) -> None:
        """Show ``memory`` in the editor."""
        view = self._ensure_view()
        self.selected = memory
        view.set_editor_enabled(memory is not None)
        if memory is None:
            return
        view.content.setPlainText(memory.content)
        view.kind.setCurrentText(memory.kind)
        view.subject.setText(memory.subject)
        view.importance.setValue(memory.importance)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(memory.created_at))
        source = f"{memory.provenance}, {when}"
        if memory.conversation_id:
            source += " (in a conversation)"
        view.provenance.setText(source)
        view.open_conversation_button.setEnabled(bool(memory.conversation_id))

    def save_selected(self) -> None:
        """Send the editor's changes to the Assistant."""
        memory = self.selected
        view = self._ensure_view()
        if memory is None:
            return
        content = view.content.toPlainText().strip()
        if not content:
            view.status.setText("A memory cannot be empty; use Forget to remove it.")
            return
        self.context.tasks.spawn(
            self._save(
                memory.id,
                content,
                view.kind.currentText().strip() or memory.kind,
                view.subject.text().strip() or memory.subject,
                view.importance.value(),
            ),
            name="aria-gui-memory-save",
            on_error=self._failed,
        )

    async def _save(
        self, memory_id: str, content: str, kind: str, subject: str, importance: float
    ) -> None:
        updated = await self._memory().update_memory(
            memory_id, content=content, kind=kind, subject=subject, importance=importance
        )
        self.selected = updated
        await self._reload()
        self._ensure_view().status.setText("Saved.")

    def _ask_forget(self) -> None:
        memory = self.selected
        view = self._ensure_view()
        if memory is None:
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Forget memory",
            f"Forget “{memory.content[:120]}”? ARIA will no longer use it.",
            QMessageBox.StandardButton.Cancel,
            view,
        )
        forget = box.addButton("Forget", QMessageBox.ButtonRole.DestructiveRole)
        box.setWindowModality(Qt.WindowModality.WindowModal)

        def finished() -> None:
            if box.clickedButton() is forget:
                self.forget(memory.id)
            box.deleteLater()

        box.finished.connect(finished)
        box.open()

    def forget(self, memory_id: str) -> None:
        """Forget a memory (after the user agreed)."""
        self.context.tasks.spawn(
            self._forget(memory_id), name="aria-gui-memory-forget", on_error=self._failed
        )

    async def _forget(self, memory_id: str) -> None:
        await self._memory().forget_memory(memory_id)
        self.select(None)
        await self._reload()

    def _inbox_decision(self, approve: bool) -> None:
        view = self._ensure_view()
        memory = self._selected_in(view.inbox, self.inbox)
        if memory is None:
            view.status.setText("Select a proposed memory first.")
            return
        self.decide(memory.id, approve)

    def decide(self, memory_id: str, approve: bool) -> None:
        """Approve or reject a proposed memory."""
        self.context.tasks.spawn(
            self._decide(memory_id, approve), name="aria-gui-memory-inbox", on_error=self._failed
        )

    async def _decide(self, memory_id: str, approve: bool) -> None:
        memory = self._memory()
        if approve:
            await memory.approve_memory(memory_id)
        else:
            await memory.reject_memory(memory_id)
        await self._reload()

    def _add(self) -> None:
        view = self._ensure_view()
        self.select(None)
        view.set_editor_enabled(True)
        view.content.clear()
        view.content.setPlaceholderText("Type what ARIA should remember, then Save.")
        view.provenance.setText("added by you")
        view.open_conversation_button.setEnabled(False)
        view.save_button.clicked.disconnect()
        view.save_button.clicked.connect(self._save_new)
        view.content.setFocus()

    def _save_new(self) -> None:
        view = self._ensure_view()
        view.save_button.clicked.disconnect()
        view.save_button.clicked.connect(self.save_selected)
        content = view.content.toPlainText().strip()
        if not content:
            view.status.setText("Type the memory first.")
            return
        self.add(
            content,
            view.kind.currentText().strip() or "fact",
            view.subject.text().strip() or "user",
            view.importance.value(),
        )

    def add(self, content: str, kind: str, subject: str, importance: float) -> None:
        """Add a memory by hand."""
        self.context.tasks.spawn(
            self._add_memory(content, kind, subject, importance),
            name="aria-gui-memory-add",
            on_error=self._failed,
        )

    async def _add_memory(self, content: str, kind: str, subject: str, importance: float) -> None:
        await self._memory().add_memory(
            content, kind=kind, subject=subject, importance=importance, provenance="manual"
        )
        await self._reload()

    def _open_provenance(self) -> None:
        if self.selected is not None and self.selected.conversation_id:
            self.open_conversation.emit(self.selected.conversation_id)
