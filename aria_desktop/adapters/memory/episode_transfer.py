"""Episodes and memory sources in an export: extra lines after the memories.

An episode is a line ``{"episode": {...}}`` (no vector: the importer embeds it again), a
source ``{"memory_source": {...}}``. Importing is idempotent: an episode whose conversation
already has one, or a source already kept, is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from aria_desktop.adapters.memory.rows import new_id
from aria_desktop.adapters.storage.connection import Connection

__all__ = [
    "EPISODE_KEY",
    "SOURCE_KEY",
    "episode_text",
    "export_lines",
    "import_episodes",
    "import_sources",
    "split_export",
]

EPISODE_KEY = "episode"
SOURCE_KEY = "memory_source"
_FIELDS = ("id", "conversation_id", "title", "summary", "started_at", "ended_at", "turns")


def export_lines(conn: Connection) -> list[dict[str, Any]]:
    """Every episode, then every memory source, as export lines."""
    episodes = [
        {EPISODE_KEY: {**dict(zip(_FIELDS, r[:7], strict=True)), "summarised": bool(r[7])}}
        for r in conn.execute(
            "SELECT id, conversation_id, title, summary, started_at, ended_at, turns, summarised "
            "FROM episodes ORDER BY seq"
        )
    ]
    sources = [
        {SOURCE_KEY: {"memory_id": r[0], "conversation_id": r[1], "relation": r[2], "at": r[3]}}
        for r in conn.execute(
            "SELECT memory_id, conversation_id, relation, at FROM memory_sources "
            "ORDER BY at, memory_id"
        )
    ]
    return episodes + sources


def split_export(
    lines: Iterable[Any],
) -> tuple[list[Any], list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """An export's other lines (not always objects), its episodes and its sources, apart."""
    rest: list[Any] = []
    episodes: list[Mapping[str, Any]] = []
    sources: list[Mapping[str, Any]] = []
    for line in lines:
        if not isinstance(line, Mapping):
            rest.append(line)  # rejected as a memory line, counted there
            continue
        episode, source = line.get(EPISODE_KEY), line.get(SOURCE_KEY)
        if isinstance(episode, Mapping):
            episodes.append(episode)
        elif isinstance(source, Mapping):
            sources.append(source)
        else:
            rest.append(line)
    return rest, episodes, sources


def episode_text(line: Mapping[str, Any]) -> str:
    """What an imported episode is embedded from (as the store embeds a written one)."""
    return f"{line.get('title', '')}. {line.get('summary', '')}"


def import_episodes(
    conn: Connection,
    lines: Sequence[Mapping[str, Any]],
    vectors: Sequence[bytes] | None,
    model: str,
    now: float,
) -> int:
    """Add the exported episodes whose conversation has none here; returns how many."""
    added = 0
    for number, line in enumerate(lines):
        try:
            summary = str(line["summary"]).strip()
            values = (
                str(line.get("id") or new_id("ep")),
                str(line["conversation_id"]),
                str(line.get("title", "")),
                summary,
                float(line["started_at"]),
                float(line["ended_at"]),
                int(line.get("turns", 0)),
                int(line.get("summarised") is True),
            )
        except (KeyError, TypeError, ValueError):
            continue
        if not summary:
            continue
        vector = vectors[number] if vectors is not None else None
        cursor = conn.execute(
            "INSERT OR IGNORE INTO episodes (id, conversation_id, title, summary, started_at, "
            "ended_at, turns, summarised, embedding_model, embedding, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*values, model if vector is not None else "", vector, now, now),
        )
        added += cursor.rowcount
    return added


def import_sources(conn: Connection, lines: Iterable[Mapping[str, Any]]) -> int:
    """Add the exported sources of memories that exist here; returns how many."""
    added = 0
    for line in lines:
        try:
            values = (
                str(line["memory_id"]),
                str(line["conversation_id"]),
                str(line["relation"]),
                float(line["at"]),
            )
        except (KeyError, TypeError, ValueError):
            continue
        if values[2] not in ("extracted", "reinforced"):
            continue
        cursor = conn.execute(
            "INSERT OR IGNORE INTO memory_sources (memory_id, conversation_id, relation, at) "
            "SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM memories WHERE id = ?)",
            (*values, values[0]),
        )
        added += cursor.rowcount
    return added
