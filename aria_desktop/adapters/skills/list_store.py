"""Lists in the owner's database.

Tables ``lists`` and ``list_items`` (migration ``everyday_skills``); satisfies
``core.skills.lists.ListStore``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.domain.lists import SHOPPING, TODO, ListItem, ListSummary

__all__ = ["SQLiteListStore"]

_ITEM_COLUMNS = "i.id, l.name, i.text, i.done, i.added_at, i.done_at"


def _item(row: Sequence[Any]) -> ListItem:
    return ListItem(
        id=int(row[0]),
        list=str(row[1]),
        text=str(row[2]),
        done=bool(row[3]),
        added_at=float(row[4]),
        done_at=None if row[5] is None else float(row[5]),
    )


def _list_id(conn: Connection, name: str, *, create: bool) -> int | None:
    row = conn.execute("SELECT id FROM lists WHERE name = ?", (name,)).fetchone()
    if row is not None:
        return int(row[0])
    if not create:
        return None
    cursor = conn.execute("INSERT INTO lists (name, created_at) VALUES (?, ?)", (name, time.time()))
    return int(cursor.lastrowid or 0)


def _find(conn: Connection, name: str, text: str, *, open_only: bool) -> ListItem | None:
    done = "AND i.done = 0" if open_only else ""
    row = conn.execute(
        f"SELECT {_ITEM_COLUMNS} FROM list_items i JOIN lists l ON l.id = i.list_id "
        f"WHERE l.name = ? AND lower(i.text) = lower(?) {done} ORDER BY i.done, i.id LIMIT 1",
        (name, text.strip()),
    ).fetchone()
    return None if row is None else _item(row)


class SQLiteListStore:
    """The shopping list, the to-do list and named lists in SQLite."""

    def __init__(self, db: Database) -> None:
        """Use ``db`` (its schema includes the ``everyday_skills`` migration)."""
        self._db = db

    async def add(self, list_name: str, items: Sequence[str]) -> list[ListItem]:
        """Append ``items`` to ``list_name`` (created when new)."""

        def insert(conn: Connection) -> list[ListItem]:
            list_id = _list_id(conn, list_name, create=True)
            now = time.time()
            added = []
            for text in items:
                cursor = conn.execute(
                    "INSERT INTO list_items (list_id, text, added_at) VALUES (?, ?, ?)",
                    (list_id, text.strip(), now),
                )
                added.append(
                    ListItem(id=int(cursor.lastrowid or 0), list=list_name, text=text, added_at=now)
                )
            return added

        return await self._db.write(insert)

    async def remove(self, list_name: str, item: str) -> ListItem | None:
        """Delete the entry reading ``item``."""

        def delete(conn: Connection) -> ListItem | None:
            found = _find(conn, list_name, item, open_only=False)
            if found is not None:
                conn.execute("DELETE FROM list_items WHERE id = ?", (found.id,))
            return found

        return await self._db.write(delete)

    async def complete(self, list_name: str, item: str) -> ListItem | None:
        """Check off the open entry reading ``item``."""

        def check(conn: Connection) -> ListItem | None:
            found = _find(conn, list_name, item, open_only=True)
            if found is None:
                return None
            now = time.time()
            conn.execute(
                "UPDATE list_items SET done = 1, done_at = ? WHERE id = ?", (now, found.id)
            )
            return ListItem(
                id=found.id,
                list=found.list,
                text=found.text,
                done=True,
                added_at=found.added_at,
                done_at=now,
            )

        return await self._db.write(check)

    async def items(self, list_name: str, *, include_done: bool = False) -> list[ListItem]:
        """The entries of ``list_name``, oldest first."""
        done = "" if include_done else "AND i.done = 0"

        def select(conn: Connection) -> list[ListItem]:
            rows = conn.execute(
                f"SELECT {_ITEM_COLUMNS} FROM list_items i JOIN lists l ON l.id = i.list_id "
                f"WHERE l.name = ? {done} ORDER BY i.done, i.id",
                (list_name,),
            ).fetchall()
            return [_item(row) for row in rows]

        return await self._db.read(select)

    async def lists(self) -> list[ListSummary]:
        """Every list with its counts; shopping and to-do first, always present."""

        def select(conn: Connection) -> list[ListSummary]:
            rows = conn.execute(
                "SELECT l.name, COALESCE(SUM(i.done = 0), 0), COALESCE(SUM(i.done = 1), 0) "
                "FROM lists l LEFT JOIN list_items i ON i.list_id = l.id GROUP BY l.id"
            ).fetchall()
            found = {
                str(r[0]): ListSummary(name=str(r[0]), open_items=int(r[1]), done_items=int(r[2]))
                for r in rows
            }
            for name in (SHOPPING, TODO):
                found.setdefault(name, ListSummary(name=name, open_items=0, done_items=0))
            first = [found.pop(SHOPPING), found.pop(TODO)]
            return first + sorted(found.values(), key=lambda s: s.name)

        return await self._db.read(select)

    async def names(self) -> list[str]:
        """The stored names of every list (for the recogniser's list of names)."""
        return [summary.name for summary in await self.lists()]
