"""The knowledge base over HTTP: ``core.ports.KnowledgeAccess`` through the API's operations.

What ``aria knowledge`` and an attached desktop app use while another process owns the data
(``ApiClient.knowledge``); each method is one call into ``operations/knowledge.py``, carried
out by whatever ``Caller`` it is given.
"""

from __future__ import annotations

from collections.abc import Sequence

from aria_desktop.api.client.operations import knowledge as ops
from aria_desktop.api.client.operations.base import Caller
from aria_desktop.domain import knowledge as kb
from aria_desktop.domain.errors import KnowledgeError

__all__ = ["KnowledgeClient"]


class KnowledgeClient:
    """``KnowledgeAccess`` over the owner's API."""

    def __init__(self, client: Caller) -> None:
        """Carry every call out through ``client`` (an ``ApiClient`` or its transport)."""
        self._client = client

    async def _source_id(self, source: str) -> int:
        if source.isdigit():
            return int(source)
        for item in await self.list_sources():
            if source in (item.location, item.location.rstrip("/")):
                return item.id
        raise KnowledgeError(
            f"There is no knowledge source {source!r}.",
            hint="`aria knowledge list` shows the sources with their numbers.",
        )

    async def add_source(self, location: str, *, watch: bool = False) -> kb.IngestOutcome:
        """Add and index a source (the owner reads the path on its own machine)."""
        return await self._client.call(ops.ADD_SOURCE, (location, watch))

    async def remove_source(self, source: str) -> kb.KnowledgeSource:
        """Remove a source by id or location."""
        return await self._client.call(ops.REMOVE_SOURCE, await self._source_id(source))

    async def list_sources(self) -> list[kb.KnowledgeSource]:
        """Every source."""
        return await self._client.call(ops.LIST_SOURCES, None)

    async def list_files(self, source: str) -> list[kb.KnowledgeFile]:
        """One source's files."""
        return await self._client.call(ops.LIST_FILES, await self._source_id(source))

    async def search_knowledge(self, query: kb.KnowledgeQuery) -> list[kb.KnowledgeHit]:
        """Hybrid search."""
        return await self._client.call(ops.SEARCH_KNOWLEDGE, query)

    async def reindex_knowledge(self, *, force: bool = True) -> kb.IngestReport:
        """Rescan everything."""
        return await self._client.call(ops.REINDEX, force)

    async def knowledge_status(self) -> kb.KnowledgeStatus:
        """The base at a glance."""
        return await self._client.call(ops.KNOWLEDGE_STATUS, None)

    async def conversation_citations(self, conversation_id: str) -> dict[str, list[kb.Citation]]:
        """The citations of a conversation's answers, by ``answer_key``."""
        return await self._client.call(ops.CONVERSATION_CITATIONS, conversation_id)

    async def stale_citations(self, citations: Sequence[kb.Citation]) -> list[int]:
        """Numbers of citations whose source changed since the answer."""
        return await self._client.call(ops.STALE_CITATIONS, tuple(citations))
