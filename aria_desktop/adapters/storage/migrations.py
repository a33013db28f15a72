"""Ordered, named, transactional schema migrations.

``PRAGMA user_version`` counts the migrations applied: version N means the first N entries of
:data:`MIGRATIONS` ran. Each migration runs in its own ``BEGIN IMMEDIATE`` transaction together
with the version bump and a row in ``schema_migrations``, so a crash leaves the database at a
whole version, never half-way. A database whose version is higher than the list is long was
written by a newer ARIA: it is refused before anything is written, because this program cannot
know what the newer schema means.

To extend the schema, append a :class:`Migration` to :data:`MIGRATIONS` (never edit or reorder
released ones). Statements run one by one with ``execute`` — ``executescript`` would commit the
open transaction first and break atomicity.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aria_desktop.adapters.storage.connection import Connection, driver_errors, storage_error
from aria_desktop.domain.errors import AriaError, SchemaTooNewError

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class Migration:
    """One schema step.

    Attributes:
        name: unique, stable name recorded in ``schema_migrations`` (for people and ``doctor``).
        statements: SQL statements run in order, each a single statement.
        apply: optional Python step run after the statements (data migrations); it must not
            commit, roll back or open transactions.
    """

    name: str
    statements: tuple[str, ...] = ()
    apply: Callable[[Connection], object] | None = None


_SCHEMA_MIGRATIONS_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    name TEXT PRIMARY KEY,
    applied_at REAL NOT NULL
)
"""

