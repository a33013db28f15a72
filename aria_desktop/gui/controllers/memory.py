"""Memory browser behaviour: search, filters, edit, forget, provenance, inbox.

Everything goes through the ``Assistant``'s memory methods (in-process or over the API).
Whether memory can be used comes from the ``memory`` capability; a call that still finds
memory unavailable (``MemoryUnavailableError``) switches the browser to its explanation.
The inbox holds ``MemoryCandidate`` values (proposed by extraction in "ask me first" mode),
which are approved or rejected as they stand.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

from aria_desktop.core.ports import Assistant
from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.errors import MemoryUnavailableError
from aria_desktop.domain.memory import (
    Memory,
    MemoryCandidate,
    MemoryEdit,
    MemoryFilter,
    MemoryQuery,
    NewMemory,
)
from aria_desktop.domain.memory_events import MemoryChanged
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.controllers.window import WindowController
from aria_desktop.gui.tasks import describe_error
from aria_desktop.gui.views.memory_browser import TIER_LABELS, MemoryBrowserView
from aria_desktop.gui.views.question import ask_before

__all__ = ["MemoryController"]

_ID_ROLE = Qt.ItemDataRole.UserRole
_SEARCH_DELAY_MS = 250
_SOURCES = {
    "conversation": "learnt in a conversation",
    "manual": "added by you",
    "api": "added through the API",
    "import": "imported",
    "tool": "saved by ARIA when asked to remember",
    "inbox": "proposed by ARIA, approved by you",
}


def describe_source(provenance: str, created_at: float) -> str:
    """Where a memory came from, in plain words, with the date."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(created_at))
    return f"{_SOURCES.get(provenance, provenance or 'unknown')}, {when}"


def related_line(content: str, count: int) -> str:
    """One associated memory in the editor: its text, and how often they were used together."""
    times = "once" if count == 1 else "twice" if count == 2 else f"{count} times"
    return f"{content} (used together {times})"


def _day(seconds: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(seconds))


