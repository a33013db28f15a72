"""The knowledge base's ports: the store the service runs on, and the access front-ends use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from aria_desktop.domain import knowledge as kb
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

__all__ = ["KnowledgeAccess", "KnowledgeStore"]


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


class KnowledgeStore(Protocol):
    """What the knowledge service needs from its store (``adapters/knowledge/store.py``)."""

    vector_status: str
    pending_vectors: int
    outdated_extraction: bool
    current: str
    progress: tuple[int, int]

    async def add(
        self, location: str, *, watch: bool = False
    ) -> tuple[kb.KnowledgeSource, kb.IngestReport]: ...

    async def remove(self, source: str) -> kb.KnowledgeSource: ...

    async def sources(self) -> list[kb.KnowledgeSource]: ...

    async def files(self, source: str) -> list[kb.KnowledgeFile]: ...

    async def rescan(
        self, source: str | None = None, *, force: bool = False
    ) -> kb.IngestReport: ...

    async def search(self, query: kb.KnowledgeQuery) -> list[kb.KnowledgeHit]: ...

    async def has_chunks(self) -> bool: ...

    async def file_hashes(self, paths: Sequence[str]) -> dict[str, str]: ...

    async def counts(self) -> tuple[int, int, int, int]: ...

    async def save_citations(
        self, conversation_id: str, key: str, citations: Sequence[kb.Citation]
    ) -> None: ...

    async def citations_for(self, conversation_id: str) -> dict[str, list[kb.Citation]]: ...

    async def watched_folders(self) -> list[str]: ...
