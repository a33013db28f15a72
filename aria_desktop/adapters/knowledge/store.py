"""The knowledge base over the owner's database: sources in, searchable chunks out.

Satisfies ``core.knowledge.ports.KnowledgeStore`` structurally (this package may not import
core, nor long-term memory: the embedder comes in at composition, the same instance memory
uses). Where a source is and which of its files are there now: ``locations``.

Incremental by design: a file whose size and modification time match its row is not opened;
an opened file whose content hash is unchanged is not extracted; a changed file's chunks
reuse the vector of any stored chunk with the same hash, so only new text is embedded
(:attr:`IngestReport.chunks_embedded` counts it). Files that disappear leave the index.
Ingests run one at a time (adds, rescans and the watcher's updates queue behind each other).

A source whose file or folder is gone is marked missing (``missing_since``) and indexed again
when a rescan finds it back. A deleted one's passages leave the index like a deleted file's.
One on a drive that is away (the mount point it was under is no longer mounted) keeps them:
unplugging a drive is not deleting it, and plugging it back in then costs a cheap rescan
instead of extracting and embedding the whole drive again (``scan.locate`` tells the two).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from aria_desktop.adapters.knowledge import rows, scan
from aria_desktop.adapters.knowledge.chunking import Chunk
from aria_desktop.adapters.knowledge.extract import EXTRACTION_VERSION, detect_format
from aria_desktop.adapters.knowledge.fetch import fetch_url
from aria_desktop.adapters.knowledge.locations import (
    as_location,
    changed_paths,
    classify,
    is_hidden,
    is_under,
    missing_problem,
)
from aria_desktop.adapters.knowledge.scan import FileStat, Prepared
from aria_desktop.adapters.knowledge.scanned_pages import OcrOptions, PageOcr
from aria_desktop.adapters.knowledge.search import search_chunks
from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.embedder import Embedder
from aria_desktop.adapters.storage.kept_answer import KeptAnswer
from aria_desktop.adapters.storage.vectors import EXACT_KNN_LIMIT, VectorIndex, open_vector_index
from aria_desktop.domain import knowledge as kb
from aria_desktop.domain.errors import DocumentError, EmbedderError, KnowledgeError

__all__ = ["KnowledgeLimits", "Progress", "SQLiteKnowledgeStore"]

Progress = Callable[[int, int, str], None]
"""Called as files are done: (files done, files to do, the current path)."""

_LOGGER = logging.getLogger(__name__)

_COUNTS = tuple(
    f.name for f in dataclasses.fields(kb.IngestReport) if f.name not in ("problems", "elapsed_s")
)
"""The counting fields of an ingest report."""
_FILES_PER_BATCH = 16
"""Changed files prepared, embedded and written together (one transaction per batch)."""
_EMBED_SLICE = 64
"""Passages per embedding call."""


@dataclass(frozen=True, kw_only=True)
class KnowledgeLimits:
    """What one document may cost.

    Attributes:
        max_file_bytes: larger files and downloads are refused (problem ``too_large``).
        fetch_timeout_s: a URL's whole download must finish within this.
        ocr_max_pages: scanned PDF pages read by OCR per document at most (0: none).
        ocr_page_timeout_s: one scanned page's OCR time limit.
    """

    max_file_bytes: int = 50_000_000
    fetch_timeout_s: float = 30.0
    ocr_max_pages: int = 50
    ocr_page_timeout_s: float = 30.0


@dataclass(kw_only=True)
class _Tally:
    """An ingest's counts while it runs (frozen into an ``IngestReport`` at the end)."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_COUNTS, 0))
    problems: list[kb.FileProblem] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def add(self, **counts: int) -> None:
        """Add to counts named like ``IngestReport``'s fields."""
        for name, value in counts.items():
            self.counts[name] += value

    def report(self) -> kb.IngestReport:
        elapsed = time.perf_counter() - self.started
        return kb.IngestReport(**self.counts, problems=tuple(self.problems), elapsed_s=elapsed)


def _prepare_all(
    batch: Sequence[tuple[FileStat, str | None]], limit: int, ocr: OcrOptions | None
) -> list[Prepared]:
    """Read and prepare a batch of changed files (in a worker thread)."""
    return [scan.prepare_file(stat, old, limit, ocr) for stat, old in batch]