class MemoryController(WindowController[MemoryBrowserView]):
    """Opens the browser and sends every edit to the Assistant's memory methods."""

    open_conversation = Signal(str)
    """The user wants to see the conversation a memory came from."""
    changed = Signal()
    """A list was reloaded (after a search, an edit, an approval ...)."""

    def __init__(
        self, context: GuiContext, icon: QIcon, status: Callable[[], CapabilityStatus]
    ) -> None:
        super().__init__(icon)
        self.context = context
        self._status = status
        self.memories: list[Memory] = []
        self.inbox: list[MemoryCandidate] = []
        self.selected: Memory | None = None
        self.selected_candidate: MemoryCandidate | None = None
        self._adding = False
        self._note = ""
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(_SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.reload)
        context.bridge.event_received.connect(self._on_event)

    def _memory(self) -> Assistant:
        return self.context.assistant

    def open(self) -> None:
        """Show the browser (or why memory is unavailable)."""
        view = self._ensure_view()
        status = self._status()
        view.set_available(status.available, status.reason)
        self._note = (
            f" · {search_note(status.reason)}" if status.available and status.reason else ""
        )
        self._bring_up(view)
        if status.available:
            self.reload()

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
        view.tier_filter.currentIndexChanged.connect(lambda _i: self.reload())
        view.memories.itemSelectionChanged.connect(self._on_memory_selected)
        view.inbox.itemSelectionChanged.connect(self._on_inbox_selected)
        view.save_button.clicked.connect(self.save_selected)
        view.forget_button.clicked.connect(self._ask_forget)
        view.approve_button.clicked.connect(lambda: self._inbox_decision(True))
        view.reject_button.clicked.connect(lambda: self._inbox_decision(False))
        view.add_button.clicked.connect(self._add)
        view.open_conversation_button.clicked.connect(self._open_provenance)
        return view

    def _on_event(self, event: object) -> None:
        # Extraction and the model's tools change memory in the background: refresh an open
        # browser, unless the user is in the middle of editing something.
        if not isinstance(event, MemoryChanged) or self.view is None or not self.view.isVisible():
            return
        if self.selected is None and self.selected_candidate is None and not self._adding:
            self._search_timer.start()

    # --- loading ------------------------------------------------------------------------------

    def reload(self) -> None:
        """Re-run the search / listing with the current filters, and reload the inbox."""
        if self._status().available:
            self._spawn(self._reload(), "aria-gui-memory-reload")

    async def _reload(self) -> None:
        view = self._ensure_view()
        memory = self._memory()
        kind = str(view.kind_filter.currentData() or "")
        status = str(view.status_filter.currentData() or "active")
        tier = str(view.tier_filter.currentData() or "")
        tiers = (tier,) if tier else ()
        subject = view.subject_filter.text().strip() or None
        text = view.search.text().strip()
        kinds = (kind,) if kind else ()
        if text:
            hits = await memory.search_memories(
                MemoryQuery(text=text, limit=100, kinds=kinds, subject=subject, statuses=(status,))
            )
            self.memories = [h.memory for h in hits if not tier or h.memory.tier == tier]
        else:
            self.memories = await memory.list_memories(
                MemoryFilter(
                    kinds=kinds, subject=subject, statuses=(status,), tiers=tiers, limit=200
                )
            )
        self.inbox = await memory.list_memory_inbox()
        self._fill(
            view.memories, [self._row(m) for m in self.memories], [m.id for m in self.memories]
        )
        self._fill(
            view.inbox,
            [
                [c.content, c.kind, c.subject, f"{c.confidence:.0%}", _day(c.created_at)]
                for c in self.inbox
            ],
            [c.id for c in self.inbox],
        )
        view.tabs.setTabText(1, f"Inbox ({len(self.inbox)})" if self.inbox else "Inbox")
        shown = len(self.memories)
        view.status.setText(f"{shown} {'memory' if shown == 1 else 'memories'} shown{self._note}")
        filtered = bool(text or kind or subject or tier)
        view.show_empty(_empty_text(shown, filtered, status), not self.inbox)
        self._restore_selection()
        self.changed.emit()

    def _restore_selection(self) -> None:
        """After a reload, the tables' selection and the editor show the same record again.

        Refilling a table keeps its selected row *number*, which may now be another record:
        acting on it (Forget, Save) would hit the wrong memory.
        """
        view = self._ensure_view()
        selected = self.selected.id if self.selected is not None else None
        candidate = self.selected_candidate.id if self.selected_candidate is not None else None
        for table in (view.memories, view.inbox):
            table.blockSignals(True)
            table.clearSelection()
            table.blockSignals(False)
        memory_rows = [i for i, m in enumerate(self.memories) if m.id == selected]
        candidate_rows = [i for i, c in enumerate(self.inbox) if c.id == candidate]
        if memory_rows:
            view.memories.selectRow(memory_rows[0])  # re-shows the stored values
        elif candidate_rows:
            view.inbox.selectRow(candidate_rows[0])
        elif not self._adding:
            self.select(None)

    @staticmethod
    def _row(memory: Memory) -> list[str]:
        return [
            memory.content,
            memory.kind,
            memory.subject,
            f"{memory.importance:.2f}",
            memory.status,
            TIER_LABELS.get(memory.tier, memory.tier) + (" (kept)" if memory.tier_pinned else ""),
            _day(memory.updated_at or memory.created_at),
        ]

    @staticmethod
    def _fill(table: QTableWidget, rows: list[list[str]], ids: Sequence[str]) -> None:
        table.setRowCount(len(rows))
        for r, (row, record_id) in enumerate(zip(rows, ids, strict=True)):
            for c, value in enumerate(row):
                item = QTableWidgetItem(value)
                item.setData(_ID_ROLE, record_id)
                item.setToolTip(value)
                table.setItem(r, c, item)

    def _failed(self, message: str, hint: str) -> None:
        if self.view is not None:
            self.view.status.setText(f"{message} {hint}".strip())

    def _spawn(self, coro: Coroutine[Any, Any, None], name: str) -> None:
        """Run a memory call; memory turning out unavailable shows the explanation."""

        async def guarded() -> None:
            try:
                await coro
            except MemoryUnavailableError as exc:
                message, hint = describe_error(exc)
                self._ensure_view().set_available(False, f"{message} {hint}".strip())

        self.context.tasks.spawn(guarded(), name=name, on_error=self._failed)

    # --- editing ------------------------------------------------------------------------------

    @staticmethod
    def _selected_row(table: QTableWidget, count: int) -> int | None:
        rows = table.selectionModel().selectedRows()
        if not rows:
            return None
        index = rows[0].row()
        return index if 0 <= index < count else None

    def _on_memory_selected(self) -> None:
        view = self._ensure_view()
        index = self._selected_row(view.memories, len(self.memories))
        self.select(None if index is None else self.memories[index])

    def _on_inbox_selected(self) -> None:
        view = self._ensure_view()
        index = self._selected_row(view.inbox, len(self.inbox))
        self.select_candidate(None if index is None else self.inbox[index])

    def select(self, memory: Memory | None) -> None:
        """Show ``memory`` in the editor."""
        view = self._show_in_editor(memory, "memory")
        if view is None or memory is None:
            return
        source = describe_source(memory.provenance, memory.created_at)
        if memory.status == "superseded":
            source += "; replaced by a newer memory"
        elif memory.status == "forgotten":
            source += "; forgotten (no longer used)"
        view.provenance.setText(source)
        view.open_conversation_button.setEnabled(bool(memory.conversation_id))
        self._spawn(self._load_related(memory.id), "aria-gui-memory-related")

    async def _load_related(self, memory_id: str) -> None:
        """Show the memories used together with the selected one (if it is still selected)."""
        found = await self._memory().memory_associations(memory_id)
        if self.selected is None or self.selected.id != memory_id or self.view is None:
            return
        self.view.show_related([related_line(a.memory.content, a.count) for a in found[:5]])

    def select_candidate(self, candidate: MemoryCandidate | None) -> None:
        """Show a proposed memory (read-only: approve or reject it as it stands)."""
        view = self._show_in_editor(candidate, "candidate")
        if view is None or candidate is None:
            return
        where = "proposed from a conversation" if candidate.conversation_id else "proposed"
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(candidate.created_at))
        view.provenance.setText(
            f"{where}, {when}; ARIA is {candidate.confidence:.0%} sure. Not used until approved."
        )
        view.open_conversation_button.setEnabled(bool(candidate.conversation_id))

    def _show_in_editor(
        self, item: Memory | MemoryCandidate | None, mode: str
    ) -> MemoryBrowserView | None:
        """Make ``item`` the selection and fill the fields a memory and a proposal share.

        Returns the view to finish filling in, or None when the selection was cleared.
        """
        view = self._ensure_view()
        self.selected = item if isinstance(item, Memory) else None
        self.selected_candidate = item if isinstance(item, MemoryCandidate) else None
        self._adding = False
        view.show_related([])
        view.set_editor_mode("none" if item is None else mode)
        if item is None:
            view.open_conversation_button.setEnabled(False)
            return None
        view.content.setPlainText(item.content)
        view.choose_kind(item.kind)
        view.subject.setText(item.subject)
        view.importance.setValue(item.importance)
        if isinstance(item, Memory):
            view.show_tier(item.tier, item.tier_pinned)
        else:
            view.show_tier("active", False)
        return view

    def save_selected(self) -> None:
        """Send the editor's changes to the Assistant (or add the new memory being typed)."""
        if self._adding:
            self._save_new()
            return
        memory = self.selected
        view = self._ensure_view()
        if memory is None:
            return
        content = view.content.toPlainText().strip()
        if not content:
            view.status.setText("A memory cannot be empty; use Forget to remove it.")
            return
        tier, keep = view.chosen_tier()
        edit = MemoryEdit(
            content=content,
            kind=view.chosen_kind() or memory.kind,
            subject=view.subject.text().strip() or memory.subject,
            importance=view.importance.value(),
            # Kept: pin it in the tier shown; no longer kept: the use rules move it again.
            tier=tier if keep else None,
            tier_pinned=False if memory.tier_pinned and not keep else None,
        )
        self._spawn(self._save(memory.id, edit), "aria-gui-memory-save")

    async def _save(self, memory_id: str, edit: MemoryEdit) -> None:
        await self._memory().update_memory(memory_id, edit)
        await self._reload()  # keeps it selected, showing the stored values
        self._ensure_view().status.setText("Saved.")

    def _reselect(self, memory_id: str) -> None:
        """Select ``memory_id`` in the list (after it was saved or added)."""
        view = self._ensure_view()
        for row, memory in enumerate(self.memories):
            if memory.id == memory_id:
                view.memories.clearSelection()
                view.memories.selectRow(row)
                return
        self.select(None)

    def _ask_forget(self) -> None:
        memory = self.selected
        view = self._ensure_view()
        if memory is None:
            return
        ask_before(
            view,
            "Forget memory",
            f"Forget “{memory.content[:120]}”? ARIA will no longer use it.",
            "Forget",
            lambda: self.forget(memory.id),
        )

    def forget(self, memory_id: str) -> None:
        """Forget a memory (after the user agreed)."""
        self._spawn(self._forget(memory_id), "aria-gui-memory-forget")

    async def _forget(self, memory_id: str) -> None:
        await self._memory().forget_memory(memory_id)
        self.select(None)
        await self._reload()

    def _inbox_decision(self, approve: bool) -> None:
        view = self._ensure_view()
        index = self._selected_row(view.inbox, len(self.inbox))
        if index is None:
            view.status.setText("Select a proposed memory first.")
            return
        self.decide(self.inbox[index].id, approve)

    def decide(self, candidate_id: str, approve: bool) -> None:
        """Approve (store it as a memory) or reject (drop it) a proposed memory."""
        self._spawn(self._decide(candidate_id, approve), "aria-gui-memory-inbox")

    async def _decide(self, candidate_id: str, approve: bool) -> None:
        memory = self._memory()
        if approve:
            stored = await memory.approve_memory(candidate_id)
            message = f"Approved: ARIA now remembers “{stored.content[:80]}”."
        else:
            await memory.reject_memory(candidate_id)
            message = "Rejected: ARIA will not remember it."
        self.select_candidate(None)
        await self._reload()
        self._ensure_view().status.setText(message)

    def _add(self) -> None:
        view = self._ensure_view()
        view.memories.clearSelection()
        view.inbox.clearSelection()
        self.select(None)
        self._adding = True
        view.set_editor_mode("memory")
        view.editor.setTitle("New memory")
        view.content.clear()
        view.content.setPlaceholderText("Type what ARIA should remember, then Add memory.")
        view.save_button.setText("Add memory")
        view.choose_kind("fact")
        view.subject.setText("user")
        view.importance.setValue(0.5)
        view.provenance.setText("added by you")
        view.open_conversation_button.setEnabled(False)
        view.forget_button.setVisible(False)
        view.content.setFocus()

    def _save_new(self) -> None:
        view = self._ensure_view()
        content = view.content.toPlainText().strip()
        if not content:
            view.status.setText("Type the memory first.")
            return
        self._adding = False
        self.add(
            content,
            view.chosen_kind() or "fact",
            view.subject.text().strip() or "user",
            view.importance.value(),
        )

    def add(self, content: str, kind: str, subject: str, importance: float) -> None:
        """Add a memory by hand."""
        self._spawn(self._add_memory(content, kind, subject, importance), "aria-gui-memory-add")

    async def _add_memory(self, content: str, kind: str, subject: str, importance: float) -> None:
        added = await self._memory().add_memory(
            NewMemory(content=content, kind=kind, subject=subject, importance=importance)
        )
        await self._reload()
        self._reselect(added.id)
        self._ensure_view().status.setText("Added.")

    def _open_provenance(self) -> None:
        record = self.selected or self.selected_candidate
        if record is not None and record.conversation_id:
            self._spawn(self._open_conversation(record.conversation_id), "aria-gui-memory-source")

    async def _open_conversation(self, conversation_id: str) -> None:
        if await self._memory().get_conversation(conversation_id) is None:
            self._ensure_view().status.setText(
                "The conversation this came from has been deleted; the memory stays."
            )
            return
        self.open_conversation.emit(conversation_id)


def _empty_text(shown: int, filtered: bool, status: str) -> str:
    """What the memory list says when it is empty: why, and what to do ("" when not empty)."""
    if shown:
        return ""
    if filtered:
        return "No memory matches this search. Clear the search or the filters to see them all."
    if status != "active":
        return f"No {status} memories."
    return (
        "No memories yet. Click “Add memory…” to write one, or say “remember that …” in a "
        "chat. ARIA uses what it remembers to answer you better."
    )


def search_note(reason: str) -> str:
    """A search limit said in plain words, without settings keys (the detail is in ``aria doctor``).

    The memory and knowledge stores say "keyword search only: no embedder (memory.embedder =
    none): …"; a window says only what it means for the person.
    """
    if "keyword search only" in reason:
        return "keyword search only (finds the words you type, not their meaning)"
    return reason
