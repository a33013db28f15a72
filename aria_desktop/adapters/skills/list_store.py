"""Lists in the owner's database.

Tables ``lists`` and ``list_items`` (migration ``everyday_skills``); satisfies
``core.skills.lists.ListStore``.
"""

from __future__ import annotations

import dataclasses
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
        id=str(row[0]),
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


def _find(
    conn: Connection, name: str, item: str, *, by_id: bool, done: bool | None
) -> ListItem | None:
    """The entry of list ``name`` reading ``item`` (or with id ``item``), open ones first.

    ``done`` narrows it to open (False) or checked-off (True) entries; None takes either.
    """
    if by_id and not item.isdigit():
        return None
    state = "" if done is None else f"AND i.done = {int(done)}"
    match = "i.id = ?" if by_id else "lower(i.text) = lower(?)"
    row = conn.execute(
        f"SELECT {_ITEM_COLUMNS} FROM list_items i JOIN lists l ON l.id = i.list_id "
        f"WHERE l.name = ? AND {match} {state} ORDER BY i.done, i.id LIMIT 1",
        (name, int(item) if by_id else item.strip()),
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
                    ListItem(
                        id=str(cursor.lastrowid or 0),
                        list=list_name,
                        text=text.strip(),
                        added_at=now,
                    )
                )
            return added

        return await self._db.write(insert)

    async def remove(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem | None:
        """Delete the entry reading ``item`` (or with id ``item``)."""

        def delete(conn: Connection) -> ListItem | None:
            found = _find(conn, list_name, item, by_id=by_id, done=None)
            if found is not None:
                conn.execute("DELETE FROM list_items WHERE id = ?", (int(found.id),))
            return found

        return await self._db.write(delete)

    async def complete(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem | None:
        """Check off the open entry reading ``item``."""
        return await self._set_done(list_name, item, by_id=by_id, done=True)

    async def reopen(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem | None:
        """Open the checked-off entry reading ``item`` again."""
        return await self._set_done(list_name, item, by_id=by_id, done=False)

    async def _set_done(
        self, list_name: str, item: str, *, by_id: bool, done: bool
    ) -> ListItem | None:
        def update(conn: Connection) -> ListItem | None:
            found = _find(conn, list_name, item, by_id=by_id, done=not done)
            if found is None:
                return None
            done_at = time.time() if done else None
            conn.execute(
                "UPDATE list_items SET done = ?, done_at = ? WHERE id = ?",
                (int(done), done_at, int(found.id)),
            )
            return dataclasses.replace(found, done=done, done_at=done_at)

        return await self._db.write(update)

    async def items(self, list_name: str, *, include_done: bool = False) -> list[ListItem]:
        """The entries of ``list_name``, open ones first, oldest first."""
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

    async def clear_done(self, list_name: str) -> int:
        """Delete the checked-off entries of ``list_name``; how many."""

        def delete(conn: Connection) -> int:
            cursor = conn.execute(
                "DELETE FROM list_items WHERE done = 1 AND list_id = "
                "(SELECT id FROM lists WHERE name = ?)",
                (list_name,),
            )
            return int(cursor.rowcount)

        return await self._db.write(delete)

    async def has_list(self, list_name: str) -> bool:
        """Whether ``list_name`` exists here."""

        def select(conn: Connection) -> bool:
            return _list_id(conn, list_name, create=False) is not None

        return await self._db.read(select)

    async def delete_list(self, list_name: str) -> int | None:
        """Delete ``list_name`` and its entries; how many entries (None: no such list)."""

        def delete(conn: Connection) -> int | None:
            list_id = _list_id(conn, list_name, create=False)
            if list_id is None:
                return None
            cursor = conn.execute("DELETE FROM list_items WHERE list_id = ?", (list_id,))
            conn.execute("DELETE FROM lists WHERE id = ?", (list_id,))
            return int(cursor.rowcount)

        return await self._db.write(delete)

    async def names(self) -> list[str]:
        """The stored names of every list (for the recogniser's list of names)."""
        return [summary.name for summary in await self.lists()]
