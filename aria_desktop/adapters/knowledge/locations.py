"""Where a knowledge source is: what the user named, and which of its files are there now.

The store asks these before it reads anything: what kind of source a location is (file, folder
or URL), the stored form of a location, which changed paths belong to a source, and what to
say of a source whose file or folder is gone (deleted, or on a drive that is away).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from aria_desktop.adapters.knowledge import scan
from aria_desktop.adapters.knowledge.extract import format_of_path
from aria_desktop.adapters.knowledge.fetch import check_url
from aria_desktop.adapters.knowledge.scan import FileStat, Place
from aria_desktop.domain import knowledge as kb
from aria_desktop.domain.errors import KnowledgeError

__all__ = ["as_location", "changed_paths", "classify", "is_hidden", "is_under", "missing_problem"]


def _is_url(location: str) -> bool:
    """Whether a location is a web address (http or https)."""
    return location.startswith(("http://", "https://"))


def changed_paths(paths: Sequence[str]) -> tuple[list[FileStat], list[str]]:
    """Documents at ``paths`` now, and the paths that are gone.

    A folder that appeared (created, or moved in) counts with every document it holds.
    """
    stats: list[FileStat] = []
    gone: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            stats.extend(scan.walk_folder(path))
            continue
        found = scan.stat_file(path)
        if found is None:
            gone.append(path)
        elif format_of_path(path) is not None:
            stats.append(found)
    return stats, gone


def missing_problem(source: kb.KnowledgeSource, place: Place) -> kb.FileProblem:
    """What a rescan says about a source whose file or folder is gone."""
    where = source.location
    if place.drive_away:
        message = (
            f"{where} is missing: the drive it was on ({place.mount}) is not mounted. Its "
            "passages stay searchable and it is indexed again when the drive is back (remove "
            "the source to drop them)."
        )
    else:
        message = (
            f"{where} is missing (deleted or moved?); its passages left the index. It is "
            "indexed again when it is back."
        )
    return kb.FileProblem(path=where, code="missing", message=message)


def as_location(source: str) -> str:
    """A source as the user named it, in the form locations are stored (absolute paths)."""
    if _is_url(source) or not source or source.isdigit():
        return source
    return os.path.abspath(os.path.expanduser(source))


def is_hidden(path: str) -> bool:
    """A relative path inside a hidden folder or to a hidden file (walks skip them too)."""
    return any(part.startswith(".") for part in path.split(os.sep) if part)


def is_under(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def classify(location: str) -> tuple[str, str]:
    """(kind, normalised location) of what the user asked to add.

    Raises:
        KnowledgeError: a missing path, an unsupported file or a non-http(s) URL.
    """
    if _is_url(location) or "://" in location:
        return "url", check_url(location)
    path = Path(location).expanduser().resolve()
    where = str(path)
    if path.is_dir():
        return "folder", where
    if not path.is_file():
        raise KnowledgeError(f"{where} does not exist.", hint="Check the path (files and folders).")
    if format_of_path(where) is None:
        raise KnowledgeError(
            f"{where}: this kind of file cannot be added.",
            hint="Supported: Markdown, plain text, HTML, PDF and DOCX.",
        )
    return "file", where
