"""The one SQLite connection factory.

Every connection ARIA opens goes through :func:`connect` so that all of them share the same
driver and the same safety settings. The driver is chosen once per process: the standard
library's ``sqlite3`` when its connections can load extensions (needed for sqlite-vec),
otherwise ``pysqlite3`` (``pysqlite3-binary``, Linux x86-64) and finally ``sqlean``
(``sqlean-py``, every platform). All three expose the same DB-API, so the rest of the package
types connections as the standard library's :class:`sqlite3.Connection`; their exception
classes are *not* related, though, so code here never catches ``sqlite3.Error`` but
:func:`driver_errors` instead.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import logging
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import cast

from aria_desktop.domain.errors import StorageError

_LOGGER = logging.getLogger(__name__)

Connection = sqlite3.Connection
"""Type of the connections :func:`connect` returns (the driver's class is API-compatible)."""

BUSY_TIMEOUT_MS = 5000
"""How long a statement waits for another connection's lock before failing, in milliseconds."""

WAL_RESET_FIXED_VERSION = (3, 51, 3)
"""First SQLite release without the WAL-reset corruption bug (concurrent writers+checkpoints)."""

_DRIVER_CANDIDATES = ("sqlite3", "pysqlite3.dbapi2", "sqlean")


@dataclass(frozen=True, kw_only=True)
class SQLiteInfo:
    """What the SQLite in use can do; shown by ``aria doctor`` and logged at start.

    Attributes:
        driver: module name of the DB-API driver (``sqlite3``, ``pysqlite3.dbapi2``, ``sqlean``).
        sqlite_version: version of the SQLite library the driver links, e.g. ``3.51.1``.
        fts5: whether FTS5 full-text tables can be created (keyword search needs it).
        vec_version: sqlite-vec's version when it loads (``v0.1.9``), else None.
        vec_error: why sqlite-vec cannot be loaded, else None.
        wal_reset_bug: whether this SQLite predates the WAL-reset fix (3.51.3); harmless while
            one writer connection is used, which ARIA guarantees.
    """

    driver: str
    sqlite_version: str
    fts5: bool
    vec_version: str | None
    vec_error: str | None
    wal_reset_bug: bool

    @property
    def vec_available(self) -> bool:
        """Whether vector search (sqlite-vec) can be used."""
        return self.vec_version is not None


def _version_tuple(version: str) -> tuple[int, ...]:
    parts: list[int] = []
    for part in version.split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def _can_load_extensions(module: ModuleType) -> bool:
    connection_class = getattr(module, "Connection", None)
    return connection_class is not None and hasattr(connection_class, "enable_load_extension")


def _select_driver(candidates: tuple[str, ...] = _DRIVER_CANDIDATES) -> ModuleType:
    """Return the first importable driver whose connections can load extensions.

    Falls back to the standard library (without vector search) when none can, because chat
    history must keep working even where sqlite-vec cannot.
    """
    for name in candidates:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            _LOGGER.debug("SQLite driver %s not importable: %s", name, exc)
            continue
        if _can_load_extensions(module):
            return module
        _LOGGER.debug("SQLite driver %s cannot load extensions", name)
    _LOGGER.warning(
        "No SQLite driver can load extensions; vector search is disabled. "
        "Install pysqlite3-binary (Linux x86-64) or sqlean-py."
    )
    return sqlite3


@functools.cache
def driver() -> ModuleType:
    """The DB-API module every connection of this process uses (chosen once)."""
    module = _select_driver()
    _LOGGER.debug("Using SQLite driver %s (SQLite %s)", module.__name__, module.sqlite_version)
    return module


def driver_errors() -> tuple[type[Exception], ...]:
    """Exception classes a driver call can raise; catch these, never ``sqlite3.Error``."""
    module = driver()
    return (cast(type[Exception], module.Error), cast(type[Exception], sqlite3.Error))


def placeholders(count: int) -> str:
    """``?, ?, ...`` for ``count`` values bound into an ``IN (...)`` list (never interpolated)."""
    return ", ".join("?" * count)


def storage_error(exc: BaseException, action: str, path: Path | str = "") -> StorageError:
    """Translate a driver or OS exception into a :class:`StorageError` with a useful hint.

    Args:
        exc: the original exception (chain it with ``raise ... from exc``).
        action: what was being done, e.g. ``"open the database"``.
        path: the database file, named in the message and hint.
    """
    text = str(exc)
    # Prefer SQLite's own error name (Python 3.11+ drivers set it); fall back to the text.
    kind = f"{getattr(exc, 'sqlite_errorname', '')} {text}".lower()
    where = f" {path}" if path else ""
    if any(word in kind for word in ("sqlite_busy", "sqlite_locked", "database is locked")):
        hint = (
            "Another program is writing to the database; close other ARIA processes or "
            "database browsers and try again."
        )
    elif "sqlite_full" in kind or "disk is full" in kind or "no space" in kind:
        hint = "The disk is full; free some space and try again."
    elif any(word in kind for word in ("readonly", "read-only", "sqlite_perm", "permission")):
        hint = f"Check that you may write to{where or ' the data directory'} and its folder."
    elif any(word in kind for word in ("not a database", "malformed", "sqlite_corrupt")):
        hint = (
            f"The database file{where} is damaged; move it aside (ARIA starts a new one) "
            "and restore a backup if you have one."
        )
    elif "unable to open" in kind or "sqlite_cantopen" in kind:
        hint = f"Check that the folder of{where or ' the database'} exists and is writable."
    else:
        hint = "Run `aria doctor` to check the storage set-up."
    return StorageError(f"Could not {action}{where}: {text}", hint=hint)


def _check_version(version: str) -> None:
    if _version_tuple(version) < WAL_RESET_FIXED_VERSION:
        _warn_old_version(version)


@functools.cache
def _warn_old_version(version: str) -> None:
    _LOGGER.warning(
        "SQLite %s predates 3.51.3 (WAL-reset bug with concurrent writers); "
        "ARIA keeps a single writer connection to stay safe",
        version,
    )


def connect(path: Path | str, *, read_only: bool = False) -> Connection:
    """Open a connection with ARIA's settings.

    Every connection runs in autocommit mode (``isolation_level=None``): transactions are
    opened explicitly with ``BEGIN IMMEDIATE`` / ``COMMIT`` so none is started or committed
    behind our back. ``synchronous=FULL`` makes each commit durable on return, and
    ``foreign_keys=ON`` makes deletes cascade. Writable connections switch the file to WAL
    (persistent, so read-only connections see WAL too) so readers never wait for the writer.

    Args:
        path: database file; ``":memory:"`` for a private in-memory database.
        read_only: open with ``mode=ro`` (the file must exist); such a connection can never
            write, which is how everything but the owner's writer connects.

    Raises:
        StorageError: the file cannot be opened or configured.
    """
    module = driver()
    target = str(path)
    try:
        if read_only and target != ":memory:":
            uri = Path(target).resolve().as_uri() + "?mode=ro"
            raw = module.connect(
                uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000
            )
        else:
            raw = module.connect(target, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    except driver_errors() as exc:
        raise storage_error(exc, "open the database", target) from exc
    conn = cast(Connection, raw)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not read_only:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal" and target != ":memory:":
                _LOGGER.warning("Database %s stays in journal mode %s, not WAL", target, mode)
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
    except driver_errors() as exc:
        conn.close()
        raise storage_error(exc, "configure the database", target) from exc
    _LOGGER.debug(
        "Opened %s (%s, SQLite %s, read_only=%s)",
        target,
        module.__name__,
        module.sqlite_version,
        read_only,
    )
    _check_version(module.sqlite_version)
    return conn


@functools.cache
def _vec_extension() -> str | None:
    """The path ``sqlite_vec.load`` loads (``<package>/vec0``), or None when not installed.

    Found without importing the package: ``import sqlite_vec`` imports numpy for helpers
    ARIA does not use (about 0.1 s of CPU), which every command that opens the database
    would pay (ARCHITECTURE.md: start-up cost). The path is the package's own
    ``loadable_path()`` of the pinned version (SQLite adds the platform's suffix).
    """
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = next(iter(spec.submodule_search_locations))
    return os.path.normpath(os.path.join(folder, "vec0"))


def _try_load_vec(conn: Connection) -> str | None:
    """Load sqlite-vec into ``conn``; return None on success, else the reason it failed."""
    extension = _vec_extension()
    if extension is None:
        return "sqlite-vec is not installed (No module named 'sqlite_vec')"
    enable = getattr(conn, "enable_load_extension", None)
    if enable is None:
        return f"SQLite driver {type(conn).__module__} cannot load extensions"
    failures: tuple[type[Exception], ...] = (*driver_errors(), AttributeError, OSError)
    try:
        enable(True)
        try:
            conn.load_extension(extension)
        finally:
            enable(False)
    except failures as exc:
        return f"sqlite-vec failed to load: {exc}"
    return None


def load_vec(conn: Connection) -> bool:
    """Load sqlite-vec into ``conn``; return False (and log why) when it cannot be loaded.

    Extension loading is switched back off right after, so SQL can never load a library.
    """
    reason = _try_load_vec(conn)
    if reason is not None:
        _LOGGER.warning("Vector search disabled: %s", reason)
        return False
    return True


def _probe_fts5(conn: Connection) -> bool:
    try:
        conn.execute("CREATE VIRTUAL TABLE temp._aria_fts5_probe USING fts5(body)")
        conn.execute("DROP TABLE temp._aria_fts5_probe")
    except driver_errors():
        return False
    return True


@functools.cache
def sqlite_info() -> SQLiteInfo:
    """Describe the SQLite this process uses (driver, version, FTS5, sqlite-vec)."""
    module = driver()
    conn = connect(":memory:")
    try:
        fts5 = _probe_fts5(conn)
        vec_version: str | None = None
        vec_error = _try_load_vec(conn)
        if vec_error is None:
            try:
                vec_version = str(conn.execute("SELECT vec_version()").fetchone()[0])
            except driver_errors() as exc:
                vec_error = f"sqlite-vec loaded but does not answer: {exc}"
    finally:
        conn.close()
    version = str(module.sqlite_version)
    return SQLiteInfo(
        driver=module.__name__,
        sqlite_version=version,
        fts5=fts5,
        vec_version=vec_version,
        vec_error=vec_error,
        wal_reset_bug=_version_tuple(version) < WAL_RESET_FIXED_VERSION,
    )
