"""Bodies of long-term memory: memories, search, hits and inbox candidates."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from aria_desktop.api.server.schemas.common import FromDomain, StrictTypes
from aria_desktop.domain.memory import MemoryKind, MemoryQuery, MemoryStatus, MemoryTier

__all__ = [
    "EpisodeOut",
    "MemoryCandidateOut",
    "MemoryCreate",
    "MemoryHitOut",
    "MemoryOut",
    "MemorySearchIn",
    "MemorySourceOut",
    "MemoryStatsOut",
    "MemoryTierChangeOut",
    "MemoryUpdate",
]


class MemoryOut(FromDomain):
    """One remembered statement (see ``domain.memory.Memory``; times are UNIX seconds)."""

    id: str
    content: str
    kind: str
    subject: str
    importance: float
    confidence: float
    status: str
    provenance: str
    conversation_id: str | None = None
    message_ids: list[int] = Field(default_factory=list)
    topic: str = ""
    created_at: float
    updated_at: float
    last_accessed_at: float | None = None
    access_count: int = 0
    embedding_model: str = ""
    supersedes: str | None = None
    superseded_by: str | None = None
    tier: MemoryTier = Field(
        default="active",
        description="How settled it is: active (new), thread (in use), stable (loaded at the "
        "start of every conversation).",
    )
    tier_pinned: bool = Field(default=False, description="The user fixed the tier.")
    reinforced_count: int = Field(default=0, description="How often it was learned again.")


class MemoryTierChangeOut(FromDomain):
    """One move of a memory between tiers, with the reason (times are UNIX seconds)."""

    memory_id: str
    from_tier: str | None = None
    to_tier: str
    reason: str
    at: float


class EpisodeOut(FromDomain):
    """What happened in one conversation (times are UNIX seconds).

    ``summarised`` is false while the summary is still the conversation's title and first
    lines (no model has summarised it yet); ``memory_ids`` are the memories it taught or
    confirmed.
    """

    id: str
    conversation_id: str
    title: str
    summary: str
    started_at: float
    ended_at: float
    turns: int
    summarised: bool
    memory_ids: list[str] = Field(default_factory=list)
    created_at: float
    updated_at: float


class MemorySourceOut(FromDomain):
    """A conversation that taught (``extracted``) or confirmed (``reinforced``) a memory."""

    conversation_id: str
    relation: Literal["extracted", "reinforced"]
    at: float
    episode_id: str | None = None


class MemoryCreate(StrictTypes):
    """Remember something (a near-duplicate reinforces the memory already there)."""

    content: str = Field(min_length=1, max_length=2000, pattern=r"\S")
    kind: MemoryKind = "fact"
    subject: str = Field(default="user", min_length=1, max_length=200, pattern=r"\S")
    importance: float = Field(default=0.5, ge=0.0, le=1.0)


class MemoryUpdate(StrictTypes):
    """Correct a memory in place; fields left out stay as they are."""

    content: str | None = Field(default=None, min_length=1, max_length=2000, pattern=r"\S")
    kind: MemoryKind | None = None
    subject: str | None = Field(default=None, min_length=1, max_length=200, pattern=r"\S")
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    tier: MemoryTier | None = Field(
        default=None, description="Pin the memory in this tier (the use rules leave it there)."
    )
    tier_pinned: bool | None = Field(
        default=None, description="false releases a pinned tier to the use rules again."
    )


def _active_only() -> list[MemoryStatus]:
    return ["active"]


class MemorySearchIn(StrictTypes):
    """Search memories by meaning and keywords (plain words, never query syntax)."""

    query: str = Field(min_length=1, max_length=2000, pattern=r"\S")
    limit: int = Field(default=10, ge=1, le=100)
    kinds: list[MemoryKind] = Field(default_factory=list, max_length=5)
    subject: str | None = Field(default=None, min_length=1, max_length=200, pattern=r"\S")
    statuses: list[MemoryStatus] = Field(default_factory=_active_only, max_length=3)
    since: float | None = Field(default=None, ge=0.0, le=1e11)
    until: float | None = Field(default=None, ge=0.0, le=1e11)
    min_similarity: float = Field(default=0.2, ge=0.0, le=1.0)
    associates: int = Field(
        default=0,
        ge=0,
        le=10,
        description="After the hits, at most this many memories strongly associated with the "
        "best ones (each says which hit it is associated with).",
    )

    def to_query(self) -> MemoryQuery:
        """The domain query (an empty status list means active only)."""
        return MemoryQuery(
            text=self.query,
            limit=self.limit,
            kinds=tuple(self.kinds),
            subject=self.subject,
            statuses=tuple(self.statuses) or ("active",),
            since=self.since,
            until=self.until,
            min_similarity=self.min_similarity,
            associates=self.associates,
        )


class MemoryHitOut(FromDomain):
    """A search result: higher ``score`` is better (comparable within one search only)."""

    memory: MemoryOut
    score: float
    lexical_rank: int | None = None
    vector_rank: int | None = None
    associated_with: str | None = Field(
        default=None,
        description="Set on a memory brought in by association: the id of the hit it is "
        "associated with (it ranks below every direct hit).",
    )


class MemoryAssociationOut(FromDomain):
    """Another memory used together with this one; ``strength`` is log(1 + count) / 10.

    Used together: recalled for a reply that used both, or learned in the same conversation.
    """

    memory: MemoryOut
    count: int
    strength: float
    first_seen: float
    last_seen: float
    conversations: list[str] = Field(default_factory=list)


class ConversationReflectionOut(FromDomain):
    """How memory served one conversation: memories loaded into its prompts, used by replies."""

    conversation_id: str
    turns: int
    loaded: int
    used: int
    waste_ratio: float = Field(description="Share of loaded memories no reply used, 0-1.")
    load_ms_median: float = Field(description="Median time recall took per turn, ms.")
    first_at: float
    last_at: float


class MemoryStatsOut(FromDomain):
    """The latest conversations' use of memory, newest first, and how the waste moves."""

    conversations: list[ConversationReflectionOut]
    waste_ratio: float
    earlier_waste_ratio: float | None = Field(
        default=None, description="The same over as many conversations before (null: none)."
    )
    trend: Literal["better", "worse", "steady", "new"]


class MemoryCandidateOut(FromDomain):
    """A proposed memory waiting in the inbox for approval."""

    id: str
    content: str
    kind: str
    subject: str
    topic: str = ""
    importance: float
    confidence: float
    conversation_id: str | None = None
    message_ids: list[int] = Field(default_factory=list)
    created_at: float
