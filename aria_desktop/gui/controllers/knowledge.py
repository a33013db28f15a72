"""Knowledge window behaviour: list sources, add (with progress), remove, reindex, search.

Goes through the knowledge base of the attached ARIA (in-process, or the owner's API), never
the database. While an ingest runs, the status is polled for the progress bar; the list
refreshes on ``knowledge-changed`` events (adds, removals, watched folders' changes).
"""

from __future__ import annotations

import html
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer, QUrl
from PySide6.QtGui import QDesktopServices, QIcon
from PySide6.QtWidgets import QFileDialog, QTableWidgetItem

from aria_desktop.core.ports import KnowledgeAccess
from aria_desktop.domain.errors import AriaError, KnowledgeUnavailableError
from aria_desktop.domain.knowledge import IngestReport, KnowledgeQuery, KnowledgeSource
from aria_desktop.domain.memory_events import KnowledgeChanged
from aria_desktop.domain.wording import counted
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.controllers.citations import knowledge_of
from aria_desktop.gui.controllers.memory import search_note
from aria_desktop.gui.controllers.window import WindowController
from aria_desktop.gui.views.knowledge import KnowledgeView

__all__ = ["KnowledgeController", "describe_added", "describe_report"]

_POLL_MS = 250


def describe_report(report: IngestReport) -> str:
    """One line about an ingest, problems named."""
    text = (
        f"{counted(report.files_indexed, 'file')} indexed, {report.files_unchanged} unchanged, "
        f"{report.files_removed} removed, {counted(report.chunks_embedded, 'passage')} embedded."
    )
    if report.problems:
        first = report.problems[0]
        more = f" (+{len(report.problems) - 1} more)" if len(report.problems) > 1 else ""
        text += f" Problem: {first.message}{more}"
    return text


def describe_added(added: Sequence[tuple[str, IngestReport]], failed: Sequence[str]) -> str:
    """The plain result of adding several dropped or browsed paths at once."""
    files = sum(report.files_indexed + report.files_unchanged for _, report in added)
    problems = sum(len(report.problems) for _, report in added)
    parts = []
    if len(added) == 1 and files == 1:
        parts.append(f"Added {added[0][0]}.")
    elif added:
        parts.append(f"Added {counted(len(added), 'item')} ({counted(files, 'file')}).")
    if problems:
        parts.append(f"{counted(problems, 'file')} could not be read.")
    if failed:
        parts.append(f"Not added: {'; '.join(failed)}")
    return " ".join(parts) or "Nothing was added."


