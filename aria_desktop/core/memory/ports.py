"""The long-term memory store's port."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from aria_desktop.domain.episodes import Episode, EpisodeDraft, EpisodeHit, MemorySource
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
from aria_desktop.domain.memory_reflection import TurnReflection
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

    async def record_reflection(self, turn: TurnReflection) -> None:
        """Keep how many memories a turn loaded and used, and how long loading took."""
        ...

    async def reflection_turns(self, conversations: int) -> list[TurnReflection]:
        """The reflections of the latest ``conversations`` conversations, oldest first."""
        ...


class EpisodeStore(Protocol):
    """Episodes and memory sources (``adapters/memory/episodes.py``)."""

    async def upsert(self, draft: EpisodeDraft) -> Episode:
        """Write (or rewrite) the episode of ``draft.conversation_id``."""
        ...

    async def get(self, episode_id: str) -> Episode | None: ...

    async def for_conversation(self, conversation_id: str) -> Episode | None: ...

    async def list_episodes(
        self, *, limit: int = 50, offset: int = 0, unsummarised: bool = False
    ) -> list[Episode]:
        """Episodes, the latest conversation first."""
        ...

    async def search(
        self, text: str, *, limit: int = 5, span: tuple[float, float] | None = None
    ) -> list[EpisodeHit]:
        """Episodes about ``text``, best first (``span``: only those overlapping it)."""
        ...

    async def sources(self, memory_id: str) -> list[MemorySource]:
        """The conversations that taught or confirmed a memory, oldest first."""
        ...

    async def remove_conversation(self, conversation_id: str) -> list[str]:
        """Drop a conversation's episode and sources; the memories left unsupported."""
        ...
