"""The connection factory: driver choice, per-connection settings, sqlite-vec, doctor info."""

from __future__ import annotations

import logging
import sqlite3
import struct
import sys
import types
from pathlib import Path

import pytest

from aria_desktop.adapters.storage import connection
from aria_desktop.adapters.storage.connection import connect, driver, load_vec, sqlite_info
from aria_desktop.adapters.storage.database import Database
from aria_desktop.domain.errors import StorageError

pytestmark = pytest.mark.timeout(30)


def _settings(conn: connection.Connection) -> dict[str, object]:
    return {
        "journal_mode": conn.execute("PRAGMA journal_mode").fetchone()[0],
        "synchronous": conn.execute("PRAGMA synchronous").fetchone()[0],
        "foreign_keys": conn.execute("PRAGMA foreign_keys").fetchone()[0],
        "busy_timeout": conn.execute("PRAGMA busy_timeout").fetchone()[0],
    }


EXPECTED = {"journal_mode": "wal", "synchronous": 2, "foreign_keys": 1, "busy_timeout": 5000}


def test_writable_connection_gets_wal_full_sync_foreign_keys_and_busy_timeout(
    tmp_path: Path,
) -> None:
    conn = connect(tmp_path / "a.db")
    try:
        assert _settings(conn) == EXPECTED
        assert conn.isolation_level is None
        assert not conn.in_transaction
    finally:
        conn.close()


