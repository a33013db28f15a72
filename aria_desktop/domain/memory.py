"""Long-term memory value types (minimal: the GUI's memory browser types against these).

The memory capability owns this module; this version carries exactly the names and fields the
GUI uses so the browser type-checks before that capability lands. Times are UNIX seconds.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Memory:
    """One remembered fact, preference or event.

    Attributes:
        id: stable identifier.
        content: the memory in plain words.
        kind: fact, preference, event, ...
        subject: who or what it is about ("user" by default).
        importance: 0..1, how much it matters when recalling.
        confidence: 0..1, how sure extraction was.
        status: active, proposed (in the inbox), rejected, forgotten.
        provenance: where it came from (manual, extracted, ...).
        conversation_id: the conversation it was learnt in, if any.
        created_at, updated_at: UNIX seconds.
    """

    id: str
    content: str
    kind: str = "fact"
    subject: str = "user"
    importance: float = 0.5
    confidence: float = 1.0
    status: str = "active"
    provenance: str = "manual"
    conversation_id: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0


@dataclass(frozen=True, kw_only=True)
class MemoryHit:
    """A memory found by a search, with its fused relevance ``score`` (higher is better)."""

    memory: Memory
    score: float = 0.0


@dataclass(frozen=True, kw_only=True)
class MemoryQuery:
    """A memory search: free ``text``, at most ``limit`` hits, optional filters."""

    text: str
    limit: int = 20
    kinds: tuple[str, ...] = ()
    subject: str | None = None
    statuses: tuple[str, ...] = ("active",)
