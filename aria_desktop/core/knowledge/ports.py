"""The knowledge base's port as the front-ends and tools see it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from aria_desktop.domain.knowledge import (
    Citation,
    IngestOutcome,
    IngestReport,
    KnowledgeFile,
    KnowledgeHit,
    KnowledgeQuery,
    KnowledgeSource,
    KnowledgeStatus,
)

__all__ = ["KnowledgeAccess"]


class KnowledgeAccess(Protocol):
    """The knowledge base as front-ends use it (``core.knowledge.KnowledgeService``)."""

    async def add_source(self, location: str, *, watch: bool = False) -> IngestOutcome:
        """Add and index a file, folder or URL (re-adding an unchanged one is a no-op)."""
        ...

    async def remove_source(self, source: str) -> KnowledgeSource:
        """Remove a source (by id or location) and what was indexed from it."""
        ...

    async def list_sources(self) -> list[KnowledgeSource]:
        """Every source with counts and its last problem."""
        ...

    async def list_files(self, source: str) -> list[KnowledgeFile]:
        """The files of one source with their problems."""
        ...

    async def search_knowledge(self, query: KnowledgeQuery) -> list[KnowledgeHit]:
        """The passages that best answer ``query``."""
        ...

    async def reindex_knowledge(self, *, force: bool = True) -> IngestReport:
        """Rescan every source (``force``: re-extract and re-embed everything)."""
        ...

    async def knowledge_status(self) -> KnowledgeStatus:
        """Counts, vector search, watched folders and the ingest in progress."""
        ...

    async def conversation_citations(self, conversation_id: str) -> dict[str, list[Citation]]:
        """The citations of a conversation's answers, by ``answer_key`` of each answer."""
        ...

    async def stale_citations(self, citations: Sequence[Citation]) -> list[int]:
        """The numbers of citations whose source changed (or left) since the answer."""
        ...