class KnowledgeController(WindowController[KnowledgeView]):
    """Opens the Knowledge window and drives it through ``KnowledgeAccess``."""

    def __init__(self, context: GuiContext, icon: QIcon) -> None:
        super().__init__(icon)
        self.context = context
        self.sources: list[KnowledgeSource] = []
        self._poll = QTimer(self)
        self._poll.setInterval(_POLL_MS)
        self._poll.timeout.connect(self._poll_status)
        context.bridge.event_received.connect(self._on_event)

    def _knowledge(self) -> KnowledgeAccess:
        found = knowledge_of(self.context.assistant)
        if found is None:
            raise KnowledgeUnavailableError(
                "The knowledge base is not set up in this ARIA.",
                hint="Set knowledge.enabled = true and restart ARIA.",
            )
        return found

    def open(self) -> None:
        """Show the window and load the sources."""
        self._bring_up(self._ensure_view())
        self.reload()

    def _ensure_view(self) -> KnowledgeView:
        if self.view is None:
            view = KnowledgeView(self._icon)
            view.add_button.clicked.connect(self.add)
            view.location.returnPressed.connect(self.add)
            view.remove_button.clicked.connect(self.remove_selected)
            view.reindex_button.clicked.connect(self.reindex)
            view.browse_files_button.clicked.connect(self.browse_files)
            view.browse_folder_button.clicked.connect(self.browse_folder)
            view.paths_dropped.connect(self.add_paths)
            view.query.returnPressed.connect(self.search)
            view.results.anchorClicked.connect(QDesktopServices.openUrl)
            self.view = view
        return self.view

    def _on_event(self, event: object) -> None:
        if isinstance(event, KnowledgeChanged) and self.view is not None and self.view.isVisible():
            self.reload()

    def _spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> None:
        self.context.tasks.spawn(coro, name=name, on_error=self._show_error)

    def _show_error(self, message: str, hint: str) -> None:
        """A failed action is said in the window's status line (with what to do)."""
        self._ensure_view().report.setText(f"{message} {hint}".strip())

    # --- actions ------------------------------------------------------------------------------

    def reload(self) -> None:
        """Reload the source list and the status line."""
        self._spawn(self._reload(), "aria-gui-knowledge-reload")

    async def _reload(self) -> None:
        knowledge = self._knowledge()
        self.sources = await knowledge.list_sources()
        status = await knowledge.knowledge_status()
        view = self._ensure_view()
        view.empty.setVisible(not self.sources)
        view.sources.setVisible(bool(self.sources))
        view.sources.setRowCount(len(self.sources))
        for row, source in enumerate(self.sources):
            cells = (
                source.location,
                source.kind,
                "yes" if source.watch else "",
                str(source.files),
                str(source.chunks),
                str(source.problems),
                source.state,
                source.last_error,
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                view.sources.setItem(row, column, item)
        if not self._poll.isActive():
            view.status.setText(
                f"{counted(status.files, 'file')}, {counted(status.chunks, 'passage')}"
                f" · {search_note(status.vector_status)}"
                + (
                    f" · watching {counted(len(status.watching), 'folder')}"
                    if status.watching
                    else ""
                )
                + (f" ({len(status.missing)} missing)" if status.missing else "")
            )

    def add(self) -> None:
        """Add the typed file, folder or URL."""
        view = self._ensure_view()
        if location := view.location.text().strip():
            ingest = self._run_ingest(location, view.watch.isChecked())
            self._spawn(ingest, "aria-gui-knowledge-add")
        else:
            view.report.setText("Type a file, a folder or an address first.")

    def browse_files(self) -> None:
        """Pick files to add in the desktop's file dialog."""
        paths, _ = QFileDialog.getOpenFileNames(self._ensure_view(), "Add files to ARIA")
        self.add_paths(paths)

    def browse_folder(self) -> None:
        """Pick a folder to add (watched when the box is ticked)."""
        folder = QFileDialog.getExistingDirectory(self._ensure_view(), "Add a folder to ARIA")
        self.add_paths([folder] if folder else [])

    def add_paths(self, paths: list[str]) -> None:
        """Add browsed or dropped files and folders, one after another, then say how it went."""
        if paths:
            watch = self._ensure_view().watch.isChecked()
            chosen = [(path, watch and Path(path).is_dir()) for path in paths]
            self._spawn(self._add_paths(chosen), "aria-gui-knowledge-add-paths")

    async def _add_paths(self, paths: list[tuple[str, bool]]) -> None:
        view = self._ensure_view()
        knowledge = self._knowledge()
        added: list[tuple[str, IngestReport]] = []
        failed: list[str] = []
        view.add_button.setEnabled(False)
        view.progress.setRange(0, len(paths))
        view.progress.setVisible(len(paths) > 1)
        self._poll.start()
        try:
            for done, (path, watch) in enumerate(paths):
                name = Path(path).name or path
                view.progress.setValue(done)
                view.report.setText(f"Adding {name} ({done + 1} of {len(paths)})…")
                try:
                    added.append((name, (await knowledge.add_source(path, watch=watch)).report))
                except AriaError as exc:
                    failed.append(f"{name}: {exc.message}")
        finally:
            self._poll.stop()
            view.progress.setVisible(False)
            view.add_button.setEnabled(True)
        view.report.setText(describe_added(added, failed))
        await self._reload()

    async def _run_ingest(self, location: str | None, watch: bool) -> None:
        view = self._ensure_view()
        view.add_button.setEnabled(False)
        view.reindex_button.setEnabled(False)
        view.report.setText(f"Indexing {location or 'every source'}…")
        self._poll.start()
        try:
            knowledge = self._knowledge()
            if location is None:
                report = await knowledge.reindex_knowledge(force=True)
            else:
                report = (await knowledge.add_source(location, watch=watch)).report
                view.location.clear()
        finally:
            self._poll.stop()
            view.progress.setVisible(False)
            view.add_button.setEnabled(True)
            view.reindex_button.setEnabled(True)
        view.report.setText(describe_report(report))
        await self._reload()

    def _poll_status(self) -> None:
        self._spawn(self._show_progress(), "aria-gui-knowledge-progress")

    async def _show_progress(self) -> None:
        status = await self._knowledge().knowledge_status()
        view = self._ensure_view()
        if status.indexing and status.progress_total:
            view.progress.setVisible(True)
            view.progress.setRange(0, status.progress_total)
            view.progress.setValue(status.progress_done)
            view.status.setText(f"Indexing {status.indexing}")

    def remove_selected(self) -> None:
        """Remove the selected source."""
        view = self._ensure_view()
        row = view.sources.currentRow()
        if not 0 <= row < len(self.sources):
            view.report.setText("Select a source first.")
            return
        self._spawn(self._remove(self.sources[row]), "aria-gui-knowledge-remove")

    async def _remove(self, source: KnowledgeSource) -> None:
        removed = await self._knowledge().remove_source(str(source.id))
        await self._reload()
        self._ensure_view().report.setText(f"Removed {removed.location}.")

    def reindex(self) -> None:
        """Re-read and re-embed every source."""
        self._spawn(self._run_ingest(None, False), "aria-gui-knowledge-reindex")

    def search(self) -> None:
        """Search the documents for the typed question."""
        text = self._ensure_view().query.text().strip()
        if text:
            self._spawn(self._search(text), "aria-gui-knowledge-search")

    async def _search(self, text: str) -> None:
        hits = await self._knowledge().search_knowledge(KnowledgeQuery(text=text, limit=8))
        parts = [
            f'<p><a href="{html.escape(QUrl(h.target).toString())}">[{n}] '
            f"{html.escape(h.label)}</a><br>{html.escape(' '.join(h.text.split())[:400])}</p>"
            for n, h in enumerate(hits, start=1)
        ]
        self._ensure_view().results.setHtml("".join(parts) or "<p>Nothing found.</p>")
