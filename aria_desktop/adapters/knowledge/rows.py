"""The knowledge store's transactions: a prepared file in, its rows and vectors out.

Each function runs on the owner's writer (or reader) thread inside one transaction, so a
file's row, its chunks, their FTS entries (triggers) and their vectors change together or not
at all. Bulk inserts and upserts go through sqlite-utils.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Sequence

from aria_desktop.adapters.knowledge.scan import Prepared
from aria_desktop.adapters.storage.connection import Connection, placeholders
from aria_desktop.adapters.storage.knowledge_schema import utils_db
from aria_desktop.adapters.storage.vectors import VectorIndex, VectorTable
from aria_desktop.domain.knowledge import Citation, KnowledgeFile, KnowledgeSource

__all__ = [
    "KNOWLEDGE_VECTORS",
    "delete_files",
    "known_files",
    "mark_scanned",
    "read_sources",
    "reusable_vectors",
    "source_mount",
    "write_prepared",
]

KNOWLEDGE_VECTORS = VectorTable(
    name="knowledge_vec", rows="knowledge_chunks", meta="knowledge_meta"
)
"""Where the chunks' vector index lives (the ``knowledge_base`` migration's tables)."""

_SOURCE_SQL = """
SELECT s.id, s.location, s.kind, s.watch, s.added_at, s.indexed_at,
       (SELECT count(*) FROM knowledge_files f WHERE f.source_id = s.id),
       (SELECT count(*) FROM knowledge_chunks c JOIN knowledge_files f ON f.path = c.path
         WHERE f.source_id = s.id),
       (SELECT count(*) FROM knowledge_files f WHERE f.source_id = s.id AND f.problem != ''),
       (SELECT f.problem FROM knowledge_files f WHERE f.source_id = s.id AND f.problem != ''
         ORDER BY f.indexed_at DESC LIMIT 1),
       (SELECT coalesce(sum(f.ocr_pages), 0) FROM knowledge_files f WHERE f.source_id = s.id),
       s.missing_since
FROM knowledge_sources s
"""


def read_sources(conn: Connection, source_id: int | None = None) -> list[KnowledgeSource]:
    """Every source (or one) with its counts, oldest first."""
    where, params = ("WHERE s.id = ?", (source_id,)) if source_id is not None else ("", ())
    return [
        KnowledgeSource(
            id=int(r[0]),
            location=str(r[1]),
            kind=r[2],
            watch=bool(r[3]),
            added_at=float(r[4]),
            indexed_at=None if r[5] is None else float(r[5]),
            files=int(r[6]),
            chunks=int(r[7]),
            problems=int(r[8]),
            last_error=str(r[9] or ""),
            ocr_pages=int(r[10]),
            missing_since=None if r[11] is None else float(r[11]),
        )
        for r in conn.execute(f"{_SOURCE_SQL} {where} ORDER BY s.id", params)
    ]


def read_files(conn: Connection, source_id: int) -> list[KnowledgeFile]:
    """The files of one source, by path."""
    return [
        KnowledgeFile(
            path=str(r[0]),
            source_id=source_id,
            chunks=int(r[1]),
            content_hash=str(r[2]),
            indexed_at=float(r[3]),
            problem_code=str(r[4] or ""),
            problem=str(r[5] or ""),
            ocr_pages=int(r[6]),
        )
        for r in conn.execute(
            "SELECT f.path, (SELECT count(*) FROM knowledge_chunks c WHERE c.path = f.path), "
            "f.content_hash, f.indexed_at, f.problem_code, f.problem, f.ocr_pages "
            "FROM knowledge_files f WHERE f.source_id = ? ORDER BY f.path",
            (source_id,),
        )
    ]


def source_mount(conn: Connection, source_id: int) -> str:
    """The mount point a source's file or folder was under when last found ("" never)."""
    row = conn.execute("SELECT mount FROM knowledge_sources WHERE id = ?", (source_id,)).fetchone()
    return str(row[0]) if row is not None else ""


def mark_scanned(conn: Connection, source_id: int, now: float, mount: str | None) -> None:
    """A source was brought up to date: found under ``mount``, or missing (``mount`` None)."""
    if mount is None:
        conn.execute(
            "UPDATE knowledge_sources SET indexed_at = ?, "
            "missing_since = coalesce(missing_since, ?) WHERE id = ?",
            (now, now, source_id),
        )
    else:
        conn.execute(
            "UPDATE knowledge_sources SET indexed_at = ?, missing_since = NULL, mount = ? "
            "WHERE id = ?",
            (now, mount, source_id),
        )


def known_files(conn: Connection, source_id: int) -> dict[str, tuple[int, int, str]]:
    """Path -> (size, mtime_ns, content hash) of a source's indexed files."""
    return {
        str(r[0]): (int(r[1]), int(r[2]), str(r[3]))
        for r in conn.execute(
            "SELECT path, size, mtime_ns, content_hash FROM knowledge_files WHERE source_id = ?",
            (source_id,),
        )
    }


