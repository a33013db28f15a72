"""Schema migrations: ordered, transactional, idempotent, and refusing newer databases."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from aria_desktop.adapters.storage.connection import Connection, connect, driver
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.migrations import MIGRATIONS, Migration, migrate, schema_version
from aria_desktop.adapters.storage.owner_lock import read_owner
from aria_desktop.domain.errors import SchemaTooNewError, StorageError

pytestmark = pytest.mark.timeout(30)


def _applied(conn: Connection) -> list[tuple[str, float]]:
    rows = conn.execute("SELECT name, applied_at FROM schema_migrations ORDER BY rowid")
    return [(str(name), float(at)) for name, at in rows.fetchall()]


def _tables(conn: Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {str(row[0]) for row in rows}


def _read(path: Path) -> tuple[int, list[tuple[str, float]], set[str]]:
    conn = connect(path, read_only=True)
    try:
        return schema_version(conn), _applied(conn), _tables(conn)
    finally:
        conn.close()


async def test_new_database_gets_every_migration_in_order(db_path: Path) -> None:
    db = await Database.open(db_path)
    assert db.schema_version == len(MIGRATIONS)
    await db.close()

    version, applied, tables = _read(db_path)
    assert version == len(MIGRATIONS)
    assert [name for name, _ in applied] == [m.name for m in MIGRATIONS]
    assert {"conversations", "messages", "tool_calls", "schema_migrations"} <= tables


async def test_migrations_run_in_list_order_each_seeing_the_previous(db_path: Path) -> None:
    steps = (
        Migration(name="one", statements=("CREATE TABLE log (step TEXT)",)),
        Migration(name="two", statements=("INSERT INTO log VALUES ('two')",)),
        Migration(
            name="three",
            apply=lambda conn: conn.execute(
                "INSERT INTO log SELECT 'three after ' || step FROM log"
            ),
        ),
    )
    db = await Database.open(db_path, migrations=steps)
    rows = await db.read(
        lambda conn: conn.execute("SELECT step FROM log ORDER BY rowid").fetchall()
    )
    await db.close()
    assert [r[0] for r in rows] == ["two", "three after two"]
    version, applied, _ = _read(db_path)
    assert version == 3
    assert [name for name, _ in applied] == ["one", "two", "three"]


async def test_reopening_applies_nothing_again(db_path: Path) -> None:
    await (await Database.open(db_path)).close()
    first = _read(db_path)
    await (await Database.open(db_path)).close()
    assert _read(db_path) == first

    conn = connect(db_path)
    try:
        assert migrate(conn) == 0
    finally:
        conn.close()
    assert _read(db_path) == first


async def test_appended_migration_is_applied_alone_on_next_open(db_path: Path) -> None:
    await (await Database.open(db_path)).close()
    _, before, _ = _read(db_path)
    extended = (*MIGRATIONS, Migration(name="extra", statements=("CREATE TABLE extra (x)",)))
    db = await Database.open(db_path, migrations=extended)
    assert db.schema_version == len(extended)
    await db.close()
    version, after, tables = _read(db_path)
    assert version == len(extended)
    assert after[: len(before)] == before
    assert [name for name, _ in after[len(before) :]] == ["extra"]
    assert "extra" in tables


async def test_failing_migration_rolls_back_and_leaves_previous_version(db_path: Path) -> None:
    steps = (
        Migration(name="good", statements=("CREATE TABLE good (x)",)),
        Migration(
            name="bad",
            statements=("CREATE TABLE half_done (x)", "INSERT INTO no_such_table VALUES (1)"),
        ),
    )
    with pytest.raises(StorageError, match="migration 2 \\(bad\\)"):
        await Database.open(db_path, migrations=steps)
    version, applied, tables = _read(db_path)
    assert version == 1
    assert [name for name, _ in applied] == ["good"]
    assert "half_done" not in tables
    assert read_owner(db_path) is None  # the failed open gave ownership back


def test_migrate_refuses_duplicate_names(tmp_path: Path) -> None:
    conn = connect(tmp_path / "a.db")
    try:
        with pytest.raises(ValueError, match="unique"):
            migrate(conn, (Migration(name="x"), Migration(name="x")))
    finally:
        conn.close()


async def test_newer_database_raises_schema_too_new_and_is_left_byte_identical(
    db_path: Path,
) -> None:
    await (await Database.open(db_path)).close()
    conn = connect(db_path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 3}")
    conn.close()
    before = db_path.read_bytes()

    with pytest.raises(SchemaTooNewError) as info:
        await Database.open(db_path)
    assert "newer ARIA" in str(info.value)
    assert "Upgrade ARIA" in info.value.hint
    assert db_path.read_bytes() == before
    assert read_owner(db_path) is None


async def test_newer_database_in_rollback_journal_mode_is_not_switched_to_wal(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old-mode.db"
    plain = sqlite3.connect(path)
    plain.execute("CREATE TABLE future (x)")
    plain.execute("PRAGMA user_version = 99")
    plain.commit()
    plain.close()
    before = path.read_bytes()

    with pytest.raises(SchemaTooNewError):
        await Database.open(path)
    assert path.read_bytes() == before
    assert before[18:20] == b"\x01\x01"  # still a rollback-journal database, not WAL


def test_migrate_on_newer_database_raises_before_writing(tmp_path: Path) -> None:
    conn = connect(tmp_path / "a.db")
    try:
        conn.execute("PRAGMA user_version = 42")
        with pytest.raises(SchemaTooNewError):
            migrate(conn)
        assert "schema_migrations" not in _tables(conn)
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("sql", "params"),
    [
        (
            "INSERT INTO messages (conversation_id, role, content, created_at, updated_at) "
            "VALUES ('c', 'robot', '', 0, 0)",
            (),
        ),
        (
            "INSERT INTO messages (conversation_id, role, content, status, created_at, "
            "updated_at) VALUES ('c', 'user', '', 'lost', 0, 0)",
            (),
        ),
        (
            "INSERT INTO tool_calls (conversation_id, call_id, name, arguments, status, "
            "created_at) VALUES ('c', 'k', 'n', '{}', 'maybe', 0)",
            (),
        ),
        (
            "INSERT INTO messages (conversation_id, role, content, created_at, updated_at) "
            "VALUES ('no-such-conversation', 'user', '', 0, 0)",
            (),
        ),
    ],
    ids=["bad-role", "bad-message-status", "bad-tool-status", "unknown-conversation"],
)
async def test_schema_rejects_invalid_rows(db: Database, sql: str, params: tuple[()]) -> None:
    def insert(conn: Connection) -> None:
        conn.execute("INSERT INTO conversations VALUES ('c', 't', 0, 0)")
        conn.execute(sql, params)

    with pytest.raises(StorageError) as info:
        await db.write(insert)
    assert isinstance(info.value.__cause__, driver().IntegrityError)
    assert await db.read(lambda c: c.execute("SELECT count(*) FROM conversations").fetchone()) == (
        0,
    )
