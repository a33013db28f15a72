"""The knowledge base's facts: sources, indexed files, hits, citations and ingest reports.

The request and answer types of the knowledge base live here (stdlib only), so the adapter
(``aria_desktop.adapters.knowledge``), the core service, the API and every front-end share one
wording (``aria_desktop/ARCHITECTURE.md``: one fact, decided once).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import quote

__all__ = [
    "KNOWLEDGE_SOURCE_KINDS",
    "Citation",
    "FileProblem",
    "IngestOutcome",
    "IngestReport",
    "KnowledgeFile",
    "KnowledgeHit",
    "KnowledgeQuery",
    "KnowledgeSource",
    "KnowledgeStatus",
    "answer_key",
    "open_target",
]

SourceKind = Literal["file", "folder", "url"]
_CITED = ("path", "page", "heading", "label", "target", "content_hash")
"""What a citation keeps of the hit it cites."""
KNOWLEDGE_SOURCE_KINDS: tuple[SourceKind, ...] = ("file", "folder", "url")


def answer_key(answer: str) -> str:
    """Identity of an answer's text: a stored reply finds the citations it was given."""
    return hashlib.sha256(answer.strip().encode("utf-8")).hexdigest()


def open_target(location: str, page: int | None) -> str:
    """What opens a source at a place: the URL itself, or a ``file://`` URL (``#page=N``)."""
    if location.startswith(("http://", "https://")):
        uri = location  # a PDF from the web opens at the page too, in a browser's viewer
        return f"{uri}#page={page}" if page and "#" not in uri else uri
    uri = "file://" + quote(location)
    return f"{uri}#page={page}" if page else uri


@dataclass(frozen=True, kw_only=True, slots=True)
class KnowledgeSource:
    """Something the user asked ARIA to know: a file, a folder (maybe watched) or a URL.

    Attributes:
        id: the source's number.
        location: absolute path or http(s) URL.
        kind: file, folder or url.
        watch: changes in the folder are picked up while ARIA runs.
        added_at, indexed_at: UNIX seconds (indexed_at None: never indexed yet).
        files, chunks: what is indexed from it now.
        problems: files that could not be indexed (fully or in part).
        last_error: the latest problem's message ("" when none).
        ocr_pages: scanned PDF pages among its files whose text was read by OCR.
        missing_since: UNIX seconds since the file or folder was found missing (None: it is
            there). A deleted one's passages leave the index; one on a drive that is not
            mounted keeps them (``chunks`` says which); either is indexed again when it is
            back.
    """

    id: int
    location: str
    kind: SourceKind
    watch: bool = False
    added_at: float = 0.0
    indexed_at: float | None = None
    files: int = 0
    chunks: int = 0
    problems: int = 0
    last_error: str = ""
    ocr_pages: int = 0
    missing_since: float | None = None

    @property
    def state(self) -> str:
        """The source's state in words, the same in every front-end ("" when nothing to say).

        E.g. "folder missing", "folder missing (passages kept)", "3 pages read by OCR".
        """
        parts: list[str] = []
        if self.missing_since is not None:
            parts.append(f"{self.kind} missing" + (" (passages kept)" if self.chunks else ""))
        if self.ocr_pages:
            parts.append(f"{self.ocr_pages} page{'s' if self.ocr_pages != 1 else ''} read by OCR")
        return "; ".join(parts)


@dataclass(frozen=True, kw_only=True, slots=True)
class KnowledgeFile:
    """One indexed file (or fetched URL) and its problem, if any."""

    path: str
    source_id: int
    chunks: int = 0
    content_hash: str = ""
    indexed_at: float = 0.0
    problem_code: str = ""
    problem: str = ""
    ocr_pages: int = 0
    """Scanned PDF pages whose text was read by OCR."""


