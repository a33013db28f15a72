"""The knowledge base: sources (files, folders, URLs), search, reindex, status, citations.

Routes drive the owner's ``KnowledgeAccess`` (``core.ports``), reached as the assistant's
``knowledge`` attribute; an owner without a knowledge base answers 503.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from aria_desktop.api.routes._router import capability_router
from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import AssistantDep
from aria_desktop.core.ports import KnowledgeAccess
from aria_desktop.domain import knowledge as kb
from aria_desktop.domain.errors import KnowledgeUnavailableError

_KNOWLEDGE: docs.Responses = {
    503: docs.error("The knowledge base is not set up, or storage is unavailable")
}
router = capability_router("knowledge", _KNOWLEDGE)
"""Every knowledge route can answer the common errors, and 503 when the base is not set up."""

_CHANGE = docs.responses(docs.BODY, docs.INVALID)
"""What a route that changes the knowledge base can answer besides those."""


async def _knowledge(assistant: AssistantDep) -> KnowledgeAccess:
    knowledge: KnowledgeAccess | None = getattr(assistant, "knowledge", None)
    if knowledge is None:
        raise KnowledgeUnavailableError(
            "The knowledge base is not set up in this ARIA.",
            hint="Set knowledge.enabled = true and restart ARIA.",
        )
    return knowledge


KnowledgeDep = Annotated[KnowledgeAccess, Depends(_knowledge)]
SourceId = Annotated[str, Path(min_length=1, max_length=20, pattern=r"^\d+$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SourceIn(_Strict):
    """A file or folder path on the owner's machine, or an http(s) URL."""

    location: str = Field(min_length=1, max_length=4096, pattern=r"\S")
    watch: bool = False


class KnowledgeSearchIn(_Strict):
    """Search the documents by meaning and keywords (plain words, never query syntax)."""

    query: str = Field(min_length=1, max_length=2000, pattern=r"\S")
    limit: int = Field(default=8, ge=1, le=100)
    min_similarity: float = Field(default=0.25, ge=0.0, le=1.0)


class ReindexIn(_Strict):
    """``force``: re-read, re-extract and re-embed everything (else only what changed)."""

    force: bool = True


class CitationIn(_Strict):
    """A citation as the ``knowledge-cited`` event gave it."""

    number: int = Field(ge=1, le=1000)
    path: str = Field(min_length=1, max_length=4096)
    page: int | None = None
    heading: str = ""
    label: str = ""
    target: str = ""
    content_hash: str = Field(default="", max_length=128)


class StaleIn(_Strict):
    """The citations of one answer."""

    citations: list[CitationIn] = Field(max_length=100)


@router.get(
    "/knowledge/sources",
    summary="Sources with their files, chunks and last problem",
)
async def list_sources(knowledge: KnowledgeDep) -> list[kb.KnowledgeSource]:
    return await knowledge.list_sources()


@router.post(
    "/knowledge/sources",
    status_code=201,
    summary="Add and index a file, folder (optionally watched) or URL; unchanged: no-op",
    responses=_CHANGE,
)
async def add_source(body: SourceIn, knowledge: KnowledgeDep) -> kb.IngestOutcome:
    return await knowledge.add_source(body.location, watch=body.watch)


@router.delete(
    "/knowledge/sources/{source_id}",
    summary="Remove a source and everything indexed from it",
    responses=docs.responses(_CHANGE, docs.NOT_FOUND),
)
async def remove_source(source_id: SourceId, knowledge: KnowledgeDep) -> kb.KnowledgeSource:
    return await knowledge.remove_source(source_id)


@router.get(
    "/knowledge/sources/{source_id}/files",
    summary="The files of one source, with per-file problems",
    responses=docs.INVALID,
)
async def list_files(source_id: SourceId, knowledge: KnowledgeDep) -> list[kb.KnowledgeFile]:
    return await knowledge.list_files(source_id)


@router.post(
    "/knowledge/search",
    summary="The passages that best answer a question, with file, page and heading",
    responses=_CHANGE,
)
async def search(body: KnowledgeSearchIn, knowledge: KnowledgeDep) -> list[kb.KnowledgeHit]:
    query = kb.KnowledgeQuery(text=body.query, limit=body.limit, min_similarity=body.min_similarity)
    return await knowledge.search_knowledge(query)


@router.post(
    "/knowledge/reindex",
    summary="Rescan every source (force: re-extract and re-embed everything)",
    responses=_CHANGE,
)
async def reindex(body: ReindexIn, knowledge: KnowledgeDep) -> kb.IngestReport:
    return await knowledge.reindex_knowledge(force=body.force)


@router.get(
    "/knowledge/status",
    summary="Counts, vector search, watched folders and the ingest in progress",
)
async def status(knowledge: KnowledgeDep) -> kb.KnowledgeStatus:
    return await knowledge.knowledge_status()


@router.get(
    "/knowledge/citations",
    summary="The citations of a conversation's answers, by the answer's text hash",
    responses=docs.INVALID,
)
async def citations(
    conversation_id: Annotated[str, Query(min_length=1, max_length=128)],
    knowledge: KnowledgeDep,
) -> dict[str, list[kb.Citation]]:
    return await knowledge.conversation_citations(conversation_id)


@router.post(
    "/knowledge/citations/stale",
    summary="Which citations point at sources that changed since the answer",
    responses=_CHANGE,
)
async def stale(body: StaleIn, knowledge: KnowledgeDep) -> dict[str, Any]:
    citations = [kb.Citation(**c.model_dump()) for c in body.citations]
    return {"stale": await knowledge.stale_citations(citations)}
