"""Operations of long-term memory: search, list, read, add, correct, forget, and the inbox."""

from __future__ import annotations

from dataclasses import asdict

from aria_desktop.api.client.operations.base import (
    HttpArgs,
    Operation,
    at,
    many,
    nothing,
    one,
    only_set,
)
from aria_desktop.domain import memory as mem
from aria_desktop.domain.episodes import Episode, MemorySource
from aria_desktop.domain.memory_reflection import MemoryStats
from aria_desktop.domain.memory_tiers import MemoryTierChange

__all__ = [
    "ADD_MEMORY",
    "APPROVE_MEMORY",
    "EPISODES",
    "FORGET_MEMORY",
    "GET_EPISODE",
    "GET_MEMORY",
    "LIST_MEMORIES",
    "MEMORY_ASSOCIATIONS",
    "MEMORY_INBOX",
    "MEMORY_SOURCES",
    "MEMORY_STATS",
    "MEMORY_TIER_CHANGES",
    "REJECT_MEMORY",
    "SEARCH_MEMORIES",
    "UPDATE_MEMORY",
]


def _search_body(query: mem.MemoryQuery) -> HttpArgs:
    # mode and touch are the owner's own choice: a search over the API is a user's search.
    body = only_set(subject=query.subject, since=query.since, until=query.until)
    return {
        "json": {
            "query": query.text,
            "limit": query.limit,
            "kinds": list(query.kinds),
            "statuses": list(query.statuses),
            "min_similarity": query.min_similarity,
            "associates": query.associates,
            **body,
        }
    }


def _filter_params(which: mem.MemoryFilter) -> HttpArgs:
    params = {
        "kind": list(which.kinds),
        "status": list(which.statuses),
        "tier": list(which.tiers),
        "limit": which.limit,
        "offset": which.offset,
    }
    return {"params": {**params, **only_set(subject=which.subject)}}


SEARCH_MEMORIES = Operation[mem.MemoryQuery, list[mem.MemoryHit]](
    method="POST", path=at("/memories/search"), decode=many(mem.MemoryHit), encode=_search_body
)
LIST_MEMORIES = Operation[mem.MemoryFilter, list[mem.Memory]](
    method="GET", path=at("/memories"), decode=many(mem.Memory), encode=_filter_params
)
GET_MEMORY = Operation[str, mem.Memory](
    method="GET", path=lambda memory_id: f"/memories/{memory_id}", decode=one(mem.Memory)
)
MEMORY_ASSOCIATIONS = Operation[str, list[mem.MemoryAssociation]](
    method="GET",
    path=lambda memory_id: f"/memories/{memory_id}/associations",
    decode=many(mem.MemoryAssociation),
)
MEMORY_TIER_CHANGES = Operation[str, list[MemoryTierChange]](
    method="GET",
    path=lambda memory_id: f"/memories/{memory_id}/tier-changes",
    decode=many(MemoryTierChange),
)
MEMORY_STATS = Operation[int, MemoryStats](
    method="GET",
    path=at("/memory-stats"),
    decode=one(MemoryStats),
    encode=lambda last: {"params": {"last": last}},
)
MEMORY_SOURCES = Operation[str, list[MemorySource]](
    method="GET",
    path=lambda memory_id: f"/memories/{memory_id}/sources",
    decode=many(MemorySource),
)
EPISODES = Operation[tuple[str, int], list[Episode]](
    method="GET",
    path=at("/episodes"),
    decode=many(Episode),
    encode=lambda args: {"params": {"q": args[0], "limit": args[1]}},
)
GET_EPISODE = Operation[str, Episode](
    method="GET", path=lambda episode_id: f"/episodes/{episode_id}", decode=one(Episode)
)
ADD_MEMORY = Operation[mem.NewMemory, mem.Memory](
    method="POST",
    path=at("/memories"),
    decode=one(mem.Memory),
    # The owner records provenance "api" for whatever comes over HTTP.
    encode=lambda new: {"json": {k: v for k, v in asdict(new).items() if k != "provenance"}},
)
UPDATE_MEMORY = Operation[tuple[str, mem.MemoryEdit], mem.Memory](
    method="PATCH",
    path=lambda edit: f"/memories/{edit[0]}",
    decode=one(mem.Memory),
    encode=lambda edit: {"json": edit[1].changes()},
)
FORGET_MEMORY = Operation[str, None](
    method="DELETE", path=lambda memory_id: f"/memories/{memory_id}", decode=nothing
)
MEMORY_INBOX = Operation[None, list[mem.MemoryCandidate]](
    method="GET", path=at("/memory-inbox"), decode=many(mem.MemoryCandidate)
)
APPROVE_MEMORY = Operation[str, mem.Memory](
    method="POST",
    path=lambda candidate: f"/memory-inbox/{candidate}/approve",
    decode=one(mem.Memory),
)
REJECT_MEMORY = Operation[str, None](
    method="POST", path=lambda candidate: f"/memory-inbox/{candidate}/reject", decode=nothing
)
