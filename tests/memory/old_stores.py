"""Databases as an earlier release left them: the migrations up to one, rows written in SQL.

An old store's rows are written with plain SQL of that release's columns, since today's store
code writes columns an old schema does not have yet.
"""

from __future__ import annotations

from pathlib import Path

from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.migrations import MIGRATIONS, Migration


async def old_store_with_memory(
    path: Path,
    before: Migration,
    memory_id: str,
    content: str,
    *,
    access_count: int = 0,
    conversation_id: str | None = None,
) -> None:
    """A database migrated up to (not including) ``before``, holding one active memory."""
    migrations = MIGRATIONS[: MIGRATIONS.index(before)]
    async with await Database.open(path, migrations=migrations, take_lock=False) as old:
        await old.write(
            lambda conn: conn.execute(
                "INSERT INTO memories (id, content, content_hash, kind, importance, confidence, "
                "provenance, created_at, updated_at, access_count, conversation_id) "
                "VALUES (?, ?, 'old-hash', 'fact', 0.5, 0.9, 'manual', 1.7e9, 1.7e9, ?, ?)",
                (memory_id, content, access_count, conversation_id),
            )
        )


async def table_names(db: Database) -> set[str]:
    """The tables of ``db``."""
    return await db.read(
        lambda conn: {
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    )
