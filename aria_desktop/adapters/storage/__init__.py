"""The SQLite layer: the owner's database, its schema, conversations, hybrid-search parts.

It owns the one connection factory, the owner's database with its writer and reader threads,
the migrations (the knowledge tables in ``knowledge_schema``), the owner lock, the conversation
store, the usage ledger, the audit log's file, answers kept until a write (``kept_answer``) and
the hybrid-search machinery every FTS5 + sqlite-vec store shares (``text``, ``vectors``,
``fusion``, the ``Embedder`` protocol), on which ``adapters.memory`` and ``adapters.knowledge``
build. It imports no other adapter; each public name is importable from here and loaded from
its module on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aria_desktop.adapters.storage.connection import (
        Connection,
        SQLiteInfo,
        connect,
        load_vec,
        sqlite_info,
    )
    from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.adapters.storage.fusion import RRF_K, Fused, Prior, fuse
    from aria_desktop.adapters.storage.migrations import (
        MIGRATIONS,
        Migration,
        migrate,
        schema_version,
    )
    from aria_desktop.adapters.storage.owner_lock import (
        OwnerInfo,
        OwnerLock,
        lock_path_for,
        read_owner,
    )
    from aria_desktop.adapters.storage.text import (
        content_hash,
        fts_query,
        normalize_content,
        query_terms,
        term_coverage,
    )
    from aria_desktop.adapters.storage.usage import SQLiteUsageLedger
    from aria_desktop.adapters.storage.vectors import VectorIndex, VectorTable, cosine_from_l2

__all__ = [
    "MIGRATIONS",
    "RRF_K",
    "Connection",
    "Database",
    "Fused",
    "Migration",
    "OwnerInfo",
    "OwnerLock",
    "Prior",
    "SQLiteConversationStore",
    "SQLiteInfo",
    "SQLiteUsageLedger",
    "VectorIndex",
    "VectorTable",
    "connect",
    "content_hash",
    "cosine_from_l2",
    "fts_query",
    "fuse",
    "load_vec",
    "lock_path_for",
    "migrate",
    "normalize_content",
    "query_terms",
    "read_owner",
    "schema_version",
    "sqlite_info",
    "term_coverage",
]

# Each public name is imported from its module on first use (PEP 562), not here: a CLI
# command that only reads the owner lock (``storage.owner_lock``) must not import the
# conversation store, the database threads and the migrations with it
# (ARCHITECTURE.md: start-up cost).
_MODULE_OF = {
    "Connection": "connection",
    "SQLiteInfo": "connection",
    "connect": "connection",
    "load_vec": "connection",
    "sqlite_info": "connection",
    "SQLiteConversationStore": "conversations",
    "SQLiteUsageLedger": "usage",
    "Database": "database",
    "RRF_K": "fusion",
    "Fused": "fusion",
    "Prior": "fusion",
    "fuse": "fusion",
    "MIGRATIONS": "migrations",
    "Migration": "migrations",
    "migrate": "migrations",
    "schema_version": "migrations",
    "OwnerInfo": "owner_lock",
    "OwnerLock": "owner_lock",
    "lock_path_for": "owner_lock",
    "read_owner": "owner_lock",
    "content_hash": "text",
    "fts_query": "text",
    "normalize_content": "text",
    "query_terms": "text",
    "term_coverage": "text",
    "VectorIndex": "vectors",
    "VectorTable": "vectors",
    "cosine_from_l2": "vectors",
}


def __getattr__(name: str) -> object:
    """A public name, imported from its module the first time it is asked for.

    Raises:
        AttributeError: ``name`` is not one of the package's public names.
    """
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    """The public names, as ``dir()`` showed them when they were imported eagerly."""
    return sorted({*globals(), *__all__})