class SQLiteKnowledgeStore:
    """Sources, files and chunks over the owner's :class:`Database`. Call :meth:`open` first."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder | None,
        *,
        limits: KnowledgeLimits | None = None,
        clock: Callable[[], float] = time.time,
        exact_knn_limit: int = EXACT_KNN_LIMIT,
        ocr: PageOcr | None = None,
    ) -> None:
        """Bind to ``db``; ``embedder`` None means keyword search only.

        ``ocr`` reads scanned PDF pages (the computer-use adapter's Tesseract page reader,
        given at composition); None: such pages are only reported.
        """
        self._db = db
        self._ocr = ocr
        # Asked before every turn: kept until a write here that may add or drop chunks.
        self._any_chunk = KeptAnswer(db, _any_chunk)
        self._embedder = embedder
        self._limits = limits or KnowledgeLimits()
        self._clock = clock
        self._exact_limit = exact_knn_limit
        self._index: VectorIndex | None = None
        self._lock: asyncio.Lock | None = None
        self.vector_status = "not opened yet"
        self.pending_vectors = 0
        """Chunks without a vector from the current model when the store was opened."""
        self.outdated_extraction = False
        """Whether passages were made by an older extraction (``extract.EXTRACTION_VERSION``);
        a forced rescan of every source makes them again."""
        self.current = ""
        """The path being indexed now ("" when idle)."""
        self.progress = (0, 0)
        """Files done and to do in the current ingest."""

    @property
    def _busy(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    @property
    def model_id(self) -> str:
        """The embedder's model id ("" without vectors)."""
        return self._embedder.model_id if self._embedder is not None and self._index else ""

    async def open(self) -> int:
        """Prepare the vector index; returns how many chunks lack a current-model vector.

        They get one at the next forced rescan (the service's start does it when any lack).
        """
        self._index, self.vector_status, self.pending_vectors = await open_vector_index(
            self._db,
            self._embedder,
            rows.KNOWLEDGE_VECTORS,
            exact_limit=self._exact_limit,
            what="Knowledge",
        )
        self.outdated_extraction = await self._db.write(
            functools.partial(rows.outdated_extraction, version=EXTRACTION_VERSION)
        )
        return self.pending_vectors

    # --- sources ----------------------------------------------------------------------------

    async def sources(self) -> list[kb.KnowledgeSource]:
        """Every source with its counts, oldest first."""
        return await self._db.read(rows.read_sources)

    async def files(self, source: str) -> list[kb.KnowledgeFile]:
        """The files of one source (by id or location)."""
        found = await self.find(source)
        return await self._db.read(functools.partial(rows.read_files, source_id=found.id))

    async def find(self, source: str) -> kb.KnowledgeSource:
        """A source by id or location.

        Raises:
            KnowledgeError: no such source.
        """
        wanted = as_location(source)
        for item in await self.sources():
            if str(item.id) == source or item.location in (source, wanted):
                return item
        raise KnowledgeError(
            f"There is no knowledge source {source!r}.",
            hint="`aria knowledge list` shows the sources with their numbers.",
        )

    async def add(
        self, location: str, *, watch: bool = False, progress: Progress | None = None
    ) -> tuple[kb.KnowledgeSource, kb.IngestReport]:
        """Add a file, folder or URL and index it (re-adding an unchanged source is a no-op).

        Raises:
            KnowledgeError: the path does not exist, is not a supported file, the URL is not
                http(s), or ``watch`` is asked for something that is not a folder.
        """
        kind, where = await asyncio.to_thread(classify, location)
        if watch and kind != "folder":
            raise KnowledgeError(
                f"Only folders can be watched; {where} is a {kind}.",
                hint="Leave out --watch, or add the folder that holds it.",
            )
        now = self._clock()

        def upsert(conn: Connection) -> int:
            row = conn.execute(
                "SELECT id FROM knowledge_sources WHERE location = ?", (where,)
            ).fetchone()
            if row is not None:
                if watch:
                    conn.execute("UPDATE knowledge_sources SET watch = 1 WHERE id = ?", (row[0],))
                return int(row[0])
            cursor = conn.execute(
                "INSERT INTO knowledge_sources (location, kind, watch, added_at) "
                "VALUES (?, ?, ?, ?)",
                (where, kind, int(watch), now),
            )
            return int(cursor.lastrowid or 0)

        source_id = await self._any_chunk.write(upsert)
        report = await self.rescan(str(source_id), progress=progress)
        return (await self.find(str(source_id))), report

    async def remove(self, source: str) -> kb.KnowledgeSource:
        """Remove a source and everything indexed from it."""
        found = await self.find(source)
        index = self._index

        def tx(conn: Connection) -> None:
            paths = [
                str(r[0])
                for r in conn.execute(
                    "SELECT path FROM knowledge_files WHERE source_id = ?", (found.id,)
                )
            ]
            rows.delete_files(conn, paths, index)
            conn.execute("DELETE FROM knowledge_sources WHERE id = ?", (found.id,))

        async with self._busy:
            await self._any_chunk.write(tx)
        return found

    # --- ingest -----------------------------------------------------------------------------

    async def rescan(
        self, source: str | None = None, *, force: bool = False, progress: Progress | None = None
    ) -> kb.IngestReport:
        """Bring one source (or all) up to date with the disk or the web.

        Args:
            source: id or location; None: every source (the start-up rescan).
            force: re-read, re-extract and re-embed everything (``reindex``).
            progress: told as files are done.
        """
        targets = [await self.find(source)] if source is not None else await self.sources()
        tally = _Tally()
        async with self._busy:
            for item in targets:
                mount = await self._rescan_one(item, tally, force, progress)
                mark = functools.partial(
                    rows.mark_scanned, source_id=item.id, now=self._clock(), mount=mount
                )
                await self._any_chunk.write(mark)
            if force and source is None:
                record = functools.partial(rows.record_extraction, version=EXTRACTION_VERSION)
                await self._db.write(record)
                self.outdated_extraction = False
        return tally.report()

    @property
    def _ocr_options(self) -> OcrOptions | None:
        if self._ocr is None:
            return None
        limits = self._limits
        return OcrOptions(
            read=self._ocr,
            max_pages=limits.ocr_max_pages,
            page_timeout_s=limits.ocr_page_timeout_s,
        )

    async def _rescan_one(
        self, source: kb.KnowledgeSource, tally: _Tally, force: bool, progress: Progress | None
    ) -> str | None:
        """Bring one source up to date; returns the mount point it is under (None: missing)."""
        if source.kind == "url":
            await self._ingest_url(source, tally, force)
            return ""
        recorded = await self._db.read(functools.partial(rows.source_mount, source_id=source.id))
        place = await asyncio.to_thread(scan.locate, source.location, source.kind, recorded)
        if not place.present:
            if not place.drive_away:  # deleted: its files leave the index like deleted files
                await self._ingest(source.id, [], tally, force=False, full=True, progress=None)
            tally.problems.append(missing_problem(source, place))
            return None
        if source.kind == "folder":
            stats = await asyncio.to_thread(scan.walk_folder, source.location)
        else:
            single = await asyncio.to_thread(scan.stat_file, source.location)
            stats = [single] if single is not None else []
        await self._ingest(source.id, stats, tally, force=force, full=True, progress=progress)
        return place.mount

    async def apply_changes(self, paths: Iterable[str]) -> kb.IngestReport:
        """Index changed paths and drop vanished ones (the folder watcher's entry point).

        A path under no source is ignored; a vanished folder drops every file under it.
        """
        tally = _Tally()
        sources = [s for s in await self.sources() if s.kind != "url"]
        wanted = sorted(set(paths))
        async with self._busy:
            for source in sources:
                root = source.location
                mine = [p for p in wanted if is_under(p, root) and not is_hidden(p[len(root) :])]
                if not mine:
                    continue
                stats, gone = await asyncio.to_thread(changed_paths, mine)
                await self._ingest(source.id, stats, tally, force=False, full=False, progress=None)
                if gone:  # after the new paths, so a move reuses the vectors
                    await self._remove_under(source.id, gone, tally)
        return tally.report()

    async def _remove_under(self, source_id: int, gone: Sequence[str], tally: _Tally) -> None:
        known = await self._db.read(functools.partial(rows.known_files, source_id=source_id))
        await self._drop_files([p for p in known if any(is_under(p, g) for g in gone)], tally)

    async def _drop_files(self, paths: list[str], tally: _Tally) -> None:
        """Take ``paths`` and their passages out of the index (they are gone from the source)."""
        if paths:
            index = self._index
            dropped = await self._any_chunk.write(
                lambda conn: rows.delete_files(conn, paths, index)
            )
            tally.add(chunks_removed=dropped, files_removed=len(paths))

    async def _ingest(
        self,
        source_id: int,
        stats: Sequence[FileStat],
        tally: _Tally,
        *,
        force: bool,
        full: bool,
        progress: Progress | None,
    ) -> None:
        known = await self._db.read(functools.partial(rows.known_files, source_id=source_id))
        tally.add(files_seen=len(stats))
        todo: list[tuple[FileStat, str | None]] = []
        for stat in stats:
            old = known.get(stat.path)
            if not force and old is not None and old[:2] == (stat.size, stat.mtime_ns):
                tally.add(files_unchanged=1)
            else:
                todo.append((stat, None if force or old is None else old[2]))
        limit, ocr = self._limits.max_file_bytes, self._ocr_options
        batches = [todo[i : i + _FILES_PER_BATCH] for i in range(0, len(todo), _FILES_PER_BATCH)]
        # The next batch is read and extracted (a worker thread) while this one is embedded
        # (the embedder's thread) and written: the two cores both work.
        ahead: asyncio.Future[list[scan.Prepared]] | None = None
        try:
            done = 0
            for number, batch in enumerate(batches):
                self.current, self.progress = batch[0][0].path, (done, len(todo))
                prepared = await (ahead or asyncio.to_thread(_prepare_all, batch, limit, ocr))
                ahead = None
                if number + 1 < len(batches):
                    following = asyncio.to_thread(_prepare_all, batches[number + 1], limit, ocr)
                    ahead = asyncio.ensure_future(following)
                await self._store(source_id, prepared, tally, force)
                done += len(batch)
                self.progress = (done, len(todo))
                if progress is not None:
                    progress(done, len(todo), batch[-1][0].path)
        finally:
            if ahead is not None:
                ahead.cancel()
            self.current = ""
        if full:  # after the new files: a moved file's chunks found their old vectors
            present = {s.path for s in stats}
            await self._drop_files([p for p in known if p not in present], tally)

    async def _ingest_url(self, source: kb.KnowledgeSource, tally: _Tally, force: bool) -> None:
        url = source.location
        self.current, self.progress = url, (0, 1)
        tally.add(files_seen=1)
        limits = self._limits
        try:
            data, content_type, _final = await fetch_url(
                url, max_bytes=limits.max_file_bytes, timeout_s=limits.fetch_timeout_s
            )
        except DocumentError as exc:
            stat = FileStat(path=url, size=0, mtime_ns=0)
            failed = Prepared(stat=stat, problem_code=exc.problem, problem=exc.message)
            await self._store(source.id, [failed], tally, force)
            return
        finally:
            self.current = ""
        known = await self._db.read(functools.partial(rows.known_files, source_id=source.id))
        stat = FileStat(path=url, size=len(data), mtime_ns=0)
        kind = detect_format(url, content_type, data)
        prepared = await asyncio.to_thread(
            scan.prepare_bytes, stat, data, kind, limits.max_file_bytes, self._ocr_options
        )
        old = known.get(url)
        if not force and old is not None and old[2] == prepared.content_hash:
            tally.add(files_unchanged=1)
            return
        await self._store(source.id, [prepared], tally, force)

    async def _store(
        self, source_id: int, prepared: list[Prepared], tally: _Tally, force: bool
    ) -> None:
        same = [p for p in prepared if p.same_content]
        if same:
            tally.add(files_unchanged=len(same))
            await self._db.write(lambda conn: rows.touch_files(conn, same))
        fresh = [p for p in prepared if not p.same_content]
        if not fresh:
            return
        for p in fresh:
            if p.problem_code:
                tally.problems.append(
                    kb.FileProblem(
                        path=p.stat.path, code=p.problem_code, message=p.problem, partial=p.partial
                    )
                )
        vectors = await self._vectors([c for p in fresh for c in p.chunks], force, tally)
        index, model = self._index, self.model_id
        added, dropped = await self._any_chunk.write(
            lambda conn: rows.write_prepared(conn, source_id, fresh, vectors, index, model)
        )
        indexed = sum(1 for p in fresh if p.chunks)
        tally.add(files_indexed=indexed, chunks_added=added, chunks_removed=dropped)

    async def _vectors(self, chunks: list[Chunk], force: bool, tally: _Tally) -> dict[str, bytes]:
        index, embedder = self._index, self._embedder
        if index is None or embedder is None or not chunks:
            return {}
        model = embedder.model_id
        hashes = [c.hash for c in chunks]
        found: dict[str, bytes] = {}
        if not force:
            found = await self._db.read(lambda conn: rows.reusable_vectors(conn, hashes, model))
        missing = list({c.hash: c for c in chunks if c.hash not in found}.values())
        if missing:
            try:
                made: list[bytes] = []
                # One call per slice: the embedder shares each slice out to its bulk workers
                # (a turn's query goes to its own worker meanwhile), and another embedder
                # (Ollama) gets requests of a bounded size.
                for start in range(0, len(missing), _EMBED_SLICE):
                    part = missing[start : start + _EMBED_SLICE]
                    made.extend(await embedder.embed([c.indexed_text for c in part]))
            except EmbedderError as exc:
                _LOGGER.warning("Embedding failed; these chunks are keyword-only: %s", exc)
                return found
            for chunk, vector in zip(missing, made, strict=True):
                if index.fits(vector):
                    found[chunk.hash] = vector
            tally.add(chunks_embedded=len(missing))
        return found

    # --- search -----------------------------------------------------------------------------

    async def search(self, query: kb.KnowledgeQuery) -> list[kb.KnowledgeHit]:
        """The chunks that best answer ``query`` (hybrid: keywords and meaning)."""
        if not query.text.strip():
            return []
        vector: bytes | None = None
        if self._index is not None and self._embedder is not None:
            try:
                vector = (await self._embedder.embed([query.text]))[0]
            except EmbedderError as exc:
                _LOGGER.warning("Query embedding failed; keyword search only: %s", exc)
        index, now = self._index, self._clock()
        return await self._db.read(lambda conn: search_chunks(conn, query, vector, index, now))

    async def has_chunks(self) -> bool:
        """Whether anything is indexed (an empty base costs a turn no embedding)."""
        return await self._any_chunk.get()

    async def file_hashes(self, paths: Sequence[str]) -> dict[str, str]:
        """The current content hash of each indexed path (missing: no longer indexed)."""

        def read(conn: Connection) -> dict[str, str]:
            return {
                p: str(r[0])
                for p in dict.fromkeys(paths)
                for r in conn.execute(
                    "SELECT content_hash FROM knowledge_files WHERE path = ?", (p,)
                )
            }

        return await self._db.read(read)

    async def save_citations(
        self, conversation_id: str, key: str, citations: Sequence[kb.Citation]
    ) -> None:
        """Keep the citations an answer was given (its ``answer_key``)."""
        now = self._clock()
        await self._db.write(
            lambda conn: rows.save_citations(conn, conversation_id, key, citations, now)
        )

    async def citations_for(self, conversation_id: str) -> dict[str, list[kb.Citation]]:
        """Answer key -> citations, for the answers of one conversation."""
        return await self._db.read(
            functools.partial(rows.read_citations, conversation_id=conversation_id)
        )

    async def counts(self) -> tuple[int, int, int, int]:
        """(sources, files, chunks, files with problems)."""

        def read(conn: Connection) -> tuple[int, int, int, int]:
            one = conn.execute(
                "SELECT (SELECT count(*) FROM knowledge_sources), "
                "(SELECT count(*) FROM knowledge_files), (SELECT count(*) FROM knowledge_chunks), "
                "(SELECT count(*) FROM knowledge_files WHERE problem != '')"
            ).fetchone()
            return int(one[0]), int(one[1]), int(one[2]), int(one[3])

        return await self._db.read(read)

    async def watched_folders(self) -> list[str]:
        """Folders whose changes are picked up while ARIA runs."""
        return [s.location for s in await self.sources() if s.watch and s.kind == "folder"]

    def with_limits(self, limits: KnowledgeLimits) -> None:
        """Change the per-document limits (settings changed)."""
        self._limits = replace(limits)


def _any_chunk(conn: Connection) -> bool:
    return conn.execute("SELECT 1 FROM knowledge_chunks LIMIT 1").fetchone() is not None