def test_read_only_connection_has_same_settings_and_cannot_write(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    writer = connect(path)
    writer.execute("CREATE TABLE t (x)")
    reader = connect(path, read_only=True)
    try:
        assert _settings(reader) == EXPECTED
        with pytest.raises(driver().OperationalError, match="readonly"):
            reader.execute("INSERT INTO t VALUES (1)")
    finally:
        reader.close()
        writer.close()


def test_read_only_connection_to_missing_file_raises_storage_error_with_hint(
    tmp_path: Path,
) -> None:
    with pytest.raises(StorageError) as info:
        connect(tmp_path / "missing.db", read_only=True)
    assert info.value.hint


def test_explicit_transactions_are_real_and_statements_otherwise_autocommit(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.db"
    writer = connect(path)
    observer = connect(path, read_only=True)
    try:
        writer.execute("CREATE TABLE t (x)")
        writer.execute("INSERT INTO t VALUES (1)")
        assert observer.execute("SELECT count(*) FROM t").fetchone()[0] == 1  # autocommitted

        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT INTO t VALUES (2)")
        assert writer.in_transaction
        assert observer.execute("SELECT count(*) FROM t").fetchone()[0] == 1  # not yet visible
        writer.execute("ROLLBACK")
        assert writer.execute("SELECT count(*) FROM t").fetchone()[0] == 1
    finally:
        observer.close()
        writer.close()


async def test_both_database_connections_get_the_settings(db: Database) -> None:
    assert await db.write(_settings) == EXPECTED
    assert await db.read(_settings) == EXPECTED


def test_sqlite_vec_loads_through_the_factory_and_answers_knn_queries() -> None:
    conn = connect(":memory:")
    try:
        assert load_vec(conn) is True
        assert conn.execute("SELECT vec_version()").fetchone()[0] == "v0.1.9"
        conn.execute("CREATE VIRTUAL TABLE v USING vec0(embedding float[2])")
        for rowid, vector in ((1, (0.0, 1.0)), (2, (1.0, 0.0))):
            conn.execute(
                "INSERT INTO v (rowid, embedding) VALUES (?, ?)",
                (rowid, struct.pack("2f", *vector)),
            )
        nearest = conn.execute(
            "SELECT rowid FROM v WHERE embedding MATCH ? AND k = 1",
            (struct.pack("2f", 0.9, 0.1),),
        ).fetchone()[0]
        assert nearest == 2
        with pytest.raises(driver().OperationalError):
            conn.execute("SELECT load_extension('nothing')")  # loading is off again
    finally:
        conn.close()


def test_sqlite_vec_loads_the_packages_own_library_without_importing_numpy() -> None:
    import subprocess

    code = (
        "import sys\n"
        "from aria_desktop.adapters.storage.connection import connect, load_vec\n"
        "conn = connect(':memory:')\n"
        "assert load_vec(conn)\n"
        "print(sorted(m for m in ('numpy', 'sqlite_vec') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    sqlite_vec = pytest.importorskip("sqlite_vec")
    assert connection._vec_extension() == sqlite_vec.loadable_path()


def test_a_missing_sqlite_vec_is_reported_as_not_installed(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(connection, "_vec_extension", lambda: None)
    conn = connect(":memory:")
    try:
        with caplog.at_level(logging.WARNING, logger="aria_desktop.adapters.storage.connection"):
            assert load_vec(conn) is False
        assert "sqlite-vec is not installed" in caplog.text
    finally:
        conn.close()


def test_load_vec_returns_false_and_logs_why_when_driver_cannot_load_extensions(
    caplog: pytest.LogCaptureFixture,
) -> None:
    plain = sqlite3.connect(":memory:")
    if hasattr(plain, "enable_load_extension"):
        pytest.skip("this interpreter's sqlite3 can load extensions")
    try:
        with caplog.at_level(logging.WARNING, logger="aria_desktop.adapters.storage.connection"):
            assert load_vec(plain) is False
        assert "cannot load extensions" in caplog.text
    finally:
        plain.close()


def test_sqlite_info_reports_driver_version_fts5_and_vec() -> None:
    info = sqlite_info()
    assert info.driver == driver().__name__
    assert info.sqlite_version == driver().sqlite_version
    assert info.fts5 is True
    assert info.vec_available
    assert info.vec_version == "v0.1.9"
    assert info.vec_error is None
    assert info.wal_reset_bug == (connection._version_tuple(info.sqlite_version) < (3, 51, 3))


def test_driver_choice_prefers_first_candidate_that_can_load_extensions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class CapableConnection:
        def enable_load_extension(self, enabled: bool) -> None: ...

    class IncapableConnection:
        pass

    capable = types.ModuleType("capable_driver")
    capable.Connection = CapableConnection  # type: ignore[attr-defined]
    incapable = types.ModuleType("incapable_driver")
    incapable.Connection = IncapableConnection  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "capable_driver", capable)
    monkeypatch.setitem(sys.modules, "incapable_driver", incapable)

    chosen = connection._select_driver(
        ("incapable_driver", "not_installed_driver", "capable_driver")
    )
    assert chosen is capable


def test_driver_choice_falls_back_to_stdlib_when_nothing_can_load_extensions(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="aria_desktop.adapters.storage.connection"):
        chosen = connection._select_driver(("not_installed_driver",))
    assert chosen is sqlite3
    assert "vector search is disabled" in caplog.text


def test_this_machine_uses_a_driver_that_can_load_extensions() -> None:
    assert hasattr(driver().Connection, "enable_load_extension")


def test_old_sqlite_version_is_warned_about_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    connection._warn_old_version.cache_clear()
    with caplog.at_level(logging.WARNING, logger="aria_desktop.adapters.storage.connection"):
        connect(tmp_path / "a.db").close()
        connect(tmp_path / "b.db").close()
    warnings = [r for r in caplog.records if "3.51.3" in r.getMessage()]
    old = connection._version_tuple(driver().sqlite_version) < (3, 51, 3)
    assert len(warnings) == (1 if old else 0)


@pytest.mark.parametrize(
    ("message", "hint_part"),
    [
        ("database is locked", "Another program"),
        ("database or disk is full", "disk is full"),
        ("attempt to write a readonly database", "may write"),
        ("file is not a database", "damaged"),
        ("database disk image is malformed", "damaged"),
        ("unable to open database file", "exists and is writable"),
        ("something new", "aria doctor"),
    ],
)
def test_driver_errors_become_storage_errors_with_actionable_hints(
    message: str, hint_part: str
) -> None:
    error = connection.storage_error(driver().OperationalError(message), "write", "/x/aria.db")
    assert isinstance(error, StorageError)
    assert message in str(error)
    assert "/x/aria.db" in str(error)
    assert hint_part in error.hint
