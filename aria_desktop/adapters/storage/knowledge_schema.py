"""The knowledge base's tables, created by the ``knowledge_base`` migration with sqlite-utils.

Layout (in the owner's one database file, written only by the owner's writer; see
``aria_desktop/ARCHITECTURE.md``, owner):

* ``knowledge_sources`` — what the user added: a file, a folder (maybe watched) or a URL;
  since the ``knowledge_source_state`` migration also when it was found missing and the mount
  point it was last found under;
* ``knowledge_files`` — one row per indexed file or fetched URL, keyed by its path, with the
  size and modification time that make an unchanged-file rescan cheap, its content hash, its
  problem (malformed, encrypted, unread scanned page ...) if any and (since
  ``knowledge_source_state``) how many of its pages were read by OCR;
* ``knowledge_chunks`` — the chunks (source of truth): text, heading path, page, character
  offsets, the chunk's hash and its unit vector (``seq`` is the rowid shared with the indexes);
* ``knowledge_citations`` — the numbered sources an answer was given, by conversation and the
  answer's text (a reopened conversation links and checks them again);
* ``knowledge_chunks_fts`` — FTS5 over text and heading path, external content, kept in sync by
  triggers; ``knowledge_vec`` (sqlite-vec, created at run time for the embedder's dimension by
  ``storage.vectors.VectorIndex``) with its model recorded in ``knowledge_meta``.

sqlite-utils builds the tables and the FTS index here (its statements run inside the
migration's transaction: it uses savepoints when one is open) and does the bulk upserts of
the knowledge store.
"""

from __future__ import annotations

from typing import Any

from aria_desktop.adapters.storage.connection import Connection

__all__ = ["create_knowledge_tables", "utils_db"]


def utils_db(conn: Connection) -> Any:
    """A ``sqlite_utils.Database`` over ``conn`` that changes none of its settings.

    No recursive-trigger pragma and no plugins: the connection is the owner's writer (or
    reader), shared with the other stores.
    """
    import sqlite_utils

    return sqlite_utils.Database(conn, recursive_triggers=False, execute_plugins=False)


_TYPES: dict[str, type[Any]] = {"int": int, "float": float, "str": str, "bytes": bytes}


def _columns(spec: str) -> dict[str, type[Any]]:
    """``"name type, ..."`` as sqlite-utils' column mapping (one line per table here)."""
    return {name: _TYPES[kind] for name, kind in (item.split() for item in spec.split(","))}


_TABLES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    (
        "knowledge_sources",
        "id int, location str, kind str, watch int, added_at float, indexed_at float",
        {
            "pk": "id",
            "not_null": {"location", "kind", "watch", "added_at"},
            "defaults": {"watch": 0},
        },
    ),
    (
        "knowledge_files",
        "path str, source_id int, size int, mtime_ns int, content_hash str, title str, "
        "indexed_at float, problem_code str, problem str",
        {
            "pk": "path",
            "foreign_keys": [("source_id", "knowledge_sources", "id")],
            "not_null": {"source_id", "size", "mtime_ns", "content_hash", "indexed_at"},
            "defaults": {"title": "", "problem_code": "", "problem": ""},
        },
    ),
    (
        "knowledge_chunks",
        "seq int, path str, ordinal int, chunk_hash str, text str, heading str, page int, "
        "char_start int, char_end int, embedding bytes, embedding_model str",
        {
            "pk": "seq",
            "foreign_keys": [("path", "knowledge_files", "path")],
            "not_null": {"path", "ordinal", "chunk_hash", "text", "heading", "char_start"},
            "defaults": {"heading": "", "embedding_model": ""},
        },
    ),
    ("knowledge_meta", "key str, value str", {"pk": "key", "not_null": {"value"}}),
    (
        "knowledge_citations",
        "id int, conversation_id str, answer_key str, citations str, created_at float",
        {"pk": "id", "not_null": {"conversation_id", "answer_key", "citations", "created_at"}},
    ),
)
"""Each table: name, columns, and sqlite-utils' ``create`` options."""
_INDEXES = (
    ("knowledge_sources", ["location"], True),
    ("knowledge_files", ["source_id"], False),
    ("knowledge_chunks", ["path", "ordinal"], False),
    ("knowledge_chunks", ["chunk_hash"], False),
    ("knowledge_citations", ["conversation_id", "answer_key"], False),
)


def create_knowledge_tables(conn: Connection) -> None:
    """The ``knowledge_base`` migration's step: tables, indexes, FTS5 and its triggers."""
    db = utils_db(conn)
    for name, columns, options in _TABLES:
        db[name].create(_columns(columns), **options)
    for name, indexed, unique in _INDEXES:
        db[name].create_index(indexed, unique=unique)
    db["knowledge_chunks"].enable_fts(["text", "heading"], create_triggers=True, tokenize="porter")
