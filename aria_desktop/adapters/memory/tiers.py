"""Memory tiers in SQL: apply the use rules, pin a tier, keep the history, load by tier.

The rules themselves are pure (``domain/memory_tiers.py``); this module runs them over rows
inside the store's write transactions and records every move in ``memory_tier_changes``.
"""

from __future__ import annotations

from collections.abc import Sequence

from aria_desktop.adapters.memory import rows
from aria_desktop.adapters.storage.connection import Connection, placeholders
from aria_desktop.domain.errors import MemoryInvalidError
from aria_desktop.domain.memory import MEMORY_TIERS, Memory
from aria_desktop.domain.memory_tiers import MemoryTierChange, next_tier

__all__ = [
    "apply_tier_rules",
    "bootstrap_memories",
    "check_tier",
    "inherit_tier",
    "pin_tier",
    "tier_history",
]

BOOTSTRAP_LINE_OVERHEAD = 48
"""Characters a memory's line costs in the prompt beyond its text (id, kind, date)."""


def check_tier(tier: str) -> str:
    """``tier`` when it is one of :data:`MEMORY_TIERS`.

    Raises:
        MemoryInvalidError: an unknown tier.
    """
    if tier not in MEMORY_TIERS:
        raise MemoryInvalidError(
            f"Unknown memory tier {tier!r}.", hint=f"Tiers: {', '.join(MEMORY_TIERS)}."
        )
    return tier


def _record(
    conn: Connection, memory_id: str, old: str | None, new: str, why: str, at: float
) -> None:
    conn.execute(
        "INSERT INTO memory_tier_changes (memory_id, from_tier, to_tier, reason, at) "
        "VALUES (?, ?, ?, ?, ?)",
        (memory_id, old, new, why, at),
    )


def apply_tier_rules(conn: Connection, now: float, ids: Sequence[str] | None = None) -> int:
    """Move the active, unpinned memories (``ids``, or all) their use calls for; one step each.

    Returns:
        How many memories moved.
    """
    where = "status = 'active' AND tier_pinned = 0"
    params: tuple[str, ...] = ()
    if ids is not None:
        if not ids:
            return 0
        where += f" AND id IN ({placeholders(len(ids))})"
        params = tuple(ids)
    found = conn.execute(f"SELECT {rows.MEMORY_COLUMNS} FROM memories WHERE {where}", params)
    moved = 0
    for row in found.fetchall():
        memory = rows.row_to_memory(row)
        move = next_tier(memory, now)
        if move is None:
            continue
        conn.execute("UPDATE memories SET tier = ? WHERE id = ?", (move.tier, memory.id))
        _record(conn, memory.id, memory.tier, move.tier, move.reason, now)
        moved += 1
    return moved


def inherit_tier(conn: Connection, new_id: str, old_id: str, now: float) -> None:
    """A memory that replaces another takes its tier: the topic is settled, the value new."""
    row = conn.execute("SELECT tier FROM memories WHERE id = ?", (old_id,)).fetchone()
    if row is None or row[0] == "active":
        return
    conn.execute("UPDATE memories SET tier = ? WHERE id = ?", (row[0], new_id))
    _record(conn, new_id, "active", str(row[0]), f"replaces {old_id}", now)


def pin_tier(
    conn: Connection, memory: Memory, tier: str | None, pinned: bool | None, now: float
) -> None:
    """Apply an edit's tier fields: a tier pins it there; ``pinned=False`` releases it."""
    new_tier = check_tier(tier) if tier is not None else memory.tier
    new_pinned = pinned if pinned is not None else (tier is not None or memory.tier_pinned)
    if new_tier == memory.tier and new_pinned == memory.tier_pinned:
        return
    conn.execute(
        "UPDATE memories SET tier = ?, tier_pinned = ? WHERE id = ?",
        (new_tier, int(new_pinned), memory.id),
    )
    why = "pinned by the user" if new_pinned else "released to the use rules by the user"
    _record(conn, memory.id, memory.tier, new_tier, why, now)


def tier_history(conn: Connection, memory_id: str) -> list[MemoryTierChange]:
    """A memory's tier moves, oldest first."""
    found = conn.execute(
        "SELECT memory_id, from_tier, to_tier, reason, at FROM memory_tier_changes "
        "WHERE memory_id = ? ORDER BY seq",
        (memory_id,),
    ).fetchall()
    return [
        MemoryTierChange(
            memory_id=str(r[0]),
            from_tier=None if r[1] is None else str(r[1]),
            to_tier=str(r[2]),
            reason=str(r[3]),
            at=float(r[4]),
        )
        for r in found
    ]


def bootstrap_memories(conn: Connection, budget_chars: int) -> list[Memory]:
    """The memories a conversation starts with: stable before thread, the user's own first.

    Within a tier: memories about the user, then by importance and use. Lines are taken in
    that order while they fit ``budget_chars``; one that does not fit is skipped, so a long
    memory cannot crowd out several short stable facts.
    """
    if budget_chars <= 0:
        return []
    found = conn.execute(
        f"SELECT {rows.MEMORY_COLUMNS} FROM memories WHERE status = 'active' "
        "AND tier IN ('stable', 'thread') "
        "ORDER BY tier = 'stable' DESC, subject = 'user' COLLATE NOCASE DESC, "
        "importance DESC, access_count DESC, created_at DESC LIMIT 200"
    ).fetchall()
    chosen: list[Memory] = []
    left = budget_chars
    for row in found:
        memory = rows.row_to_memory(row)
        cost = len(memory.content) + BOOTSTRAP_LINE_OVERHEAD
        if cost <= left:
            chosen.append(memory)
            left -= cost
    return chosen
