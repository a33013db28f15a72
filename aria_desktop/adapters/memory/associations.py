"""The ``memory_associations`` rows: memories used together, counted per unordered pair.

A pair is stored once with ``a < b`` (public ids), so "A with B" and "B with A" are one row;
each co-use adds one to its count, moves ``last_seen`` and adds the conversation to its list
(the most recent ``MAX_ASSOCIATION_CONVERSATIONS``). Reading the associations of a memory or
of several hits is one indexed query per side of the pair. Forgetting a memory keeps its rows
(a forgotten memory is never brought in: only active ones are), so an undone forget keeps its
links.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from aria_desktop.adapters.memory import rows
from aria_desktop.adapters.storage.connection import Connection, placeholders
from aria_desktop.domain import memory as mem

__all__ = [
    "EXPORT_KEY",
    "AssociationRow",
    "all_pairs",
    "associated_hits",
    "associations_of",
    "export_lines",
    "import_lines",
    "pairs_with",
    "read_for",
    "record",
    "split_export",
]

AssociationRow = tuple[str, str, int, float, float, tuple[str, ...]]
"""(memory id asked about, the other memory's id, count, first seen, last seen, conversations)."""

Pair = tuple[str, str]

_MAX_IDS = 32
"""At most this many memories are paired in one co-use (496 pairs)."""


def all_pairs(ids: Iterable[str]) -> list[Pair]:
    """Every unordered pair of ``ids`` (each once, ``a < b``)."""
    return list(itertools.combinations(sorted(set(ids))[:_MAX_IDS], 2))


def pairs_with(new: Iterable[str], earlier: Iterable[str]) -> list[Pair]:
    """The pairs among ``new`` and those of each new id with each ``earlier`` one."""
    fresh = sorted(set(new))[:_MAX_IDS]
    old = [i for i in dict.fromkeys(earlier) if i not in fresh][:_MAX_IDS]
    pairs = set(all_pairs(fresh)) | {(min(a, b), max(a, b)) for a in fresh for b in old}
    return sorted(pairs)


def record(conn: Connection, pairs: Sequence[Pair], conversation_id: str | None, now: float) -> int:
    """Count one co-use of each pair; returns how many pairs were counted."""
    for a, b in pairs:
        row = conn.execute(
            "SELECT conversations FROM memory_associations WHERE a = ? AND b = ?", (a, b)
        ).fetchone()
        if row is None:
            seen = [conversation_id] if conversation_id else []
            conn.execute(
                "INSERT INTO memory_associations (a, b, count, first_seen, last_seen, "
                "conversations) VALUES (?, ?, 1, ?, ?, ?)",
                (a, b, now, now, json.dumps(seen)),
            )
            continue
        seen = [str(c) for c in json.loads(row[0] or "[]")]
        if conversation_id:
            seen = [c for c in seen if c != conversation_id] + [conversation_id]
        conn.execute(
            "UPDATE memory_associations SET count = count + 1, last_seen = ?, conversations = ? "
            "WHERE a = ? AND b = ?",
            (now, json.dumps(seen[-mem.MAX_ASSOCIATION_CONVERSATIONS :]), a, b),
        )
    return len(pairs)


def read_for(
    conn: Connection, ids: Sequence[str], *, min_count: int = 1, limit: int = 50
) -> list[AssociationRow]:
    """The associations of each of ``ids`` (both sides of the pair), strongest first."""
    if not ids:
        return []
    marks = placeholders(len(ids))
    found = conn.execute(
        f"SELECT a, b, count, first_seen, last_seen, conversations FROM memory_associations "
        f"WHERE a IN ({marks}) AND count >= ? "
        f"UNION ALL "
        f"SELECT b, a, count, first_seen, last_seen, conversations FROM memory_associations "
        f"WHERE b IN ({marks}) AND count >= ? "
        f"ORDER BY 3 DESC, 5 DESC LIMIT ?",
        (*ids, min_count, *ids, min_count, limit),
    ).fetchall()
    return [
        (str(r[0]), str(r[1]), int(r[2]), float(r[3]), float(r[4]), tuple(json.loads(r[5])))
        for r in found
    ]


def _active(conn: Connection, ids: Sequence[str]) -> dict[str, mem.Memory]:
    if not ids:
        return {}
    found = conn.execute(
        f"SELECT {rows.MEMORY_COLUMNS} FROM memories "
        f"WHERE id IN ({placeholders(len(ids))}) AND status = 'active'",
        tuple(ids),
    ).fetchall()
    return {memory.id: memory for memory in map(rows.row_to_memory, found)}


def associations_of(conn: Connection, memory_id: str, limit: int) -> list[mem.MemoryAssociation]:
    """A memory's associations with active memories, strongest first."""
    found = read_for(conn, [memory_id], limit=limit)
    others = _active(conn, [r[1] for r in found])
    return [
        mem.MemoryAssociation(
            memory=others[other], count=count, first_seen=first, last_seen=last, conversations=seen
        )
        for _asked, other, count, first, last, seen in found
        if other in others
    ]


STRONG_HITS = 3
"""Only the best this many hits of a search bring their associations in."""


def associated_hits(
    conn: Connection, hits: Sequence[mem.MemoryHit], wanted: int
) -> list[mem.MemoryHit]:
    """Up to ``wanted`` active memories strongly associated with the best hits, not hits.

    Each ranks below every direct hit (its score is the last hit's, scaled by the strength),
    and says which hit brought it in.
    """
    if wanted <= 0 or not hits:
        return []
    strong = [hit.memory.id for hit in hits[:STRONG_HITS]]
    found = read_for(conn, strong, min_count=mem.ASSOCIATION_MIN_COUNT, limit=wanted * 4 + 8)
    taken = {hit.memory.id for hit in hits}
    picked: list[tuple[str, str, int]] = []
    for asked, other, count, *_rest in found:
        if other not in taken:
            taken.add(other)
            picked.append((asked, other, count))
    active = _active(conn, [other for _asked, other, _count in picked])
    floor = min(hit.score for hit in hits)
    out = [
        mem.MemoryHit(
            memory=active[other],
            score=floor * mem.association_strength(count),
            associated_with=asked,
        )
        for asked, other, count in picked
        if other in active
    ]
    return out[:wanted]


EXPORT_KEY = "association"
"""An exported association is a line ``{"association": {a, b, count, first_seen, ...}}``."""


def export_lines(conn: Connection) -> list[dict[str, Any]]:
    """Every association as an export line, after the memories it links."""
    found = conn.execute(
        "SELECT a, b, count, first_seen, last_seen, conversations FROM memory_associations "
        "ORDER BY a, b"
    ).fetchall()
    return [
        {
            EXPORT_KEY: {
                "a": r[0],
                "b": r[1],
                "count": int(r[2]),
                "first_seen": float(r[3]),
                "last_seen": float(r[4]),
                "conversations": json.loads(r[5] or "[]"),
            }
        }
        for r in found
    ]


def split_export(
    lines: Iterable[Mapping[str, Any]],
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """An export's memory lines and its association lines, apart."""
    memories: list[Mapping[str, Any]] = []
    links: list[Mapping[str, Any]] = []
    for line in lines:
        inner = line.get(EXPORT_KEY) if isinstance(line, Mapping) else None
        (links if isinstance(inner, Mapping) else memories).append(inner or line)
    return memories, links


def import_lines(conn: Connection, links: Iterable[Mapping[str, Any]]) -> int:
    """Merge exported associations between memories that exist; returns how many were merged.

    Idempotent: a pair already here keeps the larger count, the earlier first and the later
    last sighting, and the union of conversations, so importing twice changes nothing.
    """
    merged = 0
    for link in links:
        try:
            a, b = sorted((str(link["a"]), str(link["b"])))
            count = int(link["count"])
            first, last = float(link["first_seen"]), float(link["last_seen"])
            seen = [str(c) for c in link.get("conversations") or ()]
        except (KeyError, TypeError, ValueError):
            continue
        present = conn.execute(
            "SELECT COUNT(*) FROM memories WHERE id IN (?, ?)", (a, b)
        ).fetchone()[0]
        if a == b or count < 1 or present != 2:
            continue
        row = conn.execute(
            "SELECT conversations FROM memory_associations WHERE a = ? AND b = ?", (a, b)
        ).fetchone()
        if row is not None:
            seen = list(dict.fromkeys([*json.loads(row[0] or "[]"), *seen]))
        conn.execute(
            "INSERT INTO memory_associations (a, b, count, first_seen, last_seen, conversations) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (a, b) DO UPDATE SET "
            "count = max(count, excluded.count), "
            "first_seen = min(first_seen, excluded.first_seen), "
            "last_seen = max(last_seen, excluded.last_seen), "
            "conversations = excluded.conversations",
            (a, b, count, first, last, json.dumps(seen[-mem.MAX_ASSOCIATION_CONVERSATIONS :])),
        )
        merged += 1
    return merged
