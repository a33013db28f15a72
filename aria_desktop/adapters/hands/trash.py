"""Moving an item to the freedesktop.org trash (Trash specification 1.0), restorably.

The item is renamed (never copied, never unlinked) into ``files/`` of the trash on its own
device, after its ``.trashinfo`` (original path, deletion date) was created with ``O_EXCL`` in
``info/`` — the spec's way of reserving a unique name — so file managers list and restore it.
The home trash is ``$XDG_DATA_HOME/Trash``; an item on another device goes to that device's
``$topdir/.Trash/$uid`` (when the administrator made ``.Trash`` sticky and it is no link) or
``$topdir/.Trash-$uid``. The rename uses the caller's directory descriptor, so the name that
was checked is the name that is moved (ARCHITECTURE.md: safety).
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import stat
import time
from urllib.parse import quote

from aria_desktop.domain.errors import FileOperationError

__all__ = ["move_to_trash", "trash_dir_for"]

_MAX_TRIES = 1000


def move_to_trash(parent_fd: int, name: str, path: str, *, trash_home: str) -> str:
    """Move ``name`` (in ``parent_fd``; absolute ``path``) to the trash; returns its trash name."""
    try:
        item = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except FileNotFoundError:
        raise FileOperationError(f"{path} does not exist; nothing was trashed.") from None
    trash, topdir = trash_dir_for(path, item.st_dev, trash_home=trash_home)
    original = path if topdir is None else posixpath.relpath(path, topdir)
    files_fd = _open_trash_part(trash, "files")
    info_fd = _open_trash_part(trash, "info")
    try:
        trash_name = _reserve(info_fd, files_fd, name, original)
        try:
            os.rename(name, trash_name, src_dir_fd=parent_fd, dst_dir_fd=files_fd)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(trash_name + ".trashinfo", dir_fd=info_fd)  # ARIA's own record
            raise FileOperationError(
                f"{path} could not be moved to the trash ({exc.strerror}); nothing was deleted."
            ) from exc
        return trash_name
    finally:
        os.close(files_fd)
        os.close(info_fd)


def trash_dir_for(path: str, device: int, *, trash_home: str) -> tuple[str, str | None]:
    """The trash folder for an item on ``device`` and the top folder it is relative to.

    ``(home trash, None)`` when the item is on the home trash's device (paths stored
    absolute), else ``(topdir trash, topdir)``.
    """
    os.makedirs(trash_home, mode=0o700, exist_ok=True)
    if os.stat(trash_home).st_dev == device:
        return trash_home, None
    topdir = _mount_point(path)
    uid = os.getuid()
    shared = posixpath.join(topdir, ".Trash")
    try:
        info = os.lstat(shared)
        if stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX:
            own = posixpath.join(shared, str(uid))
            os.makedirs(own, mode=0o700, exist_ok=True)
            return own, topdir
    except OSError:
        pass
    own = posixpath.join(topdir, f".Trash-{uid}")
    try:
        os.makedirs(own, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise FileOperationError(
            f"{path} is on a drive without a usable trash ({own}: {exc.strerror}); "
            "nothing was deleted.",
            hint="Move it into your home folder first, or delete it yourself.",
        ) from exc
    return own, topdir


def _mount_point(path: str) -> str:
    current = posixpath.dirname(path)
    while current != "/" and not os.path.ismount(current):
        current = posixpath.dirname(current)
    return current


def _open_trash_part(trash: str, part: str) -> int:
    folder = posixpath.join(trash, part)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)


def _reserve(info_fd: int, files_fd: int, name: str, original: str) -> str:
    """Create ``<unique>.trashinfo`` atomically and return the unique name.

    A name still used in ``files/`` (a trash left inconsistent by another program) is skipped
    too: the rename would replace it.
    """
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime())
    body = f"[Trash Info]\nPath={quote(original)}\nDeletionDate={stamp}\n".encode()
    stem, dot, ext = name.partition(".") if not name.startswith(".") else (name, "", "")
    for attempt in range(1, _MAX_TRIES + 1):
        candidate = name if attempt == 1 else f"{stem}.{attempt}{dot}{ext}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(candidate + ".trashinfo", flags, 0o600, dir_fd=info_fd)
        except FileExistsError:
            continue
        if _taken(files_fd, candidate):
            os.close(fd)
            os.unlink(candidate + ".trashinfo", dir_fd=info_fd)  # ARIA's own record
            continue
        try:
            os.write(fd, body)
            os.fsync(fd)
        finally:
            os.close(fd)
        return candidate
    raise FileOperationError(f"The trash holds too many items named {name!r}; empty it first.")


def _taken(files_fd: int, candidate: str) -> bool:
    try:
        os.stat(candidate, dir_fd=files_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True
