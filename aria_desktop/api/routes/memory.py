"""Long-term memory: list, remember, search, read, correct, forget, and the inbox."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query, Response

from aria_desktop.api.routes._router import capability_router
from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import AssistantDep, PathId
from aria_desktop.api.server.schemas.memory import (
    EpisodeOut,
    MemoryAssociationOut,
    MemoryCandidateOut,
    MemoryCreate,
    MemoryHitOut,
    MemoryOut,
    MemorySearchIn,
    MemorySourceOut,
    MemoryStatsOut,
    MemoryTierChangeOut,
    MemoryUpdate,
)
from aria_desktop.domain.commands import ForgetMemory
from aria_desktop.domain.errors import NotFoundError
from aria_desktop.domain.memory import (
    MemoryEdit,
    MemoryFilter,
    MemoryKind,
    MemoryStatus,
    MemoryTier,
    NewMemory,
)

router = capability_router("memories", docs.MEMORY)
"""Every memory route can answer the common errors, and 503 when memory is not set up."""

_CHANGE = docs.responses(docs.BODY, docs.NOT_FOUND, docs.INVALID)
"""What a route that changes one memory or inbox entry can answer besides those."""


@router.get(
    "/memories",
    summary="Memories, newest first (active only unless status says otherwise)",
    responses=docs.INVALID,
)
async def list_memories(
    assistant: AssistantDep,
    kind: Annotated[
        list[MemoryKind] | None,
        Query(max_length=5, description="Only these kinds (repeat the parameter)"),
    ] = None,
    subject: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
    status: Annotated[
        list[MemoryStatus] | None,
        Query(max_length=3, description="Only these statuses (default: active)"),
    ] = None,
    tier: Annotated[
        list[MemoryTier] | None,
        Query(max_length=3, description="Only these tiers (repeat the parameter; default: all)"),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> list[MemoryOut]:
    which = MemoryFilter(
        kinds=tuple(kind or ()),
        subject=subject,
        statuses=tuple(status or ("active",)),
        tiers=tuple(tier or ()),
        limit=limit,
        offset=offset,
    )
    return [MemoryOut.of(m) for m in await assistant.list_memories(which)]


@router.post(
    "/memories",
    status_code=201,
    summary="Remember something (a near-duplicate reinforces the existing memory)",
    responses=docs.responses(docs.BODY, docs.INVALID),
)
async def create_memory(body: MemoryCreate, assistant: AssistantDep) -> MemoryOut:
    return MemoryOut.of(
        await assistant.add_memory(NewMemory(**body.model_dump(), provenance="api"))
    )


@router.post(
    "/memories/search",
    summary="Search memories by meaning and keywords, best first",
    responses=docs.responses(docs.BODY, docs.INVALID),
)
async def search_memories(body: MemorySearchIn, assistant: AssistantDep) -> list[MemoryHitOut]:
    return [MemoryHitOut.of(h) for h in await assistant.search_memories(body.to_query())]


@router.get(
    "/memories/{memory_id}",
    summary="One memory (any status)",
    responses=docs.responses(docs.NOT_FOUND, docs.INVALID),
)
async def get_memory(memory_id: PathId, assistant: AssistantDep) -> MemoryOut:
    memory = await assistant.get_memory(memory_id)
    if memory is None:
        raise NotFoundError(f"There is no memory {memory_id!r}.")
    return MemoryOut.of(memory)


@router.get(
    "/memories/{memory_id}/associations",
    summary="The memories used together with this one, strongest first",
    responses=docs.responses(docs.NOT_FOUND, docs.INVALID),
)
async def memory_associations(
    memory_id: PathId, assistant: AssistantDep
) -> list[MemoryAssociationOut]:
    return [MemoryAssociationOut.of(a) for a in await assistant.memory_associations(memory_id)]


@router.get(
    "/memories/{memory_id}/tier-changes",
    summary="How this memory moved between tiers and why, oldest first",
    responses=docs.responses(docs.NOT_FOUND, docs.INVALID),
)
async def memory_tier_changes(
    memory_id: PathId, assistant: AssistantDep
) -> list[MemoryTierChangeOut]:
    return [MemoryTierChangeOut.of(c) for c in await assistant.memory_tier_changes(memory_id)]


@router.get(
    "/memory-stats",
    summary="How well memory served the latest conversations: loaded, used, waste, trend",
    responses=docs.INVALID,
)
async def memory_stats(
    assistant: AssistantDep,
    last: Annotated[int, Query(ge=1, le=200, description="How many conversations")] = 10,
) -> MemoryStatsOut:
    return MemoryStatsOut.of(await assistant.memory_stats(last))


@router.get(
    "/memories/{memory_id}/sources",
    summary="The conversations that taught or confirmed this memory, with their episodes",
    responses=docs.responses(docs.NOT_FOUND, docs.INVALID),
)
async def memory_sources(memory_id: PathId, assistant: AssistantDep) -> list[MemorySourceOut]:
    return [MemorySourceOut.of(s) for s in await assistant.memory_sources(memory_id)]


@router.get(
    "/episodes",
    summary="Episodes: what happened in each conversation (q: about this, or a time it names)",
    responses=docs.INVALID,
)
async def list_episodes(
    assistant: AssistantDep,
    q: Annotated[str, Query(max_length=2000, description="Search text (empty: latest)")] = "",
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> list[EpisodeOut]:
    return [EpisodeOut.of(e) for e in await assistant.list_episodes(q, limit)]


@router.get(
    "/episodes/{episode_id}",
    summary="One episode, with the memories it taught or confirmed",
    responses=docs.responses(docs.NOT_FOUND, docs.INVALID),
)
async def get_episode(episode_id: PathId, assistant: AssistantDep) -> EpisodeOut:
    episode = await assistant.get_episode(episode_id)
    if episode is None:
        raise NotFoundError(
            f"There is no episode {episode_id!r}.", hint="List them with `aria memory episodes`."
        )
    return EpisodeOut.of(episode)


@router.patch(
    "/memories/{memory_id}",
    summary="Correct a memory in place (fields left out are kept)",
    responses=_CHANGE,
)
async def update_memory(
    memory_id: PathId, body: MemoryUpdate, assistant: AssistantDep
) -> MemoryOut:
    return MemoryOut.of(await assistant.update_memory(memory_id, MemoryEdit(**body.model_dump())))


@router.delete(
    "/memories/{memory_id}",
    status_code=204,
    response_class=Response,
    summary="Forget a memory (search no longer finds it)",
    responses=_CHANGE,
)
async def forget_memory(memory_id: PathId, assistant: AssistantDep) -> Response:
    await assistant.forget_memory(memory_id)
    return Response(status_code=204)


@router.post(
    "/memories/{memory_id}/forget-request",
    summary="Forget a memory once the user confirms it in ARIA (true: forgotten)",
    responses=_CHANGE,
)
async def request_forget(memory_id: PathId, assistant: AssistantDep) -> bool:
    forgotten = await assistant.execute(ForgetMemory(memory_id=memory_id))
    return bool(forgotten)


@router.get(
    "/memory-inbox",
    summary='Proposed memories waiting for approval ("ask me first" mode), oldest first',
)
async def list_memory_inbox(assistant: AssistantDep) -> list[MemoryCandidateOut]:
    return [MemoryCandidateOut.of(c) for c in await assistant.list_memory_inbox()]


@router.post(
    "/memory-inbox/{candidate_id}/approve",
    summary="Store a proposed memory",
    responses=_CHANGE,
)
async def approve_memory(candidate_id: PathId, assistant: AssistantDep) -> MemoryOut:
    return MemoryOut.of(await assistant.approve_memory(candidate_id))


@router.post(
    "/memory-inbox/{candidate_id}/reject",
    status_code=204,
    response_class=Response,
    summary="Drop a proposed memory",
    responses=_CHANGE,
)
async def reject_memory(candidate_id: PathId, assistant: AssistantDep) -> Response:
    await assistant.reject_memory(candidate_id)
    return Response(status_code=204)
