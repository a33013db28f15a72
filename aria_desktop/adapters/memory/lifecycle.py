"""The memory lifecycle in SQL: a new memory is added, reinforces its duplicate, or supersedes.

One call of :func:`write_memory` is the statements of one memory's write, run inside the
store's transaction: the row (its keyword entry follows by trigger), its vector, and the link
to the memory it replaces, so a crash leaves the memory fully present or absent.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from aria_desktop.adapters.memory import rows
from aria_desktop.adapters.memory.indexes import MemoryIndexes
from aria_desktop.adapters.memory.tiers import apply_tier_rules, inherit_tier
from aria_desktop.adapters.storage.connection import Connection, placeholders
from aria_desktop.adapters.storage.text import content_hash
from aria_desktop.adapters.storage.vectors import VectorIndex, cosine_from_l2
from aria_desktop.domain import memory as mem

__all__ = [
    "DUPLICATE_COSINE",
    "any_active",
    "memory_at",
    "record_source",
    "touch",
    "write_memory",
]

_LOGGER = logging.getLogger(__name__)

DUPLICATE_COSINE = 0.9
"""A new memory this similar (cosine) to an active one reinforces it instead."""


def write_memory(
    conn: Connection,
    item: rows.PendingRow,
    now: float,
    *,
    indexes: MemoryIndexes,
    dedupe: bool,
) -> tuple[mem.Memory, mem.MemoryAction]:
    """Write ``item`` by the lifecycle rules (``SQLiteMemoryStore.add`` tells them).

    Args:
        conn: the open write transaction.
        item: the checked memory, with its vector when it has one.
        now: the time written as created/updated, UNIX seconds.
        indexes: the store's derived indexes (the vector index, the embedding model).
        dedupe: reinforce a duplicate instead of adding (off for imports, which check ids).
    """
    if dedupe:
        existing = _find_duplicate(conn, item, indexes.vectors)
        if existing is not None:
            return _reinforce(conn, existing, item, now), "reinforced"
    old = _find_superseded(conn, item) if dedupe or item.supersedes else None
    memory_id = item.id or rows.new_id("mem")
    cursor = conn.execute(
        "INSERT INTO memories (id, content, content_hash, kind, subject, topic, importance, "
        "confidence, status, provenance, conversation_id, message_ids, created_at, "
        "updated_at, last_accessed_at, access_count, embedding_model, embedding, "
        "supersedes, superseded_by, tier, tier_pinned, reinforced_count) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            memory_id,
            item.content,
            content_hash(item.content),
            item.kind,
            item.subject,
            item.topic,
            item.importance,
            item.confidence,
            item.status,
            item.provenance,
            item.conversation_id,
            json.dumps(list(item.message_ids)),
            item.created_at if item.created_at is not None else now,
            item.updated_at if item.updated_at is not None else now,
            item.last_accessed_at,
            item.access_count,
            indexes.model_id if item.vector is not None else "",
            item.vector,
            old[1] if old is not None else item.supersedes,
            item.superseded_by,
            item.tier,
            int(item.tier_pinned),
            item.reinforced_count,
        ),
    )
    seq = int(cursor.lastrowid or 0)
    record_source(conn, memory_id, item.conversation_id, "extracted", now)
    index = indexes.vectors
    if item.vector is not None and index is not None:
        index.insert(conn, seq, item.status, item.vector)
    action: mem.MemoryAction = "added"
    if old is not None:
        conn.execute(
            "UPDATE memories SET status = 'superseded', superseded_by = ?, updated_at = ? "
            "WHERE seq = ?",
            (memory_id, now, old[0]),
        )
        if index is not None:
            index.set_status(conn, old[0], "superseded")
        inherit_tier(conn, memory_id, old[1], now)
        action = "superseded"
    return memory_at(conn, seq), action


def _find_duplicate(
    conn: Connection, item: rows.PendingRow, index: VectorIndex | None
) -> tuple[Any, ...] | None:
    row = conn.execute(
        f"SELECT {rows.MEMORY_COLUMNS} FROM memories "
        "WHERE content_hash = ? AND status = 'active' LIMIT 1",
        (content_hash(item.content),),
    ).fetchone()
    if row is not None:
        return tuple(row)
    if item.vector is None or index is None:
        return None
    near = index.nearest(conn, item.vector, 1, status="active")
    if near and cosine_from_l2(near[0][1]) >= DUPLICATE_COSINE:
        found = conn.execute(
            f"SELECT {rows.MEMORY_COLUMNS} FROM memories WHERE seq = ? AND status = 'active'",
            (near[0][0],),
        ).fetchone()
        return tuple(found) if found is not None else None
    return None


def _find_superseded(conn: Connection, item: rows.PendingRow) -> tuple[int, str] | None:
    row = None
    if item.supersedes:
        row = conn.execute(
            "SELECT seq, id FROM memories WHERE id = ? AND status = 'active' "
            "AND subject = ? COLLATE NOCASE",
            (item.supersedes, item.subject),
        ).fetchone()
    if row is None and item.topic:
        row = conn.execute(
            "SELECT seq, id FROM memories WHERE subject = ? COLLATE NOCASE AND topic = ? "
            "AND status = 'active' ORDER BY created_at DESC LIMIT 1",
            (item.subject, item.topic),
        ).fetchone()
    return (int(row[0]), str(row[1])) if row is not None else None


def _reinforce(
    conn: Connection, row: Sequence[Any], item: rows.PendingRow, now: float
) -> mem.Memory:
    conn.execute(
        "UPDATE memories SET confidence = min(1.0, max(confidence, ?) + 0.1), "
        "importance = max(importance, ?), updated_at = ?, decayed_at = NULL, "
        "reinforced_count = reinforced_count + 1, "
        "topic = CASE WHEN topic = '' THEN ? ELSE topic END WHERE seq = ?",
        (item.confidence, item.importance, now, item.topic, row[0]),
    )
    _LOGGER.debug("Memory %s reinforced", row[1])
    record_source(conn, str(row[1]), item.conversation_id, "reinforced", now)
    apply_tier_rules(conn, now, [str(row[1])])
    return memory_at(conn, int(row[0]))


def record_source(
    conn: Connection, memory_id: str, conversation_id: str | None, relation: str, now: float
) -> None:
    """Keep that ``conversation_id`` taught (``extracted``) or confirmed a memory (none: no-op).

    A conversation that taught a memory does not also count as confirming it.
    """
    if not conversation_id:
        return
    if (
        relation == "reinforced"
        and conn.execute(
            "SELECT 1 FROM memory_sources WHERE memory_id = ? AND conversation_id = ? "
            "AND relation = 'extracted'",
            (memory_id, conversation_id),
        ).fetchone()
    ):
        return
    conn.execute(
        "INSERT OR IGNORE INTO memory_sources (memory_id, conversation_id, relation, at) "
        "VALUES (?, ?, ?, ?)",
        (memory_id, conversation_id, relation, now),
    )


def memory_at(conn: Connection, seq: int) -> mem.Memory:
    """The memory in row ``seq`` (which exists: the caller just wrote it)."""
    return rows.row_to_memory(
        conn.execute(f"SELECT {rows.MEMORY_COLUMNS} FROM memories WHERE seq = ?", (seq,)).fetchone()
    )


def touch(conn: Connection, ids: Sequence[str], now: float) -> None:
    """Record that the memories ``ids`` were used at ``now``; promote those their use proves.

    Use is the access count and the last access; promotion follows ``domain/memory_tiers.py``.
    """
    conn.execute(
        "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? "
        f"WHERE id IN ({placeholders(len(ids))})",
        (now, *ids),
    )
    apply_tier_rules(conn, now, ids)


def any_active(conn: Connection) -> bool:
    """Whether any memory is active (the store keeps the answer until its next write)."""
    return (
        conn.execute("SELECT 1 FROM memories WHERE status = 'active' LIMIT 1").fetchone()
        is not None
    )
