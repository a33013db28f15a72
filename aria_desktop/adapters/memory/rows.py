"""Rows of the memory tables: column lists, row -> domain value mapping, and validation.

The ``memories`` and ``memory_candidates`` columns carry the names of the domain fields they
hold, so one name-based mapping (with a converter per column that needs one) builds both
:class:`Memory` and :class:`MemoryCandidate`. Everything a store writes is first checked here
(:func:`check_draft`, :func:`check_fields`, :func:`clamp01`) into a :class:`PendingRow`: the
domain's :class:`MemoryDraft` plus what only a row has.
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aria_desktop.domain.errors import MemoryInvalidError, NotFoundError
from aria_desktop.domain.memory import (
    MEMORY_KINDS,
    Memory,
    MemoryCandidate,
    MemoryDraft,
    unstorable_character,
)

__all__ = [
    "CANDIDATE_COLUMNS",
    "CANDIDATE_FIELDS",
    "MAX_CONTENT_CHARS",
    "MEMORY_COLUMNS",
    "PendingRow",
    "candidate_not_found",
    "check_draft",
    "check_fields",
    "clamp01",
    "decode_ids",
    "memory_not_found",
    "new_id",
    "row_to_candidate",
    "row_to_memory",
    "row_values",
]

MAX_CONTENT_CHARS = 2000
MAX_SUBJECT_CHARS = 200
"""Longest memory text accepted, in characters (the gist, not a document)."""

MEMORY_FIELDS = (
    "id",
    "content",
    "kind",
    "subject",
    "topic",
    "importance",
    "confidence",
    "status",
    "provenance",
    "conversation_id",
    "message_ids",
    "created_at",
    "updated_at",
    "last_accessed_at",
    "access_count",
    "embedding_model",
    "supersedes",
    "superseded_by",
    "tier",
    "tier_pinned",
    "reinforced_count",
)
"""The ``memories`` columns that are :class:`Memory` fields, in select order."""
MEMORY_COLUMNS = ", ".join(("seq", *MEMORY_FIELDS))
"""Select list of a memory row: its ``seq`` (shared with the indexes), then the fields."""
CANDIDATE_FIELDS = (*MEMORY_FIELDS[:7], "conversation_id", "message_ids", "created_at")
"""The ``memory_candidates`` columns that are :class:`MemoryCandidate` fields: what a
memory says (its first seven fields, ``id`` to ``confidence``), then where it came from."""
CANDIDATE_COLUMNS = ", ".join(CANDIDATE_FIELDS)


def decode_ids(raw: str | None) -> tuple[int, ...]:
    """Message ids from their JSON column; unreadable JSON means none (never fails a read)."""
    try:
        values = json.loads(raw or "[]")
    except ValueError:
        return ()
    return tuple(int(v) for v in values if isinstance(v, int))


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _text_or_empty(value: Any) -> str:
    return str(value or "")


_CONVERTERS: Mapping[str, Callable[[Any], Any]] = {
    "importance": float,
    "confidence": float,
    "created_at": float,
    "updated_at": float,
    "last_accessed_at": _optional_float,
    "access_count": int,
    "tier_pinned": bool,
    "reinforced_count": int,
    "message_ids": decode_ids,
    "embedding_model": _text_or_empty,
}
"""Columns whose stored form differs from the field's type (others are taken as they are)."""


def row_values(names: Sequence[str], row: Sequence[Any]) -> dict[str, Any]:
    """``row`` as field name -> value, converted where the column needs it."""
    return {
        name: _CONVERTERS[name](value) if name in _CONVERTERS else value
        for name, value in zip(names, row, strict=True)
    }


def row_to_memory(row: Sequence[Any]) -> Memory:
    """A :class:`Memory` from a row selected with :data:`MEMORY_COLUMNS`."""
    return Memory(**row_values(MEMORY_FIELDS, row[1:]))


def row_to_candidate(row: Sequence[Any]) -> MemoryCandidate:
    """A :class:`MemoryCandidate` from a row selected with :data:`CANDIDATE_COLUMNS`."""
    return MemoryCandidate(**row_values(CANDIDATE_FIELDS, row))


