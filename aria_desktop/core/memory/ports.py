"""The long-term memory store's port."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from aria_desktop.domain.memory import (
    ACTIVE_MEMORIES,
    Memory,
    MemoryAction,
    MemoryAssociation,
    MemoryCandidate,
    MemoryDraft,
    MemoryEdit,
    MemoryFilter,
    MemoryHit,
    MemoryQuery,
)
from aria_desktop.domain.memory_tiers import MemoryTierChange

__all__ = ["MemoryStore"]


class MemoryStore(Protocol):
    """Long-term memory persistence and hybrid search (``memory.store.SQLiteMemoryStore``).

    ``add`` applies the lifecycle rules (near-duplicates reinforce, same subject+topic or an
    explicit ``supersedes`` replaces); ``search`` updates access statistics when the query
    says ``touch``. Missing ids raise ``NotFoundError``; bad values ``MemoryInvalidError``.
    """

    @property
    def vector_search_available(self) -> bool: ...

    async def has_active(self) -> bool:
        """Whether any active memory exists."""
        ...

    async def touch(self, ids: Sequence[str]) -> None:
        """Record that these memories were used now (access statistics)."""
        ...

    @property
    def vector_status(self) -> str: ...

    async def add(self, draft: MemoryDraft) -> tuple[Memory, MemoryAction]: ...

    async def update(self, memory_id: str, edit: MemoryEdit) -> Memory: ...

    async def forget(self, memory_id: str) -> Memory: ...

    async def get(self, memory_id: str) -> Memory | None: ...

    async def list_memories(self, which: MemoryFilter = ACTIVE_MEMORIES) -> list[Memory]: ...

    async def search(self, query: MemoryQuery) -> list[MemoryHit]: ...

    async def decay(
        self, *, after_days: float, per_day: float, floor: float, now: float | None = None
    ) -> int: ...

    async def add_candidate(self, draft: MemoryDraft) -> MemoryCandidate | None:
        """Put ``draft`` in the inbox (its provenance is ``conversation`` whatever it says)."""
        ...

    async def list_candidates(self) -> list[MemoryCandidate]: ...

    async def approve_candidate(self, candidate_id: str) -> tuple[Memory, MemoryAction]: ...

    async def reject_candidate(self, candidate_id: str) -> None: ...

    async def associate(self, ids: Sequence[str], conversation_id: str | None = None) -> int:
        """Count one co-use of every pair of ``ids`` (``MemoryAssociation``)."""
        ...

    async def associate_in_conversation(self, ids: Sequence[str], conversation_id: str) -> int:
        """Pair new memories with each other and with the latest ones of the conversation."""
        ...

    async def associations(self, memory_id: str, limit: int = 10) -> list[MemoryAssociation]:
        """A memory's associations with active memories, strongest first."""
        ...

    async def tier_changes(self, memory_id: str) -> list[MemoryTierChange]:
        """A memory's tier history, oldest first."""
        ...

    async def bootstrap(self, budget_chars: int) -> list[Memory]:
        """What a conversation starts with: stable, then thread memories, within the budget."""
        ...
