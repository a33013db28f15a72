"""Long-term memory value types: what ARIA remembers about the user, and how it is searched.

A :class:`Memory` is one durable statement ("My wife's name is Dana"). Memories are never
silently rewritten: a correction supersedes the old memory (which stays, marked
``superseded`` and linked), and forgetting marks it ``forgotten`` so search no longer finds it.
Memory text is untrusted data — it came from a user, a model or the screen — and is always
fenced when put into a prompt.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, fields
from typing import Any, Final, Literal, Self, get_args

__all__ = [
    "ACTIVE_MEMORIES",
    "ASSOCIATION_MIN_COUNT",
    "MAX_ASSOCIATION_CONVERSATIONS",
    "MEMORY_KINDS",
    "MEMORY_STATUSES",
    "MEMORY_TIERS",
    "Memory",
    "MemoryAction",
    "MemoryAssociation",
    "MemoryCandidate",
    "MemoryDraft",
    "MemoryEdit",
    "MemoryFilter",
    "MemoryHit",
    "MemoryKind",
    "MemoryQuery",
    "MemoryStatus",
    "MemoryTier",
    "NewMemory",
    "association_strength",
    "unstorable_character",
]

MemoryKind = Literal["fact", "preference", "event", "skill", "document"]
MemoryStatus = Literal["active", "superseded", "forgotten"]
MemoryTier = Literal["active", "thread", "stable"]
"""How settled a memory is (``domain/memory_tiers.py`` has the rules): new and unproven
(``active``), in use across turns and conversations (``thread``), a durable part of what ARIA
knows (``stable``, loaded at the start of every conversation first)."""
MemoryAction = Literal["added", "reinforced", "superseded"]
"""What storing a memory did: added it, reinforced a near-duplicate, or replaced an old one."""

MEMORY_KINDS: tuple[str, ...] = get_args(MemoryKind)
"""Every memory kind, in display order."""
MEMORY_STATUSES: tuple[str, ...] = get_args(MemoryStatus)
"""Every memory status."""
MEMORY_TIERS: tuple[str, ...] = get_args(MemoryTier)
"""Every memory tier, least settled first."""

_UNSTORABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_UNSTORABLE_ONE_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def unstorable_character(text: str, *, one_line: bool = False) -> str | None:
    """Where ``text`` holds a character memory refuses, e.g. ``U+001F at position 5``; None.

    Memory text is stored exactly as acknowledged, never silently altered, so what cannot be
    kept faithfully is refused instead: control characters (tab, newline and carriage return
    are text, unless ``one_line``) and unpaired surrogates (not encodable as UTF-8).
    """
    found = (_UNSTORABLE_ONE_LINE if one_line else _UNSTORABLE).search(text)
    if found is None:
        return None
    return f"U+{ord(found.group()):04X} at position {found.start()}"


# --- the requests of the memory operations ---------------------------------------------------
#
# The front-end operations (``core.ports.Assistant``: add, list, search, edit; the memory
# service; the API routes and client; the CLI and GUI) take these values instead of repeating
# the same keyword lists, so a new field is declared here once (``aria_desktop/ARCHITECTURE.md``,
# "One fact, decided once"). Search takes :class:`MemoryQuery`; show, forget, approve and reject
# take an id; the inbox takes nothing. The memory store (``core.ports.MemoryStore``) takes
# :class:`MemoryDraft` (a :class:`NewMemory` plus what only the core states), :class:`MemoryEdit`
# and :class:`MemoryFilter`, so the port, the SQLite adapter and the fake repeat no field list.


@dataclass(frozen=True, kw_only=True)
class NewMemory:
    """Something to remember (``add_memory``).

    Attributes:
        content: the statement, in plain words.
        kind: fact, preference, event, skill or document.
        subject: who or what it is about.
        importance: how much it matters, 0-1.
        provenance: where it came from (``manual``, ``api``, ``import``, ``tool``...); the
            HTTP API records ``api`` whatever a client sends.
    """

    content: str
    kind: str = "fact"
    subject: str = "user"
    importance: float = 0.5
    provenance: str = "manual"


@dataclass(frozen=True, kw_only=True)
class MemoryEdit:
    """A correction of a memory in place (``update_memory``); None leaves a field as it is.

    Attributes:
        content, kind, subject, importance: the new values, as in :class:`NewMemory`.
        tier: pin the memory in this tier (the use rules no longer move it).
        tier_pinned: False releases a pinned tier to the rules again (True with no ``tier``
            pins the current one).
    """

    content: str | None = None
    kind: str | None = None
    subject: str | None = None
    importance: float | None = None
    tier: str | None = None
    tier_pinned: bool | None = None

    def changes(self) -> dict[str, Any]:
        """Only the fields that change, by name."""
        return {name: value for name, value in asdict(self).items() if value is not None}


@dataclass(frozen=True, kw_only=True)
class MemoryFilter:
    """Which memories to list, newest first (``list_memories``).

    Attributes:
        kinds: only these kinds (empty: all).
        subject: only memories about this subject (None: any).
        statuses: only these statuses.
        tiers: only these tiers (empty: all).
        limit: how many at most.
        offset: how many of the newest to skip (paging).
    """

    kinds: tuple[str, ...] = ()
    subject: str | None = None
    statuses: tuple[str, ...] = ("active",)
    tiers: tuple[str, ...] = ()
    limit: int = 100
    offset: int = 0


ACTIVE_MEMORIES: Final = MemoryFilter()
"""The default listing: the newest 100 active memories of any kind and subject."""


@dataclass(frozen=True, kw_only=True)
class MemoryDraft(NewMemory):
    """A memory to store, as the memory store takes it (``add``, ``add_candidate``).

    It is a :class:`NewMemory` plus what only the core states: a front-end asks for the
    fields of :class:`NewMemory`; extraction and the tools also say what attribute the
    memory states, how sure they are, where it was learned and what it replaces.

    Attributes:
        topic: the attribute of the subject it states (see :class:`Memory`); a new memory
            with the same subject and topic supersedes the old one.
        confidence: how sure the writer is, 0-1.
        conversation_id: the conversation it was learned in (None: not from one).
        message_ids: stored message ids it was extracted from.
        supersedes: id of the memory it corrects (None: it replaces nothing named).
    """

    topic: str = ""
    confidence: float = 1.0
    conversation_id: str | None = None
    message_ids: tuple[int, ...] = ()
    supersedes: str | None = None

    @classmethod
    def of(cls, new: NewMemory) -> Self:
        """The draft a front-end's request stands for: its fields, the rest at defaults.

        Only :class:`NewMemory`'s fields are taken, also from a draft passed as a request, so
        an in-process front-end cannot state more than one over HTTP.
        """
        return cls(**{field.name: getattr(new, field.name) for field in fields(NewMemory)})


@dataclass(frozen=True, kw_only=True)
class Memory:
    """One remembered statement.

    Attributes:
        id: stable public id (``mem_`` + hex), used by the CLI, API and tools.
        content: the statement, in plain words.
        kind: fact, preference, event, skill or document.
        subject: who or what it is about ("user", "Dana", "project q3").
        importance: how much it matters, 0-1 (weights search slightly).
        confidence: how sure ARIA is it is still true, 0-1 (decays slowly when never used).
        status: active, superseded (a newer memory replaced it) or forgotten.
        provenance: where it came from: ``conversation``, ``manual``, ``api``, ``import``,
            ``tool`` or ``inbox``.
        conversation_id: the conversation it was learned in (None when not from one).
        message_ids: stored message ids it was extracted from.
        topic: what attribute of the subject it states ("wife's name", "theme"); a new memory
            with the same subject and topic but different content supersedes the old one.
        created_at, updated_at: UNIX seconds.
        last_accessed_at: UNIX seconds of the last search that returned it (None: never).
        access_count: how many searches returned it.
        embedding_model: model that produced its vector ("" when it has none).
        supersedes: id of the memory this one replaced (None if it replaced nothing).
        superseded_by: id of the memory that replaced this one (None while current).
        tier: active, thread or stable (:data:`MemoryTier`).
        tier_pinned: the user fixed the tier; the use rules leave it alone.
        reinforced_count: how many times it was learned again (a near-duplicate written).
    """

    id: str
    content: str
    kind: MemoryKind = "fact"
    subject: str = "user"
    importance: float = 0.5
    confidence: float = 1.0
    status: MemoryStatus = "active"
    provenance: str = "manual"
    conversation_id: str | None = None
    message_ids: tuple[int, ...] = ()
    topic: str = ""
    created_at: float = 0.0
    updated_at: float = 0.0
    last_accessed_at: float | None = None
    access_count: int = 0
    embedding_model: str = ""
    supersedes: str | None = None
    superseded_by: str | None = None
    tier: MemoryTier = "active"
    tier_pinned: bool = False
    reinforced_count: int = 0


@dataclass(frozen=True, kw_only=True)
class MemoryHit:
    """A search result.

    Attributes:
        memory: the memory found.
        score: fused score (reciprocal rank fusion, lightly weighted by importance and
            recency); higher is better, comparable only within one search.
        lexical_rank: 1-based rank in the keyword (BM25) leg, None when it did not match.
        vector_rank: 1-based rank in the vector (KNN) leg, None when not among its results.
    """

    memory: Memory
    score: float
    lexical_rank: int | None = None
    vector_rank: int | None = None
    associated_with: str | None = None
    """Set on a hit brought in by association: the id of the direct hit it is linked to
    (``MemoryQuery.associates``); such hits rank below every direct hit."""


@dataclass(frozen=True, kw_only=True)
class MemoryQuery:
    """What to search for.

    Attributes:
        text: the query in plain words (never FTS syntax: it is escaped).
        limit: how many hits at most.
        kinds: only these kinds (empty: all).
        subject: only memories about this subject (case-insensitive; None: any).
        statuses: only these statuses (default: active only).
        since, until: only memories created in this range, UNIX seconds (None: open).
        mode: ``hybrid`` (both legs fused), ``lexical`` or ``vector`` (one leg only; used by
            the quality benchmark and for diagnosis).
        touch: update the hits' access statistics (searches by the user and the model do).
        min_similarity: vector-leg results below this cosine similarity are dropped (keyword
            matches are kept); 0 keeps every nearest neighbour.
        associates: after the hits, at most this many memories strongly associated with the
            best ones (``MemoryHit.associated_with``), ranked below them; 0: none.
    """

    text: str
    limit: int = 10
    kinds: tuple[str, ...] = ()
    subject: str | None = None
    statuses: tuple[str, ...] = ("active",)
    since: float | None = None
    until: float | None = None
    mode: Literal["hybrid", "lexical", "vector"] = "hybrid"
    touch: bool = True
    min_similarity: float = 0.0
    associates: int = 0


@dataclass(frozen=True, kw_only=True)
class MemoryCandidate:
    """A memory proposed by extraction, waiting in the inbox for the user ("ask me first").

    Attributes:
        id: stable id (``cand_`` + hex) for approve / reject.
        content, kind, subject, topic, importance, confidence: as in :class:`Memory`.
        conversation_id: the conversation it was extracted from.
        message_ids: the message ids it was extracted from.
        created_at: UNIX seconds.
    """

    id: str
    content: str
    kind: MemoryKind = "fact"
    subject: str = "user"
    topic: str = ""
    importance: float = 0.5
    confidence: float = 0.8
    conversation_id: str | None = None
    message_ids: tuple[int, ...] = ()
    created_at: float = 0.0


ASSOCIATION_MIN_COUNT = 2
"""Two memories used together this often are associated strongly enough to bring each other
into a recall (strength log(3) / 10 = 0.11); once may be chance."""


def association_strength(count: int) -> float:
    """How strongly two memories are linked after ``count`` co-uses: log(1 + count) / 10."""
    return math.log1p(max(count, 0)) / 10


@dataclass(frozen=True, kw_only=True)
class MemoryAssociation:
    """Two memories used together, seen from one of them.

    Used together: recalled for a turn whose reply used both, or learned in the same
    conversation.

    Attributes:
        memory: the other memory of the pair (seen from the one asked about).
        count: how many times they were used together.
        first_seen, last_seen: UNIX seconds of the first and the last co-use.
        conversations: the conversations that saw them together, oldest first (at most
            ``MAX_ASSOCIATION_CONVERSATIONS``).
    """

    memory: Memory
    count: int
    first_seen: float
    last_seen: float
    conversations: tuple[str, ...] = ()

    @property
    def strength(self) -> float:
        """``association_strength(count)``."""
        return association_strength(self.count)


MAX_ASSOCIATION_CONVERSATIONS = 20
"""Conversations kept per association (the most recent ones)."""
