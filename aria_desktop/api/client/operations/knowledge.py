"""Operations of the knowledge base: sources, files, search, reindex, status, stale citations."""

from __future__ import annotations

from dataclasses import asdict

import httpx

from aria_desktop.api.client.operations.base import Operation, at, many, member, one
from aria_desktop.api.client.wire import list_from_json
from aria_desktop.domain import knowledge as kb

__all__ = [
    "ADD_SOURCE",
    "CONVERSATION_CITATIONS",
    "KNOWLEDGE_STATUS",
    "LIST_FILES",
    "LIST_SOURCES",
    "REINDEX",
    "REMOVE_SOURCE",
    "SEARCH_KNOWLEDGE",
    "STALE_CITATIONS",
]

LIST_SOURCES = Operation[None, list[kb.KnowledgeSource]](
    method="GET", path=at("/knowledge/sources"), decode=many(kb.KnowledgeSource)
)
ADD_SOURCE = Operation[tuple[str, bool], kb.IngestOutcome](
    method="POST",
    path=at("/knowledge/sources"),
    decode=one(kb.IngestOutcome),
    encode=lambda arg: {"json": {"location": arg[0], "watch": arg[1]}, "timeout": None},
)
REMOVE_SOURCE = Operation[int, kb.KnowledgeSource](
    method="DELETE",
    path=lambda source_id: f"/knowledge/sources/{source_id}",
    decode=one(kb.KnowledgeSource),
)
LIST_FILES = Operation[int, list[kb.KnowledgeFile]](
    method="GET",
    path=lambda source_id: f"/knowledge/sources/{source_id}/files",
    decode=many(kb.KnowledgeFile),
)
SEARCH_KNOWLEDGE = Operation[kb.KnowledgeQuery, list[kb.KnowledgeHit]](
    method="POST",
    path=at("/knowledge/search"),
    decode=many(kb.KnowledgeHit),
    encode=lambda q: {
        "json": {"query": q.text, "limit": q.limit, "min_similarity": q.min_similarity}
    },
)
REINDEX = Operation[bool, kb.IngestReport](
    method="POST",
    path=at("/knowledge/reindex"),
    decode=one(kb.IngestReport),
    encode=lambda force: {"json": {"force": force}, "timeout": None},
)
KNOWLEDGE_STATUS = Operation[None, kb.KnowledgeStatus](
    method="GET", path=at("/knowledge/status"), decode=one(kb.KnowledgeStatus)
)


def _citations_by_answer(response: httpx.Response, _arg: object) -> dict[str, list[kb.Citation]]:
    return {key: list_from_json(kb.Citation, items) for key, items in response.json().items()}


CONVERSATION_CITATIONS = Operation[str, dict[str, list[kb.Citation]]](
    method="GET",
    path=at("/knowledge/citations"),
    decode=_citations_by_answer,
    encode=lambda conversation_id: {"params": {"conversation_id": conversation_id}},
)
STALE_CITATIONS = Operation[tuple[kb.Citation, ...], list[int]](
    method="POST",
    path=at("/knowledge/citations/stale"),
    decode=member("stale", lambda value: [int(n) for n in value]),
    encode=lambda citations: {"json": {"citations": [asdict(c) for c in citations]}},
)
