"""Long-term memories in SQLite: the memory lifecycle over rows and two derived indexes.

Satisfies ``core.ports.MemoryStore`` structurally (this package may not import core).

Layout (all in the conversations' database file, see ``aria_desktop/ARCHITECTURE.md``):

* ``memories`` — the rows (source of truth), each with its unit float32 vector (``embedding``)
  and the model that made it (:mod:`aria_desktop.adapters.memory.rows`).
* ``memories_fts`` — FTS5 over ``content`` and ``subject`` with external content, kept in sync by
  triggers, so a row and its keyword entry are written by the same statement.
* ``memory_vec`` — the sqlite-vec index keyed by the row's ``seq``
  (:mod:`aria_desktop.adapters.storage.vectors`, managed by
  :mod:`aria_desktop.adapters.memory.indexes`).
* ``memory_candidates`` — the inbox (:mod:`aria_desktop.adapters.memory.inbox`).

A memory is written in ONE transaction (row + FTS via trigger + vec0 row): a crash or an error
anywhere leaves it fully present or absent. Both derived indexes can be rebuilt from the rows
(:meth:`SQLiteMemoryStore.reindex`). The statements of one memory's write (add, reinforce,
supersede) live in :mod:`aria_desktop.adapters.memory.lifecycle`; search is hybrid
(:mod:`aria_desktop.adapters.memory.search`); export and import live in
:mod:`aria_desktop.adapters.memory.transfer`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from aria_desktop.adapters.memory import associations, episode_transfer, reflection, rows, tiers
from aria_desktop.adapters.memory.inbox import MemoryInbox
from aria_desktop.adapters.memory.indexes import Embedder, MemoryIndexes
from aria_desktop.adapters.memory.lifecycle import any_active, memory_at, touch, write_memory
from aria_desktop.adapters.memory.search import memory_filters, search_memories
from aria_desktop.adapters.memory.transfer import (
    ImportReport,
    export_all,
    import_missing,
    parse_lines,
)
from aria_desktop.adapters.storage.connection import Connection, placeholders
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.fusion import DAY_S
from aria_desktop.adapters.storage.kept_answer import KeptAnswer
from aria_desktop.adapters.storage.text import content_hash
from aria_desktop.adapters.storage.vectors import EXACT_KNN_LIMIT, cosine_from_l2
from aria_desktop.domain import memory as mem
from aria_desktop.domain.memory_reflection import TurnReflection
from aria_desktop.domain.memory_tiers import MemoryTierChange

__all__ = ["Embedder", "ImportReport", "SQLiteMemoryStore"]


class SQLiteMemoryStore:
    """Memories over the owner's :class:`Database`.

    Call :meth:`open` once before use (it prepares the vector index for the embedder), and
    :meth:`sync_vectors` (in the background) to give vectors to rows that lack them.
    """

    def __init__(
        self,
        db: Database,
        embedder: Embedder | None,
        *,
        clock: Callable[[], float] = time.time,
        exact_knn_limit: int = EXACT_KNN_LIMIT,
    ) -> None:
        """Bind to ``db``; ``embedder`` None means keyword search only."""
        self._db = db
        self._embedder = embedder
        self._clock = clock
        self._indexes = MemoryIndexes(db, embedder, exact_limit=exact_knn_limit)
        self._inbox = MemoryInbox(db, clock=clock)
        # Asked before every turn: kept until a write here that may change it (all but touch).
        self._any_active = KeptAnswer(db, any_active)

    # --- state ----------------------------------------------------------------------------

    @property
    def vector_search_available(self) -> bool:
        """Whether searches use the vector leg (embedder + sqlite-vec + index ready)."""
        return self._indexes.vectors is not None

    async def open(self) -> int:
        """Prepare the vector index for the configured embedder.

        Creates ``memory_vec`` for the embedder's dimension, or drops and recreates it when the
        model changed since the vectors were made. Without an embedder, sqlite-vec or a
        reachable model, search stays keyword-only and :attr:`vector_status` says why.

        Returns:
            How many memories lack a vector from the current model (fix with
            :meth:`sync_vectors`).
        """
        return await self._indexes.open()

    @property
    def vector_status(self) -> str:
        """Why vector search is off, or what it uses when on (for doctor and capabilities)."""
        return self._indexes.status

    async def sync_vectors(self, *, batch: int = 256) -> int:
        """Give a current-model vector to every memory lacking one (drift repair).

        Runs in batches (one transaction each), so it can run in the background while ARIA
        is used; a row edited meanwhile is skipped and picked up next time.

        Returns:
            How many vectors were written.
        """
        return await self._indexes.sync(batch=batch)

    @property
    def embedding_model(self) -> str:
        """Model id vectors are made with ("" without an embedder)."""
        return self._indexes.model_id

    async def embed(self, texts: Sequence[str]) -> list[bytes] | None:
        """Unit vectors of ``texts`` by the memory embedder (None: vector search is off)."""
        return await self._indexes.embed(texts)

    async def reindex(self) -> tuple[int, int]:
        """Rebuild the keyword index and all vectors from the rows.

        Returns:
            (rows in the keyword index, vectors written).
        """
        return await self._indexes.rebuild()

    async def check_consistency(self) -> dict[str, int]:
        """Counts that must agree for a healthy index (tests, doctor): rows, FTS, vectors."""
        return await self._indexes.consistency()

    # --- writing ----------------------------------------------------------------------------

    async def add(self, draft: mem.MemoryDraft) -> tuple[mem.Memory, mem.MemoryAction]:
        """Remember ``draft``, or reinforce the memory it duplicates, or supersede one.

        * Same content hash as an active memory, or cosine >= 0.9 to one: that memory is
          reinforced (confidence and importance raised, ``updated_at`` bumped); nothing new.
        * Otherwise, if ``draft.supersedes`` names an active memory about the same subject, or
          an active memory has the same subject and topic: the new memory replaces it (the old
          one is marked ``superseded`` and linked both ways).
        * Otherwise it is added.

        Returns:
            The stored (new or reinforced) memory and what happened.

        Raises:
            MemoryInvalidError: empty or too long content, unknown kind, bad 0-1 values.
        """
        return await self._write_new(rows.check_draft(draft))

    async def _write_new(
        self, item: rows.PendingRow, *, first: Callable[[Connection], object] | None = None
    ) -> tuple[mem.Memory, mem.MemoryAction]:
        """Embed ``item`` and write it by the lifecycle rules (see :meth:`add`).

        ``first`` runs in the same transaction, before the write (an approved inbox entry
        leaves the inbox).
        """
        vectors = await self._indexes.embed([item.content])
        if vectors is not None:
            item = dataclasses.replace(item, vector=vectors[0])
        now = self._clock()

        def tx(conn: Connection) -> tuple[mem.Memory, mem.MemoryAction]:
            if first is not None:
                first(conn)
            return self._write(conn, item, now, dedupe=True)

        result = await self._any_active.write(tx)
        if result[1] != "reinforced" and item.vector is not None:
            self._indexes.count_written(1)
        return result

    async def add_many(
        self,
        drafts: Iterable[mem.MemoryDraft],
        *,
        vectors: Iterable[bytes] | None = None,
        dedupe: bool = True,
        batch: int = 500,
    ) -> int:
        """Add many memories, ``batch`` per transaction (bulk loads, benchmarks).

        Each draft is checked as by :meth:`add`. ``vectors``, when a bulk load has them, are
        the drafts' unit float32 embeddings in the same order, used instead of embedding the
        content (one of the wrong dimension is dropped and the content embedded).

        Returns:
            How many new memories were written (reinforcements not counted).
        """
        pairs: Iterable[tuple[mem.MemoryDraft, bytes | None]] = (
            zip(drafts, vectors, strict=True)
            if vectors is not None
            else ((draft, None) for draft in drafts)
        )
        written = 0
        chunk: list[rows.PendingRow] = []
        for draft, vector in pairs:
            chunk.append(self._bulk_item(draft, vector))
            if len(chunk) >= batch:
                written += await self._write_chunk(chunk, dedupe=dedupe)
                chunk = []
        if chunk:
            written += await self._write_chunk(chunk, dedupe=dedupe)
        return written

    def _bulk_item(self, draft: mem.MemoryDraft, vector: bytes | None) -> rows.PendingRow:
        """One :meth:`add_many` item, checked; a vector of the wrong dimension is dropped."""
        index = self._indexes.vectors
        if vector is not None and (index is None or not index.fits(vector)):
            vector = None
        return dataclasses.replace(rows.check_draft(draft), vector=vector)

    async def _write_chunk(self, chunk: list[rows.PendingRow], *, dedupe: bool) -> int:
        """Embed the items lacking a vector and write the chunk in one transaction."""
        missing = [i for i, item in enumerate(chunk) if item.vector is None]
        if missing:
            vectors = await self._indexes.embed([chunk[i].content for i in missing])
            if vectors is not None:
                for i, vector in zip(missing, vectors, strict=True):
                    chunk[i] = dataclasses.replace(chunk[i], vector=vector)
        now = self._clock()

        def tx(conn: Connection) -> int:
            actions = [self._write(conn, item, now, dedupe=dedupe)[1] for item in chunk]
            return sum(1 for action in actions if action != "reinforced")

        added = await self._any_active.write(tx)
        self._indexes.count_written(sum(1 for item in chunk if item.vector is not None))
        return added

    def _write(
        self, conn: Connection, item: rows.PendingRow, now: float, *, dedupe: bool
    ) -> tuple[mem.Memory, mem.MemoryAction]:
        """Write ``item`` inside the transaction ``conn`` (``lifecycle.write_memory``)."""
        return write_memory(conn, item, now, indexes=self._indexes, dedupe=dedupe)

    async def update(self, memory_id: str, edit: mem.MemoryEdit) -> mem.Memory:
        """Correct a memory in place (same id); its keyword entry and vector follow.

        Raises:
            NotFoundError: no memory has this id.
            MemoryInvalidError: the new values are not acceptable.
        """
        current = await self.get(memory_id)
        if current is None:
            raise rows.memory_not_found(memory_id)
        text, new_kind, new_subject = rows.check_fields(
            current.content if edit.content is None else edit.content,
            current.kind if edit.kind is None else edit.kind,
            current.subject if edit.subject is None else edit.subject,
        )
        new_importance = (
            current.importance
            if edit.importance is None
            else rows.clamp01(edit.importance, "importance")
        )
        if edit.tier is not None:
            tiers.check_tier(edit.tier)
        vector: bytes | None = None
        if text != current.content:
            vectors = await self._indexes.embed([text])
            vector = vectors[0] if vectors is not None else None
        now = self._clock()

        def tx(conn: Connection) -> mem.Memory:
            row = conn.execute("SELECT seq, content FROM memories WHERE id = ?", (memory_id,))
            found = row.fetchone()
            if found is None:
                raise rows.memory_not_found(memory_id)
            seq, old_text = int(found[0]), str(found[1])
            conn.execute(
                "UPDATE memories SET content = ?, content_hash = ?, kind = ?, subject = ?, "
                "importance = ?, updated_at = ? WHERE seq = ?",
                (text, content_hash(text), new_kind, new_subject, new_importance, now, seq),
            )
            if text != old_text:
                self._replace_vector(conn, seq, vector)
            tiers.pin_tier(conn, current, edit.tier, edit.tier_pinned, now)
            return memory_at(conn, seq)

        return await self._any_active.write(tx)

    def _replace_vector(self, conn: Connection, seq: int, vector: bytes | None) -> None:
        """Give row ``seq`` its new text's vector (or none: it waits for a sync)."""
        index = self._indexes.vectors
        if index is not None:
            index.remove(conn, seq)
            if vector is not None:
                status = conn.execute("SELECT status FROM memories WHERE seq = ?", (seq,))
                index.insert(conn, seq, str(status.fetchone()[0]), vector)
        conn.execute(
            "UPDATE memories SET embedding = ?, embedding_model = ? WHERE seq = ?",
            (vector, self.embedding_model if vector is not None else "", seq),
        )

    async def forget(self, memory_id: str) -> mem.Memory:
        """Mark a memory ``forgotten``: no search finds it unless asked for forgotten ones.

        Raises:
            NotFoundError: no memory has this id.
        """
        now = self._clock()

        def tx(conn: Connection) -> mem.Memory:
            found = conn.execute("SELECT seq FROM memories WHERE id = ?", (memory_id,)).fetchone()
            if found is None:
                raise rows.memory_not_found(memory_id)
            seq = int(found[0])
            conn.execute(
                "UPDATE memories SET status = 'forgotten', updated_at = ? WHERE seq = ?",
                (now, seq),
            )
            index = self._indexes.vectors
            if index is not None:
                index.set_status(conn, seq, "forgotten")
            return memory_at(conn, seq)

        return await self._any_active.write(tx)

    async def decay(
        self, *, after_days: float, per_day: float, floor: float, now: float | None = None
    ) -> int:
        """Lower the confidence of unused memories, then move every memory to its tier.

        Decay touches active memories never accessed for ``after_days``; the tier rules
        (``domain/memory_tiers.py``) then move each memory its use or disuse calls for.

        Confidence falls by ``per_day`` for each day past ``after_days`` since the memory was
        made (or since the last decay run), never below ``floor``. Idempotent over time: two
        runs on the same day lower it once.

        Returns:
            How many memories decayed.
        """
        at = self._clock() if now is None else now
        after_s = after_days * DAY_S

        def tx(conn: Connection) -> int:
            cursor = conn.execute(
                "UPDATE memories SET confidence = max(?1, confidence - ?2 * "
                "((?3 - max(coalesce(decayed_at, 0), created_at + ?4)) / ?5)), decayed_at = ?3 "
                "WHERE status = 'active' AND access_count = 0 AND created_at + ?4 < ?3 "
                "AND confidence > ?1",
                (floor, per_day, at, after_s, DAY_S),
            )
            tiers.apply_tier_rules(conn, at)
            return int(cursor.rowcount)

        return await self._any_active.write(tx)

    # --- reading ----------------------------------------------------------------------------

    async def get(self, memory_id: str) -> mem.Memory | None:
        """One memory by id (any status), or None."""

        def read(conn: Connection) -> mem.Memory | None:
            row = conn.execute(
                f"SELECT {rows.MEMORY_COLUMNS} FROM memories WHERE id = ?", (memory_id,)
            ).fetchone()
            return rows.row_to_memory(row) if row is not None else None

        return await self._db.read(read)

    async def list_memories(
        self, which: mem.MemoryFilter = mem.ACTIVE_MEMORIES
    ) -> list[mem.Memory]:
        """Memories newest first, filtered."""
        where, params = memory_filters(
            which.kinds, which.subject, which.statuses, None, None, which.tiers
        )

        def read(conn: Connection) -> list[mem.Memory]:
            found = conn.execute(
                f"SELECT {rows.MEMORY_COLUMNS} FROM memories AS m WHERE {where} "
                "ORDER BY m.created_at DESC, m.seq DESC LIMIT ? OFFSET ?",
                (*params, max(0, which.limit), max(0, which.offset)),
            ).fetchall()
            return [rows.row_to_memory(row) for row in found]

        return await self._db.read(read)

    async def count(self, statuses: Sequence[str] = ("active",)) -> int:
        """How many memories have one of ``statuses``."""
        where, params = memory_filters((), None, statuses, None, None)

        def read(conn: Connection) -> int:
            sql = f"SELECT count(*) FROM memories AS m WHERE {where}"
            return int(conn.execute(sql, params).fetchone()[0])

        return await self._db.read(read)

    async def nearest(self, vector: bytes, k: int = 10) -> list[tuple[str, float]]:
        """The vector leg alone: ids of the ``k`` active memories nearest to ``vector``.

        Returns ``(memory id, cosine similarity)``, most similar first (benchmarks, diagnosis).
        """
        index = self._indexes.vectors
        if index is None:
            return []

        def read(conn: Connection) -> list[tuple[str, float]]:
            near = index.nearest(conn, vector, k, status="active")
            if not near:
                return []
            seqs = [seq for seq, _ in near]
            ids = dict(
                conn.execute(
                    f"SELECT seq, id FROM memories WHERE seq IN ({placeholders(len(seqs))})", seqs
                ).fetchall()
            )
            return [(str(ids[seq]), cosine_from_l2(d)) for seq, d in near if seq in ids]

        return await self._db.read(read)

    async def has_active(self) -> bool:
        """Whether any active memory exists (lets recall skip embedding on an empty store)."""
        return await self._any_active.get()

    async def touch(self, ids: Sequence[str]) -> None:
        """Record that these memories were used now (access count, last-accessed time)."""
        if ids:
            now = self._clock()
            await self._db.write(lambda conn: touch(conn, ids, now))

    async def search(self, query: mem.MemoryQuery) -> list[mem.MemoryHit]:
        """Hybrid search (:mod:`aria_desktop.adapters.memory.search`); updates access statistics."""
        if query.limit <= 0:
            return []
        vector: bytes | None = None
        if query.mode != "lexical" and query.text.strip():
            vectors = await self._indexes.embed([query.text])
            vector = vectors[0] if vectors is not None else None
        now = self._clock()
        index = self._indexes.vectors

        def read(conn: Connection) -> list[mem.MemoryHit]:
            found = search_memories(conn, query, vector, now, index)
            return found + associations.associated_hits(conn, found, query.associates)

        hits = await self._db.read(read)
        if query.touch and hits:
            ids = [hit.memory.id for hit in hits]
            await self._db.write(lambda conn: touch(conn, ids, now))
        return hits

    # --- associations -----------------------------------------------------------------------

    async def associate(self, ids: Sequence[str], conversation_id: str | None = None) -> int:
        """Count one co-use of every pair of ``ids``; returns how many pairs were counted."""
        pairs = associations.all_pairs(ids)
        if not pairs:
            return 0
        now = self._clock()
        return await self._db.write(
            lambda conn: associations.record(conn, pairs, conversation_id, now)
        )

    async def associate_in_conversation(
        self, ids: Sequence[str], conversation_id: str, *, earlier: int = 10
    ) -> int:
        """Pair new memories with each other and with the latest ``earlier`` active ones.

        The earlier ones are those learned in the same conversation. Returns how many pairs
        were counted.
        """
        if not ids:
            return 0
        now = self._clock()

        def tx(conn: Connection) -> int:
            found = conn.execute(
                f"SELECT id FROM memories WHERE conversation_id = ? AND status = 'active' "
                f"AND id NOT IN ({placeholders(len(ids))}) ORDER BY created_at DESC LIMIT ?",
                (conversation_id, *ids, earlier),
            ).fetchall()
            pairs = associations.pairs_with(ids, [str(r[0]) for r in found])
            return associations.record(conn, pairs, conversation_id, now)

        return await self._db.write(tx)

    async def associations(self, memory_id: str, limit: int = 10) -> list[mem.MemoryAssociation]:
        """A memory's associations with active memories, strongest first."""
        return await self._db.read(
            lambda conn: associations.associations_of(conn, memory_id, limit)
        )

    # --- tiers ------------------------------------------------------------------------------

    async def tier_changes(self, memory_id: str) -> list[MemoryTierChange]:
        """A memory's tier history, oldest first (``adapters/memory/tiers.py``)."""
        return await self._db.read(lambda conn: tiers.tier_history(conn, memory_id))

    async def bootstrap(self, budget_chars: int) -> list[mem.Memory]:
        """What a conversation starts with: stable, then thread memories, within the budget."""
        return await self._db.read(lambda conn: tiers.bootstrap_memories(conn, budget_chars))

    # --- reflection -------------------------------------------------------------------------

    async def record_reflection(self, turn: TurnReflection) -> None:
        """Keep how many memories a turn loaded and used (``adapters/memory/reflection.py``)."""
        await self._db.write(lambda conn: reflection.record_turn(conn, turn))

    async def reflection_turns(self, conversations: int) -> list[TurnReflection]:
        """The reflections of the latest ``conversations`` conversations, oldest first."""
        return await self._db.read(lambda conn: reflection.latest_turns(conn, conversations))

    # --- inbox ------------------------------------------------------------------------------

    async def add_candidate(self, draft: mem.MemoryDraft) -> mem.MemoryCandidate | None:
        """Put a proposed memory in the inbox; None when it is already there or remembered.

        Checked as by :meth:`add`; its provenance is ``conversation`` whatever the draft says
        (the inbox holds what extraction proposed).
        """
        return await self._inbox.propose(rows.check_draft(draft, provenance="conversation"))

    async def list_candidates(self) -> list[mem.MemoryCandidate]:
        """The inbox, oldest first."""
        return await self._inbox.entries()

    async def approve_candidate(self, candidate_id: str) -> tuple[mem.Memory, mem.MemoryAction]:
        """Turn an inbox entry into a memory (same rules as :meth:`add`) and remove it.

        Raises:
            NotFoundError: no candidate has this id.
        """
        item = await self._inbox.to_approve(candidate_id)
        return await self._write_new(
            item, first=lambda conn: self._inbox.remove(conn, candidate_id)
        )

    async def reject_candidate(self, candidate_id: str) -> None:
        """Drop an inbox entry.

        Raises:
            NotFoundError: no candidate has this id.
        """
        await self._inbox.reject(candidate_id)

    # --- export / import ------------------------------------------------------------------

    async def export_rows(self) -> list[dict[str, Any]]:
        """Every memory (all statuses) as JSON-ready dicts, then every association.

        Memories come oldest first and without vectors; associations are
        ``associations.EXPORT_KEY`` lines, after the memories they link.
        """

        def read(conn: Connection) -> list[dict[str, Any]]:
            return (
                export_all(conn)
                + associations.export_lines(conn)
                + episode_transfer.export_lines(conn)
            )

        return await self._db.read(read)

    async def import_rows(self, lines: Iterable[Mapping[str, Any]]) -> ImportReport:
        """Import exported memories; a memory whose id (or active content) exists is skipped.

        Importing the same file twice therefore adds nothing the second time. Lines that are
        not valid memories are counted as rejected (and logged), the rest still import.
        """
        memory_lines, links = associations.split_export(lines)
        memory_lines, episodes, sources = episode_transfer.split_export(memory_lines)
        items, rejected = parse_lines(memory_lines)
        episode_vectors = await self._indexes.embed(
            [episode_transfer.episode_text(e) for e in episodes]
        )
        vectors = await self._indexes.embed([item.content for item in items])
        if vectors is not None:
            items = [dataclasses.replace(i, vector=v) for i, v in zip(items, vectors, strict=True)]
        now = self._clock()

        def tx(conn: Connection) -> tuple[int, int]:
            written = import_missing(
                conn, items, lambda c, item: self._write(c, item, now, dedupe=False)
            )
            associations.import_lines(conn, links)
            episode_transfer.import_sources(conn, sources)
            episode_transfer.import_episodes(
                conn, episodes, episode_vectors, self.embedding_model, now
            )
            return written

        added, skipped = await self._any_active.write(tx)
        self._indexes.count_written(sum(1 for item in items if item.vector is not None))
        return ImportReport(added=added, skipped=skipped, rejected=rejected)
