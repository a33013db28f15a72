"""Durable file writes: private folders, atomic replace, fsync (stdlib only).

Whoever rewrites a small file (the settings file, the audit checkpoint) must never leave a
half-written one behind, and must not lose it to a crash right after reporting success; both
need the same sequence (temporary file, fsync, ``os.replace``, fsync of the folder), so it
lives here once. It sits beside ``paths`` rather than in ``storage``, so that loading settings
never imports the SQLite layer (see ``aria_desktop/ARCHITECTURE.md``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = [
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "atomic_write",
    "ensure_private_dir",
    "fsync_dir",
    "write_all",
]

PRIVATE_FILE_MODE = 0o600
"""Files that hold the user's data are readable by the user only."""
PRIVATE_DIR_MODE = 0o700
"""Folders ARIA creates for them likewise."""


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` (and its parents) readable by the user only, if it does not exist yet."""
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)


def fsync_dir(path: Path) -> None:
    """Flush a folder's entries, so a file created or renamed in it survives a crash."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may write less than it was given)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def atomic_write(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` all at once: readers see the old file or the new one.

    Args:
        path: the file; its folder is created (private) if missing.
        data: the new content.
        mode: permissions of the new file; None keeps those of the file it replaces (private
            for a new file), so a user who loosened them on purpose keeps that choice.

    Raises:
        OSError: the file or its folder could not be written (nothing is left behind).
    """
    ensure_private_dir(path.parent)
    if mode is None:
        mode = (path.stat().st_mode & 0o777) if path.exists() else PRIVATE_FILE_MODE
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)
