"""Citations in the chat window: linked ``[n]``, a Sources line, and sources that changed.

The knowledge base sends a turn's references as one ``knowledge-cited`` event before the model
answers. When the reply is complete, its ``[n]`` become links and a "Sources" line lists what it
cited; a click opens the file (at the page for PDFs) or the URL with the desktop's default
application. When the knowledge base changes (``knowledge-changed``), the sources of the
answers shown are checked again and those whose file changed since are struck through.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, QUrl
from PySide6.QtGui import QDesktopServices

from aria_desktop.core.ports import Assistant, KnowledgeAccess
from aria_desktop.domain import memory_events
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.knowledge import Citation, answer_key
from aria_desktop.gui.citations import link_citations
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.views.transcript import TranscriptView

__all__ = ["CitationTracker", "knowledge_of"]

_CHANGED = "This source changed since the answer (or left the knowledge base)."
_LOGGER = logging.getLogger(__name__)


def knowledge_of(assistant: Assistant) -> KnowledgeAccess | None:
    """The knowledge base behind ``assistant`` (in-process, or the API client's), if any."""
    found: KnowledgeAccess | None = getattr(assistant, "knowledge", None)
    return found


@dataclass
class _Shown:
    """A source line in the transcript: the citation and where its label is."""

    citation: Citation
    span: tuple[int, int]
    generation: int
    changed: bool = False


class CitationTracker(QObject):
    """Keeps each turn's citations, links them into the finished reply, marks changed ones."""

    def __init__(self, transcript: TranscriptView, context: GuiContext) -> None:
        super().__init__(transcript)
        self._transcript = transcript
        self._context = context
        self._pending: dict[str, tuple[Citation, ...]] = {}
        self._shown: list[_Shown] = []
        self._targets: set[str] = set()
        context.bridge.event_received.connect(self._on_event)

    def _on_event(self, event: object) -> None:
        if isinstance(event, memory_events.KnowledgeCited):
            self._pending[event.conversation_id] = event.citations
        elif isinstance(event, memory_events.KnowledgeChanged) and self._shown:
            self._context.tasks.spawn(self._check_changed(), name="aria-gui-citations-changed")

    async def load(self, conversation_id: str) -> dict[str, list[Citation]]:
        """The stored citations of a conversation's answers (none without a knowledge base).

        Once the conversation is drawn, its sources are checked: a source that changed since
        an answer is marked at once.
        """
        knowledge = knowledge_of(self._context.assistant)
        if knowledge is None:
            return {}
        try:
            found = await knowledge.conversation_citations(conversation_id)
        except AriaError as exc:  # the conversation still shows, without links
            _LOGGER.warning("Citations of %s not loaded: %s", conversation_id, exc)
            return {}
        if found:
            self._context.tasks.spawn(self._check_changed(), name="aria-gui-citations-check")
        return found

    @staticmethod
    def stored_reply(markdown: str, cited: dict[str, list[Citation]]) -> tuple[str, list[Citation]]:
        """A stored answer with the citations it was given linked, and those it used."""
        citations = cited.get(answer_key(markdown))
        return link_citations(markdown, citations) if citations else (markdown, [])

    def link_reply(self, conversation_id: str, markdown: str) -> tuple[str, list[Citation]]:
        """The complete reply with its citations linked, and the citations it used."""
        citations = self._pending.pop(conversation_id, ())
        if not citations:
            return markdown, []
        return link_citations(markdown, citations)

    def show_sources(self, used: list[Citation]) -> None:
        """Add the Sources line under the reply just finished."""
        if not used:
            return
        spans = self._transcript.append_sources(
            [(f"[{c.number}] {c.label}", c.target) for c in used]
        )
        for citation, span in zip(used, spans, strict=True):
            self._shown.append(
                _Shown(citation=citation, span=span, generation=self._transcript.generation)
            )
            self._targets.add(citation.target)

    def handles(self, url: QUrl) -> bool:
        """Whether ``url`` is a citation ARIA made (opened without asking)."""
        return url.toString() in self._targets

    def open(self, url: QUrl) -> None:
        """Open a cited file or URL with the desktop's default application."""
        QDesktopServices.openUrl(url)

    async def _check_changed(self) -> None:
        knowledge = knowledge_of(self._context.assistant)
        generation = self._transcript.generation
        self._shown = [s for s in self._shown if s.generation == generation]  # others cleared
        open_ones = [s for s in self._shown if not s.changed]
        if knowledge is None or not open_ones:
            return
        # Numbers repeat across answers: ask with one number per shown source.
        batch = [replace(s.citation, number=i) for i, s in enumerate(open_ones, start=1)]
        stale = set(await knowledge.stale_citations(batch))
        for number, shown in enumerate(open_ones, start=1):
            if number in stale and shown.generation == self._transcript.generation:
                shown.changed = True
                self._transcript.mark_changed(shown.span, _CHANGED)