@dataclass(frozen=True, kw_only=True, slots=True)
class FileProblem:
    """Why one file could not be indexed, or only in part (the rest of the ingest goes on).

    Attributes:
        path: the file or URL.
        code: stable identifier: malformed, encrypted, too_large, binary, unsupported,
            no_text (a page or document without text that OCR did not read), unreadable,
            fetch_failed, missing (a source's file or folder is gone).
        message: what happened, for people.
        partial: some of the file was indexed (e.g. pages with text of a partly scanned PDF).
    """

    path: str
    code: str
    message: str
    partial: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class IngestReport:
    """What one add, rescan or watcher update did.

    Attributes:
        files_seen: files looked at.
        files_indexed: files (re)indexed because they were new or changed.
        files_unchanged: files skipped because size, time or content hash were unchanged.
        files_removed: files that left the index (deleted, moved away, source removed).
        chunks_added, chunks_removed: chunk rows written and deleted.
        chunks_embedded: chunks whose text was new and had to be embedded (the rest reused
            the vector of an unchanged chunk with the same hash).
        problems: per-file problems.
        elapsed_s: wall time.
    """

    files_seen: int = 0
    files_indexed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_embedded: int = 0
    problems: tuple[FileProblem, ...] = ()
    elapsed_s: float = 0.0


@dataclass(frozen=True, kw_only=True, slots=True)
class IngestOutcome:
    """A source after an add, and what indexing it did."""

    source: KnowledgeSource
    report: IngestReport


@dataclass(frozen=True, kw_only=True, slots=True)
class KnowledgeQuery:
    """A search of the knowledge base.

    Attributes:
        text: the question or keywords.
        limit: at most this many hits.
        min_similarity: cosine floor of the meaning leg (keyword hits are kept regardless).
    """

    text: str
    limit: int = 8
    min_similarity: float = 0.25


@dataclass(frozen=True, kw_only=True, slots=True)
class KnowledgeHit:
    """One chunk that answers a query, with where it came from.

    Attributes:
        chunk_id: the chunk's row key.
        path: the file path or URL it came from.
        title: the document's title (file name when it has none).
        page: the PDF page (1-based), None for other formats.
        heading: the heading path, e.g. ``Setup > Network`` ("" when none).
        text: the chunk's text.
        char_start, char_end: where it is in the document's (page's) extracted text.
        content_hash: the file's content hash when the chunk was indexed (a citation whose
            file hash changed since is stale).
        score, lexical_rank, vector_rank: the fused ranking (ranks 1-based, None: not in leg).
    """

    chunk_id: int
    path: str
    title: str
    page: int | None
    heading: str
    text: str
    char_start: int
    char_end: int
    content_hash: str
    score: float = 0.0
    lexical_rank: int | None = None
    vector_rank: int | None = None

    @property
    def target(self) -> str:
        """What opens the hit: a URL, or a file URL at the page for PDFs."""
        return open_target(self.path, self.page)

    def citation(self, number: int) -> Citation:
        """This hit as reference ``[number]`` of an answer."""
        return Citation(number=number, **{name: getattr(self, name) for name in _CITED})

    @property
    def label(self) -> str:
        """Short human form: file name, page, heading."""
        name = self.path.rstrip("/").rsplit("/", 1)[-1] or self.path
        parts = [name]
        if self.page:
            parts.append(f"p. {self.page}")
        if self.heading:
            parts.append(self.heading)
        return ", ".join(parts)


@dataclass(frozen=True, kw_only=True, slots=True)
class Citation:
    """A numbered reference given to the model for one turn, and what it pointed at.

    Attributes:
        number: the ``[n]`` the answer cites.
        path: the file path or URL.
        page: PDF page or None.
        heading: heading path.
        label: short human form.
        target: the link (file URL with ``#page=N``, or the URL).
        content_hash: the file's hash at answer time; a different hash now means the source
            changed since the answer.
    """

    number: int
    path: str
    page: int | None = None
    heading: str = ""
    label: str = ""
    target: str = ""
    content_hash: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class KnowledgeStatus:
    """The knowledge base at a glance (CLI ``status``, the Knowledge tab).

    Attributes:
        sources, files, chunks, problems: counts.
        vector_status: what the meaning leg uses, or why it is off.
        indexing: a path being indexed now ("" when idle).
        progress_done, progress_total: files done of the current ingest.
        watching: folders watched now.
        missing: the watched folders that are missing now (indexed again when they are back).
    """

    sources: int = 0
    files: int = 0
    chunks: int = 0
    problems: int = 0
    vector_status: str = ""
    indexing: str = ""
    progress_done: int = 0
    progress_total: int = 0
    watching: tuple[str, ...] = field(default_factory=tuple)
    missing: tuple[str, ...] = field(default_factory=tuple)