CONVERSATIONS = Migration(
    name="conversations",
    statements=(
        """
        CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
        "CREATE INDEX conversations_by_updated ON conversations (updated_at DESC)",
        """
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            conversation_id TEXT NOT NULL
                REFERENCES conversations (id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
            content TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'complete'
                CHECK (status IN ('complete', 'interrupted', 'error')),
            tool_calls TEXT CHECK (tool_calls IS NULL OR json_valid(tool_calls)),
            tool_call_id TEXT,
            name TEXT,
            backend TEXT NOT NULL DEFAULT '',
            model TEXT NOT NULL DEFAULT '',
            input_tokens INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
        "CREATE INDEX messages_by_conversation ON messages (conversation_id, id)",
        """
        CREATE TABLE tool_calls (
            conversation_id TEXT NOT NULL
                REFERENCES conversations (id) ON DELETE CASCADE,
            call_id TEXT NOT NULL,
            name TEXT NOT NULL,
            arguments TEXT NOT NULL CHECK (json_valid(arguments)),
            status TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'ok', 'error', 'denied')),
            result TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            finished_at REAL,
            PRIMARY KEY (conversation_id, call_id)
        )
        """,
    ),
)

_STATEMENT_COLUMNS = """kind TEXT NOT NULL
                CHECK (kind IN ('fact', 'preference', 'event', 'skill', 'document')),
            subject TEXT NOT NULL DEFAULT 'user',
            topic TEXT NOT NULL DEFAULT '',
            importance REAL NOT NULL CHECK (importance BETWEEN 0 AND 1),
            confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),"""
"""What a memory and an inbox candidate both say, in their tables' columns (one wording, so
the two tables cannot drift apart)."""

LONG_TERM_MEMORY = Migration(
    name="long_term_memory",
    statements=(
        # ``seq`` is the rowid shared with the FTS5 index and the vec0 vector index; ``id`` is
        # the public id. ``embedding`` keeps the unit float32 vector for exact re-ranking and
        # near-duplicate checks; the vec0 table (created at run time, since its dimension
        # depends on the embedding model) is derived from it and from ``content``.
        f"""
        CREATE TABLE memories (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            content TEXT NOT NULL CHECK (length(trim(content)) > 0),
            content_hash TEXT NOT NULL,
            {_STATEMENT_COLUMNS}
            status TEXT NOT NULL DEFAULT 'active'
                CHECK (status IN ('active', 'superseded', 'forgotten')),
            provenance TEXT NOT NULL,
            conversation_id TEXT,
            message_ids TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(message_ids)),
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            last_accessed_at REAL,
            access_count INTEGER NOT NULL DEFAULT 0,
            decayed_at REAL,
            embedding_model TEXT NOT NULL DEFAULT '',
            embedding BLOB,
            supersedes TEXT,
            superseded_by TEXT
        )
        """,
        "CREATE INDEX memories_by_status ON memories (status, created_at)",
        "CREATE INDEX memories_by_hash ON memories (content_hash)",
        "CREATE INDEX memories_by_subject ON memories (subject COLLATE NOCASE, topic)",
        """
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            content, subject,
            content='memories', content_rowid='seq',
            tokenize='porter unicode61 remove_diacritics 2'
        )
        """,
        """
        CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
            INSERT INTO memories_fts (rowid, content, subject)
            VALUES (new.seq, new.content, new.subject);
        END
        """,
        """
        CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
            INSERT INTO memories_fts (memories_fts, rowid, content, subject)
            VALUES ('delete', old.seq, old.content, old.subject);
        END
        """,
        """
        CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, subject ON memories BEGIN
            INSERT INTO memories_fts (memories_fts, rowid, content, subject)
            VALUES ('delete', old.seq, old.content, old.subject);
            INSERT INTO memories_fts (rowid, content, subject)
            VALUES (new.seq, new.content, new.subject);
        END
        """,
        f"""
        CREATE TABLE memory_candidates (
            id TEXT PRIMARY KEY,
            content TEXT NOT NULL CHECK (length(trim(content)) > 0),
            {_STATEMENT_COLUMNS}
            conversation_id TEXT,
            message_ids TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(message_ids)),
            supersedes TEXT,
            created_at REAL NOT NULL
        )
        """,
        "CREATE TABLE memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
)

CONVERSATION_KEYS = Migration(
    name="conversation_keys",
    statements=(
        """
        CREATE TABLE conversation_keys (
            key TEXT PRIMARY KEY,
            conversation_id TEXT NOT NULL
                REFERENCES conversations (id) ON DELETE CASCADE,
            created_at REAL NOT NULL
        )
        """,
        "CREATE INDEX conversation_keys_by_conversation ON conversation_keys (conversation_id)",
    ),
)
"""Digests of message sequences a stateless client may continue (``core/client_turns.py``)."""


def _knowledge_tables(conn: Connection) -> None:
    # sqlite-utils is imported by the step itself: only a database being migrated pays for it.
    from aria_desktop.adapters.storage.knowledge_schema import create_knowledge_tables

    create_knowledge_tables(conn)


KNOWLEDGE_BASE = Migration(name="knowledge_base", apply=_knowledge_tables)
"""The knowledge base's tables (``adapters/storage/knowledge_schema.py``)."""

THINKING_AND_USAGE = Migration(
    name="thinking_and_usage",
    statements=(
        "ALTER TABLE messages ADD COLUMN thinking TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE messages ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN cost REAL NOT NULL DEFAULT 0",
        """
        CREATE TABLE llm_usage (
            id INTEGER PRIMARY KEY,
            at REAL NOT NULL,
            backend TEXT NOT NULL,
            model TEXT NOT NULL,
            locality TEXT NOT NULL CHECK (locality IN ('local', 'cloud')),
            agent TEXT NOT NULL,
            input_tokens INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            cache_read_tokens INTEGER NOT NULL DEFAULT 0,
            cache_write_tokens INTEGER NOT NULL DEFAULT 0,
            cost REAL NOT NULL DEFAULT 0
        )
        """,
        "CREATE INDEX llm_usage_by_time ON llm_usage (at)",
    ),
)
"""A reply's reasoning kept apart from its text, its cache tokens and cost, and the usage
ledger of every model call (``adapters/storage/usage.py``)."""

KNOWLEDGE_SOURCE_STATE = Migration(
    name="knowledge_source_state",
    statements=(
        "ALTER TABLE knowledge_files ADD COLUMN ocr_pages INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE knowledge_sources ADD COLUMN missing_since REAL",
        "ALTER TABLE knowledge_sources ADD COLUMN mount TEXT NOT NULL DEFAULT ''",
    ),
)
"""Scanned pages read by OCR per file, and a source found missing (since when, and the mount
point it was under: a folder on an unmounted drive keeps its passages)."""

FAILED_REPLY_REASON = Migration(
    name="failed_reply_reason",
    statements=(
        "ALTER TABLE messages ADD COLUMN error_code TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE messages ADD COLUMN error_message TEXT NOT NULL DEFAULT ''",
    ),
)
"""Why a reply failed (its error's code and message), kept so history can still say it."""

EVERYDAY_SKILLS = Migration(
    name="everyday_skills",
    statements=(
        """
        CREATE TABLE timers (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL DEFAULT '',
            duration_s REAL NOT NULL CHECK (duration_s > 0),
            state TEXT NOT NULL CHECK (state IN ('running', 'paused', 'finished', 'cancelled')),
            ends_at REAL,
            remaining_s REAL NOT NULL,
            created_at REAL NOT NULL,
            finished_at REAL,
            announced INTEGER NOT NULL DEFAULT 0,
            language TEXT NOT NULL DEFAULT 'en'
        )
        """,
        "CREATE INDEX timers_by_state ON timers (state, ends_at)",
        """
        CREATE TABLE reminders (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('reminder', 'alarm')),
            text TEXT NOT NULL DEFAULT '',
            due_at REAL NOT NULL,
            recurrence TEXT NOT NULL DEFAULT '',
            timezone TEXT NOT NULL DEFAULT '',
            state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'cancelled')),
            created_at REAL NOT NULL,
            delivered_at REAL,
            late INTEGER NOT NULL DEFAULT 0,
            language TEXT NOT NULL DEFAULT 'en'
        )
        """,
        "CREATE INDEX reminders_by_state ON reminders (state, due_at)",
        """
        CREATE TABLE lists (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE,
            created_at REAL NOT NULL
        )
        """,
        """
        CREATE TABLE list_items (
            id INTEGER PRIMARY KEY,
            list_id INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            done INTEGER NOT NULL DEFAULT 0,
            added_at REAL NOT NULL,
            done_at REAL
        )
        """,
        "CREATE INDEX list_items_by_list ON list_items (list_id, done, id)",
    ),
)
"""Timers, reminders and alarms, and lists of the everyday skills (``adapters/skills/``):
timers and reminders persist so they survive a restart (and one due while ARIA was off is
announced late, never lost)."""

MEMORY_ASSOCIATIONS = Migration(
    name="memory_associations",
    statements=(
        """
        CREATE TABLE memory_associations (
            a TEXT NOT NULL,
            b TEXT NOT NULL,
            count INTEGER NOT NULL CHECK (count > 0),
            first_seen REAL NOT NULL,
            last_seen REAL NOT NULL,
            conversations TEXT NOT NULL DEFAULT '[]',
            PRIMARY KEY (a, b),
            CHECK (a < b)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX memory_associations_by_b ON memory_associations (b)",
    ),
)
"""Pairs of memories used together (one row per unordered pair, ``a < b`` by public id):
how often, first and last seen, and the conversations that saw them (a JSON list)
(``adapters/memory/associations.py``)."""

MEMORY_TIERS = Migration(
    name="memory_tiers",
    statements=(
        "ALTER TABLE memories ADD COLUMN tier TEXT NOT NULL DEFAULT 'active' "
        "CHECK (tier IN ('active', 'thread', 'stable'))",
        "ALTER TABLE memories ADD COLUMN tier_pinned INTEGER NOT NULL DEFAULT 0 "
        "CHECK (tier_pinned IN (0, 1))",
        "ALTER TABLE memories ADD COLUMN reinforced_count INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX memories_by_tier ON memories (status, tier)",
        """
        CREATE TABLE memory_tier_changes (
            seq INTEGER PRIMARY KEY,
            memory_id TEXT NOT NULL,
            from_tier TEXT,
            to_tier TEXT NOT NULL,
            reason TEXT NOT NULL,
            at REAL NOT NULL
        )
        """,
        "CREATE INDEX memory_tier_changes_by_memory ON memory_tier_changes (memory_id, seq)",
    ),
)
"""Memory tiers (``domain/memory_tiers.py``): each memory's tier, whether the user pinned it,
how often it was learned again, and the history of moves with their reasons. Existing
memories start ``active``; the next rules pass (at start) moves those their use has proven."""

MEMORY_REFLECTIONS = Migration(
    name="memory_reflections",
    statements=(
        """
        CREATE TABLE memory_reflections (
            seq INTEGER PRIMARY KEY,
            conversation_id TEXT NOT NULL,
            run_id TEXT NOT NULL,
            at REAL NOT NULL,
            loaded INTEGER NOT NULL CHECK (loaded >= 0),
            used INTEGER NOT NULL CHECK (used >= 0 AND used <= loaded),
            load_ms REAL NOT NULL CHECK (load_ms >= 0)
        )
        """,
        "CREATE INDEX memory_reflections_by_conversation ON memory_reflections "
        "(conversation_id, at)",
        "CREATE INDEX memory_reflections_by_time ON memory_reflections (at)",
    ),
)
"""Per turn, how many memories recall loaded and how many the reply used, and how long
loading took (``domain/memory_reflection.py``): counts only, never what was said."""

EPISODES = Migration(
    name="episodes",
    statements=(
        # No foreign key to conversations: an export carries episodes without conversations.
        # Deleting a conversation removes its episode and sources (core/memory/episodes.py).
        """
        CREATE TABLE episodes (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            conversation_id TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL DEFAULT '',
            summary TEXT NOT NULL CHECK (length(trim(summary)) > 0),
            started_at REAL NOT NULL,
            ended_at REAL NOT NULL,
            turns INTEGER NOT NULL DEFAULT 0,
            summarised INTEGER NOT NULL DEFAULT 0 CHECK (summarised IN (0, 1)),
            embedding_model TEXT NOT NULL DEFAULT '',
            embedding BLOB,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
        "CREATE INDEX episodes_by_time ON episodes (ended_at)",
        """
        CREATE VIRTUAL TABLE episodes_fts USING fts5(
            summary, title, content='episodes', content_rowid='seq',
            tokenize='porter unicode61 remove_diacritics 2'
        )
        """,
        """
        CREATE TRIGGER episodes_fts_insert AFTER INSERT ON episodes BEGIN
            INSERT INTO episodes_fts (rowid, summary, title)
            VALUES (new.seq, new.summary, new.title);
        END
        """,
        """
        CREATE TRIGGER episodes_fts_delete AFTER DELETE ON episodes BEGIN
            INSERT INTO episodes_fts (episodes_fts, rowid, summary, title)
            VALUES ('delete', old.seq, old.summary, old.title);
        END
        """,
        """
        CREATE TRIGGER episodes_fts_update AFTER UPDATE OF summary, title ON episodes BEGIN
            INSERT INTO episodes_fts (episodes_fts, rowid, summary, title)
            VALUES ('delete', old.seq, old.summary, old.title);
            INSERT INTO episodes_fts (rowid, summary, title)
            VALUES (new.seq, new.summary, new.title);
        END
        """,
        """
        CREATE TABLE memory_sources (
            memory_id TEXT NOT NULL,
            conversation_id TEXT NOT NULL,
            relation TEXT NOT NULL CHECK (relation IN ('extracted', 'reinforced')),
            at REAL NOT NULL,
            PRIMARY KEY (memory_id, conversation_id, relation)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX memory_sources_by_conversation ON memory_sources (conversation_id)",
        # Memories learned before sources were kept: their own conversation taught them.
        "INSERT OR IGNORE INTO memory_sources (memory_id, conversation_id, relation, at) "
        "SELECT id, conversation_id, 'extracted', created_at FROM memories "
        "WHERE conversation_id IS NOT NULL AND conversation_id != ''",
    ),
)
"""Episodes (``domain/episodes.py``): one per conversation, its summary searchable by keyword
(FTS5) and meaning (its vector), and ``memory_sources``: which conversations taught or
confirmed each memory (provenance both ways, an episode's memories through its conversation).
"""

MIGRATIONS: tuple[Migration, ...] = (
    CONVERSATIONS,
    LONG_TERM_MEMORY,
    CONVERSATION_KEYS,
    KNOWLEDGE_BASE,
    THINKING_AND_USAGE,
    KNOWLEDGE_SOURCE_STATE,
    EVERYDAY_SKILLS,
    FAILED_REPLY_REASON,
    MEMORY_ASSOCIATIONS,
    MEMORY_TIERS,
    MEMORY_REFLECTIONS,
    EPISODES,
)
"""Every migration, oldest first. Append only."""


def schema_version(conn: Connection) -> int:
    """The number of migrations applied to the database (``PRAGMA user_version``)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def check_not_too_new(version: int, migrations: Sequence[Migration] = MIGRATIONS) -> None:
    """Refuse a database written by a newer ARIA.

    Raises:
        SchemaTooNewError: ``version`` is beyond the migrations this program knows.
    """
    if version > len(migrations):
        raise SchemaTooNewError(
            f"The database has schema version {version}, but this ARIA knows only "
            f"{len(migrations)}: it was written by a newer ARIA.",
            hint="Upgrade ARIA to the newest version; this one will not touch the database.",
        )


def migrate(conn: Connection, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Bring the database up to date, one transaction per migration.

    Must run on the single writer connection (in autocommit mode, no open transaction).

    Args:
        conn: the writer connection.
        migrations: the ordered list (tests pass their own).

    Returns:
        How many migrations were applied now (0 when already current).

    Raises:
        SchemaTooNewError: the database is newer than ``migrations``; nothing was written.
        StorageError: a migration failed; the database stays at the previous version.
    """
    names = [m.name for m in migrations]
    if len(set(names)) != len(names):
        raise ValueError(f"Migration names must be unique: {names}")
    try:
        current = schema_version(conn)
    except driver_errors() as exc:
        raise storage_error(exc, "read the schema version") from exc
    check_not_too_new(current, migrations)
    applied = 0
    for index in range(current, len(migrations)):
        migration = migrations[index]
        _apply_one(conn, index, migration)
        applied += 1
    if applied:
        _LOGGER.info("Database schema migrated from version %d to %d", current, len(migrations))
    else:
        _warn_on_renamed(conn, migrations[:current])
    return applied


def _apply_one(conn: Connection, index: int, migration: Migration) -> None:
    version = index + 1
    failures: tuple[type[Exception], ...] = (*driver_errors(), RuntimeError, ValueError)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read under the write lock: with the owner lock nobody else migrates, but a
            # mistaken second writer must not apply the same step twice.
            found = schema_version(conn)
            if found != index:
                raise RuntimeError(f"schema version changed to {found} during migration")
            conn.execute(_SCHEMA_MIGRATIONS_TABLE)
            for statement in migration.statements:
                conn.execute(statement)
            if migration.apply is not None:
                migration.apply(conn)
            if not conn.in_transaction:
                raise RuntimeError("the migration ended its own transaction")
            conn.execute(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                (migration.name, time.time()),
            )
            conn.execute(f"PRAGMA user_version = {version:d}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except AriaError:
        raise
    except failures as exc:
        raise storage_error(exc, f"apply database migration {version} ({migration.name})") from exc
    _LOGGER.info("Applied database migration %d (%s)", version, migration.name)


def _warn_on_renamed(conn: Connection, expected: Sequence[Migration]) -> None:
    try:
        rows = conn.execute("SELECT name FROM schema_migrations").fetchall()
    except driver_errors():
        rows = []
    recorded = {str(row[0]) for row in rows}
    missing = [m.name for m in expected if m.name not in recorded]
    if missing:
        _LOGGER.warning("Database lacks records of migrations %s; was it restored?", missing)