def reusable_vectors(conn: Connection, hashes: Sequence[str], model: str) -> dict[str, bytes]:
    """Chunk hash -> a current-model vector already stored for a chunk with that hash."""
    found: dict[str, bytes] = {}
    unique = list(dict.fromkeys(hashes))
    for start in range(0, len(unique), 500):
        part = unique[start : start + 500]
        for chunk_hash, vector in conn.execute(
            "SELECT chunk_hash, embedding FROM knowledge_chunks WHERE chunk_hash IN "
            f"({placeholders(len(part))}) AND embedding_model = ? AND embedding IS NOT NULL",
            (*part, model),
        ):
            found[str(chunk_hash)] = bytes(vector)
    return found


def delete_files(conn: Connection, paths: Sequence[str], index: VectorIndex | None) -> int:
    """Remove files, their chunks and vectors; returns the chunks removed."""
    removed = 0
    for path in paths:
        seqs = [
            int(r[0])
            for r in conn.execute("SELECT seq FROM knowledge_chunks WHERE path = ?", (path,))
        ]
        if index is not None:
            for seq in seqs:
                index.remove(conn, seq)
        conn.execute("DELETE FROM knowledge_chunks WHERE path = ?", (path,))
        conn.execute("DELETE FROM knowledge_files WHERE path = ?", (path,))
        removed += len(seqs)
    if index is not None:
        index.size = max(0, index.size - removed)
    return removed


def write_prepared(
    conn: Connection,
    source_id: int,
    files: Sequence[Prepared],
    vectors: dict[str, bytes],
    index: VectorIndex | None,
    model: str,
) -> tuple[int, int]:
    """Replace each file's row and chunks; returns (chunks written, chunks removed)."""
    db = utils_db(conn)
    now = time.time()
    written = 0
    removed = delete_files(conn, [p.stat.path for p in files], index)
    db["knowledge_files"].upsert_all(
        [
            {
                "path": p.stat.path,
                "source_id": source_id,
                "size": p.stat.size,
                "mtime_ns": p.stat.mtime_ns,
                "content_hash": p.content_hash,
                "title": p.title,
                "indexed_at": now,
                "problem_code": p.problem_code,
                "problem": p.problem,
                "ocr_pages": p.ocr_pages,
            }
            for p in files
        ],
        pk="path",
    )
    rows = [
        {
            "path": p.stat.path,
            "ordinal": ordinal,
            "chunk_hash": chunk.hash,
            "text": chunk.text,
            "heading": chunk.heading,
            "page": chunk.page,
            "char_start": chunk.start,
            "char_end": chunk.end,
            "embedding": vectors.get(chunk.hash),
            "embedding_model": model if chunk.hash in vectors else "",
        }
        for p in files
        for ordinal, chunk in enumerate(p.chunks)
    ]
    if rows:
        db["knowledge_chunks"].insert_all(rows, batch_size=200)
        written = len(rows)
        if index is not None:
            paths = list(dict.fromkeys(p.stat.path for p in files if p.chunks))
            for start in range(0, len(paths), 500):
                part = paths[start : start + 500]
                for seq, vector in conn.execute(
                    "SELECT seq, embedding FROM knowledge_chunks WHERE path IN "
                    f"({placeholders(len(part))}) AND embedding IS NOT NULL",
                    part,
                ):
                    index.insert(conn, int(seq), "active", bytes(vector))
            index.size += written
    return written, removed


def save_citations(
    conn: Connection, conversation_id: str, key: str, citations: Sequence[Citation], now: float
) -> None:
    """Keep the citations an answer was given."""
    encoded = json.dumps([dataclasses.asdict(c) for c in citations])
    utils_db(conn)["knowledge_citations"].insert(
        {
            "conversation_id": conversation_id,
            "answer_key": key,
            "citations": encoded,
            "created_at": now,
        }
    )


def read_citations(conn: Connection, conversation_id: str) -> dict[str, list[Citation]]:
    """Answer key -> the citations that answer was given, for one conversation."""
    found: dict[str, list[Citation]] = {}
    for key, encoded in conn.execute(
        "SELECT answer_key, citations FROM knowledge_citations WHERE conversation_id = ? "
        "ORDER BY id",
        (conversation_id,),
    ):
        found[str(key)] = [Citation(**item) for item in json.loads(encoded)]
    return found


def touch_files(conn: Connection, files: Sequence[Prepared]) -> None:
    """Record the new size and time of files whose content did not change."""
    conn.executemany(
        "UPDATE knowledge_files SET size = ?, mtime_ns = ? WHERE path = ?",
        [(p.stat.size, p.stat.mtime_ns, p.stat.path) for p in files],
    )


_EXTRACTION_KEY = "extraction_version"


def outdated_extraction(conn: Connection, version: int) -> bool:
    """Whether indexed passages were made by another extraction version than ``version``.

    A store without passages is never outdated (its version is recorded as ``version``).
    """
    row = conn.execute("SELECT value FROM knowledge_meta WHERE key = ?", (_EXTRACTION_KEY,))
    found = row.fetchone()
    if found is not None and found[0] == str(version):
        return False
    if conn.execute("SELECT 1 FROM knowledge_chunks LIMIT 1").fetchone() is None:
        record_extraction(conn, version)
        return False
    return True


def record_extraction(conn: Connection, version: int) -> None:
    """Record that every indexed passage was made by extraction ``version``."""
    conn.execute(
        "INSERT INTO knowledge_meta (key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (_EXTRACTION_KEY, str(version)),
    )
