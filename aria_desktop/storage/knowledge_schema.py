"""The knowledge base's tables, created by the ``knowledge_base`` migration with sqlite-utils.

Layout (in the owner's one database file, written only by the owner's writer; see
``aria_desktop/ARCHITECTURE.md``, owner):

* ``knowledge_sources`` — what the user added: a file, a folder (maybe watched) or a URL;
* ``knowledge_files`` — one row per indexed file or fetched URL, keyed by its path, with the
  size and modification time that make an unchanged-file rescan cheap, its content hash and its
  problem (malformed, encrypted, scanned page ...) if any;
* ``knowledge_chunks`` — the chunks (source of truth): text, heading path, page, character
  offsets, the chunk's hash and its unit vector (``seq`` is the rowid shared with the indexes);
* ``knowledge_chunks_fts`` — FTS5 over text and heading path, external content, kept in sync by
  triggers; ``knowledge_vec`` (sqlite-vec, created at run time for the embedder's dimension by
  ``storage.vectors.VectorIndex``) with its model recorded in ``knowledge_meta``.

sqlite-utils builds the tables and the FTS index here (its statements run inside the
migration's transaction: it uses savepoints when one is open) and does the bulk upserts of
the knowledge store.
"""

from __future__ import annotations

from typing import Any

from aria_desktop.storage.connection import Connection

__all__ = ["create_knowledge_tables", "utils_db"]


def utils_db(conn: Connection) -> Any:
    """A ``sqlite_utils.Database`` over ``conn`` that changes none of its settings.

    No recursive-trigger pragma and no plugins: the connection is the owner's writer (or
    reader), shared with the other stores.
    """
    import sqlite_utils

    return sqlite_utils.Database(conn, recursive_triggers=False, execute_plugins=False)


def create_knowledge_tables(conn: Connection) -> None:
    """The ``knowledge_base`` migration's step: tables, indexes, FTS5 and its triggers."""
    db = utils_db(conn)
    db["knowledge_sources"].create(
        {
            "id": int,
            "location": str,
            "kind": str,
            "watch": int,
            "added_at": float,
            "indexed_at": float,
        },
        pk="id",
        not_null={"location", "kind", "watch", "added_at"},
        defaults={"watch": 0},
    )
    db["knowledge_sources"].create_index(["location"], unique=True)
    db["knowledge_files"].create(
        {
            "path": str,
            "source_id": int,
            "size": int,
            "mtime_ns": int,
            "content_hash": str,
            "title": str,
            "indexed_at": float,
            "problem_code": str,
            "problem": str,
        },
        pk="path",
        foreign_keys=[("source_id", "knowledge_sources", "id")],
        not_null={"source_id", "size", "mtime_ns", "content_hash", "indexed_at"},
        defaults={"title": "", "problem_code": "", "problem": ""},
    )
    db["knowledge_files"].create_index(["source_id"])
    db["knowledge_chunks"].create(
        {
            "seq": int,
            "path": str,
            "ordinal": int,
            "chunk_hash": str,
            "text": str,
            "heading": str,
            "page": int,
            "char_start": int,
            "char_end": int,
            "embedding": bytes,
            "embedding_model": str,
        },
        pk="seq",
        foreign_keys=[("path", "knowledge_files", "path")],
        not_null={"path", "ordinal", "chunk_hash", "text", "heading", "char_start", "char_end"},
        defaults={"heading": "", "embedding_model": ""},
    )
    db["knowledge_chunks"].create_index(["path", "ordinal"])
    db["knowledge_chunks"].create_index(["chunk_hash"])
    db["knowledge_chunks"].enable_fts(["text", "heading"], create_triggers=True, tokenize="porter")
    db["knowledge_meta"].create({"key": str, "value": str}, pk="key", not_null={"value"})
