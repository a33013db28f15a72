"""Memory reflections in SQL: one row per turn that loaded memories, read back by conversation.

The rows hold counts and times only (``memory_reflections``); the aggregation is pure
(``domain/memory_reflection.py``).
"""

from __future__ import annotations

from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.domain.memory_reflection import TurnReflection

__all__ = ["latest_turns", "record_turn"]


def record_turn(conn: Connection, turn: TurnReflection) -> None:
    """Keep one turn's reflection."""
    conn.execute(
        "INSERT INTO memory_reflections (conversation_id, run_id, at, loaded, used, load_ms) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (
            turn.conversation_id,
            turn.run_id,
            turn.at,
            turn.loaded,
            min(turn.used, turn.loaded),
            max(turn.load_ms, 0.0),
        ),
    )


def latest_turns(conn: Connection, conversations: int) -> list[TurnReflection]:
    """Every turn of the latest ``conversations`` conversations (by their last turn)."""
    found = conn.execute(
        "SELECT conversation_id, run_id, at, loaded, used, load_ms FROM memory_reflections "
        "WHERE conversation_id IN (SELECT conversation_id FROM memory_reflections "
        "GROUP BY conversation_id ORDER BY max(at) DESC LIMIT ?) ORDER BY at",
        (max(conversations, 0),),
    ).fetchall()
    return [
        TurnReflection(
            conversation_id=str(r[0]),
            run_id=str(r[1]),
            at=float(r[2]),
            loaded=int(r[3]),
            used=int(r[4]),
            load_ms=float(r[5]),
        )
        for r in found
    ]