@dataclass(frozen=True, kw_only=True)
class PendingRow(MemoryDraft):
    """A checked draft about to be written as a row (the vector computed, if any).

    The draft's fields as :func:`check_draft` left them, plus what only a row has:
    ``vector`` is the unit float32 embedding (None: keyword search only for now); an import
    also carries the exported ``id``, status, times and statistics, where None means "new
    id" / "now" at write time.
    """

    vector: bytes | None = None
    id: str | None = None
    status: str = "active"
    created_at: float | None = None
    updated_at: float | None = None
    last_accessed_at: float | None = None
    access_count: int = 0
    superseded_by: str | None = None
    tier: str = "active"
    tier_pinned: bool = False
    reinforced_count: int = 0


def new_id(prefix: str) -> str:
    """A fresh public id: ``prefix`` + 12 hex digits (``mem_...``, ``cand_...``)."""
    return f"{prefix}_{secrets.token_hex(6)}"


def clamp01(value: float, what: str) -> float:
    """``value`` as a float when it is a finite number in 0-1.

    Raises:
        MemoryInvalidError: it is not (named ``what`` in the message).
    """
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise MemoryInvalidError(
            f"{what} must be between 0 and 1, got {value!r}.", hint=f"Give {what} as 0-1."
        )
    return float(value)


def check_fields(content: str, kind: str, subject: str) -> tuple[str, str, str]:
    """A memory's text, kind and subject, checked: they are stored exactly as given.

    Nothing is trimmed or collapsed (what an API client was told it stored is what it reads
    back); a blank subject means ``user``.

    Raises:
        MemoryInvalidError: blank or too long text, control characters, an unknown kind, a
            subject that is too long or not one line.
    """
    if not content.strip():
        raise MemoryInvalidError("A memory cannot be empty.", hint="Say what to remember.")
    if len(content) > MAX_CONTENT_CHARS:
        raise MemoryInvalidError(
            f"A memory is limited to {MAX_CONTENT_CHARS} characters (got {len(content)}).",
            hint="Store the gist, or split it into several memories.",
        )
    _refuse_unstorable(content, "memory text", one_line=False)
    if kind not in MEMORY_KINDS:
        raise MemoryInvalidError(
            f"Unknown memory kind {kind!r}.", hint=f"Use one of: {', '.join(MEMORY_KINDS)}."
        )
    who = subject if subject.strip() else "user"
    if len(who) > MAX_SUBJECT_CHARS:
        raise MemoryInvalidError(
            f"A memory's subject is limited to {MAX_SUBJECT_CHARS} characters.",
            hint="Name who or what it is about in a few words.",
        )
    _refuse_unstorable(who, "subject", one_line=True)
    return content, kind, who


def _refuse_unstorable(text: str, what: str, *, one_line: bool) -> None:
    where = unstorable_character(text, one_line=one_line)
    if where is not None:
        raise MemoryInvalidError(
            f"The {what} holds a control character ({where}); it was not stored.",
            hint="Remove control characters"
            + (" and line breaks" if one_line else "")
            + "; the text is kept exactly as sent, so nothing is dropped silently.",
        )


def check_draft(draft: MemoryDraft, *, provenance: str | None = None) -> PendingRow:
    """``draft`` in its stored form, ready to write (no vector yet).

    Text, kind and subject as :func:`check_fields` leaves them; the topic with its spaces
    collapsed, case-folded and cut at 200 characters (so "Theme" and "theme " are one topic
    when deciding what supersedes what); ``provenance`` replaces the draft's when given
    (an inbox entry is always from a conversation), an empty one becomes ``manual``.

    Raises:
        MemoryInvalidError: empty or too long text, an unknown kind, bad 0-1 values.
    """
    text, kind, subject = check_fields(draft.content, draft.kind, draft.subject)
    return PendingRow(
        content=text,
        kind=kind,
        subject=subject,
        topic=" ".join(draft.topic.split()).casefold()[:200],
        importance=clamp01(draft.importance, "importance"),
        confidence=clamp01(draft.confidence, "confidence"),
        provenance=provenance or draft.provenance or "manual",
        conversation_id=draft.conversation_id,
        message_ids=tuple(draft.message_ids),
        supersedes=draft.supersedes,
    )


def memory_not_found(memory_id: str) -> NotFoundError:
    """The error for an id no memory has."""
    return NotFoundError(
        f"There is no memory {memory_id!r}.", hint="List them with `aria memory list`."
    )


def candidate_not_found(candidate_id: str) -> NotFoundError:
    """The error for an id no inbox entry has."""
    return NotFoundError(
        f"There is no inbox entry {candidate_id!r}.", hint="See them with `aria memory inbox`."
    )
