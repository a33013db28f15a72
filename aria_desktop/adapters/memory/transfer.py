"""Export and import of memories as JSON-ready dicts (one per JSON line in ``aria memory``).

An export holds every memory in every status, without vectors (they belong to a model and are
recomputed on import). An import is idempotent: a memory whose id, or whose content as an
active memory, is already present is skipped, so importing the same file twice adds nothing
the second time. A line that is not a valid memory is rejected on its own; the rest import.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from aria_desktop.adapters.memory.rows import (
    MEMORY_COLUMNS,
    MEMORY_FIELDS,
    PendingRow,
    check_fields,
    clamp01,
    row_to_memory,
)
from aria_desktop.adapters.memory.tiers import check_tier
from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.text import content_hash
from aria_desktop.domain.errors import MemoryInvalidError
from aria_desktop.domain.memory import MEMORY_STATUSES, Memory

__all__ = ["EXPORT_FIELDS", "ImportReport", "export_all", "import_missing", "parse_lines"]

_LOGGER = logging.getLogger(__name__)

EXPORT_FIELDS = tuple(name for name in MEMORY_FIELDS if name != "embedding_model")
"""What an exported memory holds: every field but the model of a vector it does not carry."""
_ID_RE = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


@dataclass(frozen=True, kw_only=True)
class ImportReport:
    """Outcome of an import: rows added, lines skipped (already present), lines rejected."""

    added: int
    skipped: int
    rejected: int


def export_dict(memory: Memory) -> dict[str, Any]:
    """One memory as a JSON-ready dict of :data:`EXPORT_FIELDS`."""
    data = {name: getattr(memory, name) for name in EXPORT_FIELDS}
    data["message_ids"] = list(memory.message_ids)
    return data


def export_all(conn: Connection) -> list[dict[str, Any]]:
    """Every memory (all statuses) as JSON-ready dicts, oldest first."""
    rows = conn.execute(f"SELECT {MEMORY_COLUMNS} FROM memories ORDER BY seq").fetchall()
    return [export_dict(row_to_memory(row)) for row in rows]


def parse_lines(lines: Iterable[Mapping[str, Any]]) -> tuple[list[PendingRow], int]:
    """The valid memories among exported lines, and how many lines were rejected (logged)."""
    items: list[PendingRow] = []
    rejected = 0
    for number, raw in enumerate(lines, start=1):
        try:
            items.append(import_item(raw))
        except (MemoryInvalidError, ValueError, TypeError, KeyError) as exc:
            rejected += 1
            _LOGGER.warning("Import: line %d rejected: %s", number, exc)
    return items, rejected


def import_missing(
    conn: Connection, items: Iterable[PendingRow], write: Callable[[Connection, PendingRow], object]
) -> tuple[int, int]:
    """Write, with ``write``, each item not already present; return (added, skipped).

    An item is present when its id exists, or when it is active and an active memory has the
    same content.
    """
    added = skipped = 0
    for item in items:
        exists = conn.execute(
            "SELECT 1 FROM memories WHERE id = ? OR (content_hash = ? AND status = ?)",
            (item.id, content_hash(item.content), "active"),
        ).fetchone()
        if exists is not None and (
            item.status == "active"
            or conn.execute("SELECT 1 FROM memories WHERE id = ?", (item.id,)).fetchone()
        ):
            skipped += 1
            continue
        write(conn, item)
        added += 1
    return added, skipped


def import_item(raw: Mapping[str, Any]) -> PendingRow:
    """One exported line as a memory to write (no vector yet).

    Raises:
        MemoryInvalidError: not an object, or a bad id, text, kind, status or number.
        ValueError, TypeError: a value of the wrong type.
    """
    if not isinstance(raw, Mapping):
        raise MemoryInvalidError("not a JSON object")
    memory_id = raw.get("id")
    if not isinstance(memory_id, str) or not _ID_RE.fullmatch(memory_id):
        raise MemoryInvalidError(f"bad or missing id {memory_id!r}")
    text, kind, subject = check_fields(
        str(raw.get("content", "")), str(raw.get("kind", "fact")), str(raw.get("subject", ""))
    )
    status = str(raw.get("status", "active"))
    if status not in MEMORY_STATUSES:
        raise MemoryInvalidError(f"unknown status {status!r}")
    now = time.time()

    def number(name: str, default: float) -> float:
        value = raw.get(name, default)
        if value is None or isinstance(value, bool) or not isinstance(value, int | float):
            raise MemoryInvalidError(f"{name} must be a number")
        return float(value)

    return PendingRow(
        id=memory_id,
        content=text,
        kind=kind,
        subject=subject,
        topic=str(raw.get("topic", "") or ""),
        importance=clamp01(number("importance", 0.5), "importance"),
        confidence=clamp01(number("confidence", 1.0), "confidence"),
        provenance="import",
        conversation_id=raw.get("conversation_id") if raw.get("conversation_id") else None,
        message_ids=tuple(int(v) for v in raw.get("message_ids") or () if isinstance(v, int)),
        supersedes=raw.get("supersedes") or None,
        superseded_by=raw.get("superseded_by") or None,
        status=status,
        created_at=number("created_at", now),
        updated_at=number("updated_at", now),
        last_accessed_at=(
            None if raw.get("last_accessed_at") is None else number("last_accessed_at", now)
        ),
        access_count=int(number("access_count", 0)),
        tier=check_tier(str(raw.get("tier") or "active")),
        tier_pinned=raw.get("tier_pinned") is True,
        reinforced_count=int(number("reinforced_count", 0)),
    )
