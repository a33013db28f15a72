"""Finding a folder's documents and preparing changed ones for the index (off the loop).

A rescan of an unchanged folder must be cheap (``aria bench knowledge``: 10k files in under
2 s): the walk only stats files, and a file whose size and modification time match its row is
not opened at all. A file that is opened is hashed; an unchanged hash (touched, copied back)
is not extracted again.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from aria_desktop.adapters.knowledge.chunking import Chunk, chunk_document
from aria_desktop.adapters.knowledge.document import DocumentError
from aria_desktop.adapters.knowledge.extract import extract, format_of_path
from aria_desktop.adapters.knowledge.scanned_pages import OcrOptions

__all__ = ["FileStat", "Place", "Prepared", "locate", "mount_point", "prepare_file", "walk_folder"]


@dataclass(frozen=True, kw_only=True)
class FileStat:
    """A document found on disk: what decides whether it changed without opening it."""

    path: str
    size: int
    mtime_ns: int


@dataclass(kw_only=True)
class Prepared:
    """One changed file read, hashed, extracted and chunked (or its problem).

    Attributes:
        stat: the file as found.
        content_hash: SHA-256 of its bytes ("" when it could not be read).
        title: the document's title.
        chunks: its chunks (none when it has a fatal problem).
        problem_code, problem: why it could not be indexed, or only in part ("" when fine).
        partial: some of it is indexed despite the problem.
        same_content: the hash equals the stored one (only size/time changed): nothing to do.
        ocr_pages: PDF pages read by OCR.
    """

    stat: FileStat
    content_hash: str = ""
    title: str = ""
    chunks: list[Chunk] = field(default_factory=list)
    problem_code: str = ""
    problem: str = ""
    partial: bool = False
    same_content: bool = False
    ocr_pages: int = 0


def walk_folder(root: str) -> list[FileStat]:
    """Every supported document under ``root`` (hidden files and folders skipped), sorted."""
    found: list[FileStat] = []
    pending = [root]
    while pending:
        folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # vanished or unreadable folder: its files leave the index
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                elif entry.is_file() and format_of_path(entry.name) is not None:
                    st = entry.stat()
                    found.append(
                        FileStat(path=entry.path, size=st.st_size, mtime_ns=st.st_mtime_ns)
                    )
            except OSError:
                continue
    found.sort(key=lambda f: f.path)
    return found


def stat_file(path: str) -> FileStat | None:
    """``path`` as a document, or None when it is missing or not a regular file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not Path(path).is_file():
        return None
    return FileStat(path=path, size=st.st_size, mtime_ns=st.st_mtime_ns)


@dataclass(frozen=True, kw_only=True)
class Place:
    """Where a file or folder source is now.

    Attributes:
        present: it is there (and to be scanned).
        mount: the mount point it is under (present), or was under when last found.
        drive_away: it is missing because that mount point is no longer mounted.
    """

    present: bool
    mount: str
    drive_away: bool = False


def mount_point(path: str) -> str:
    """The mount point ``path`` is under ("/" at worst)."""
    current = os.path.abspath(path)
    while not os.path.ismount(current):
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return current


def locate(location: str, kind: str, recorded_mount: str) -> Place:
    """Whether a file or folder source is there, and if not, whether its drive is away.

    A source last found under a mount point that is no longer mounted is on a drive that is
    away (unplugged, not mounted yet): it is gone, or it is the empty mount point directory
    that stays behind. Anything else that is gone was deleted or moved.
    """
    exists = os.path.isdir(location) if kind == "folder" else os.path.isfile(location)
    drive_away = bool(recorded_mount) and not os.path.ismount(recorded_mount)
    if exists and not (drive_away and kind == "folder" and not _has_entries(location)):
        return Place(present=True, mount=mount_point(location))
    return Place(present=False, mount=recorded_mount, drive_away=drive_away)


def _has_entries(folder: str) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(True for _ in entries)
    except OSError:
        return False


def prepare_bytes(
    stat: FileStat, data: bytes, kind: str | None, max_bytes: int, ocr: OcrOptions | None = None
) -> Prepared:
    """Hash, extract and chunk a document's bytes; a problem is recorded, not raised."""
    prepared = Prepared(stat=stat, content_hash=hashlib.sha256(data).hexdigest())
    if kind is None:
        prepared.problem_code, prepared.problem = "unsupported", f"{stat.path}: unknown format"
        return prepared
    try:
        doc = extract(data, path=stat.path, kind=kind, max_bytes=max_bytes, ocr=ocr)
    except DocumentError as exc:
        prepared.problem_code, prepared.problem = exc.problem, exc.message
        return prepared
    prepared.title = doc.title
    prepared.chunks = chunk_document(doc)
    prepared.ocr_pages = doc.ocr_pages
    if doc.notes:
        prepared.problem_code, prepared.problem = "no_text", "; ".join(doc.notes)
        prepared.partial = True
    return prepared


def prepare_file(
    stat: FileStat, known_hash: str | None, max_bytes: int, ocr: OcrOptions | None = None
) -> Prepared:
    """Read and prepare a file that looks changed (runs in a worker thread)."""
    if stat.size > max_bytes:  # never read a huge file into memory just to refuse it
        return Prepared(
            stat=stat,
            problem_code="too_large",
            problem=f"{stat.path} is {stat.size / 1e6:.1f} MB, over the "
            f"{max_bytes / 1e6:.0f} MB limit (raise knowledge.max_file_mb to include it).",
        )
    try:
        data = Path(stat.path).read_bytes()
    except OSError as exc:
        return Prepared(stat=stat, problem_code="unreadable", problem=f"{stat.path}: {exc}")
    digest = hashlib.sha256(data).hexdigest()
    if known_hash is not None and digest == known_hash:
        return Prepared(stat=stat, content_hash=digest, same_content=True)
    return prepare_bytes(stat, data, format_of_path(stat.path), max_bytes, ocr)
