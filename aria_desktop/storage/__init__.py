"""The SQLite layer: one connection factory, the owner's database, its schema, conversations.

Public names:
    connect, load_vec, sqlite_info, SQLiteInfo, Connection: the one connection factory.
    Database: the owner's writer/reader threads with ``write``/``read``/``close``.
    Migration, MIGRATIONS, migrate, schema_version: the ordered schema steps.
    OwnerLock, OwnerInfo, read_owner, lock_path_for: one process owns the database.
    SQLiteConversationStore: ``core.ports.ConversationStore`` over ``Database``.
"""

from __future__ import annotations

from aria_desktop.storage.connection import Connection, SQLiteInfo, connect, load_vec, sqlite_info
from aria_desktop.storage.conversations import SQLiteConversationStore
from aria_desktop.storage.database import Database
from aria_desktop.storage.migrations import MIGRATIONS, Migration, migrate, schema_version
from aria_desktop.storage.owner_lock import OwnerInfo, OwnerLock, lock_path_for, read_owner

__all__ = [
    "MIGRATIONS",
    "Connection",
    "Database",
    "Migration",
    "OwnerInfo",
    "OwnerLock",
    "SQLiteConversationStore",
    "SQLiteInfo",
    "connect",
    "load_vec",
    "lock_path_for",
    "migrate",
    "read_owner",
    "schema_version",
    "sqlite_info",
]
