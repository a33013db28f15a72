"""The file tools' I/O: list, read, write, edit, move, trash and find inside the allowed roots.

Every path goes through :class:`~aria_desktop.adapters.hands.guard.PathGuard` (resolved, judged,
opened by directory descriptors with ``O_NOFOLLOW``). Changes are planned first (a
:class:`FileChange` with its diff and the file's state) and applied only to a file still in that
state, so what the user confirmed is what is written (ARCHITECTURE.md: safety). Writes are atomic: a
private temporary file in the same folder renamed over the name. Nothing is ever unlinked: deletion
is a move to the freedesktop trash (``adapters/hands/trash.py``). Synchronous: the core runs these
in a thread.
"""

from __future__ import annotations

import difflib
import fnmatch
import hashlib
import os
import secrets
import stat
from typing import Any

from aria_desktop.adapters.hands.guard import PathGuard, os_error
from aria_desktop.adapters.hands.trash import move_to_trash
from aria_desktop.domain.errors import FileOperationError
from aria_desktop.domain.hands import FileChange
from aria_desktop.domain.sandbox import PASSWORD_DB_SUFFIXES, Sandbox, refusal

__all__ = ["SandboxedFiles"]

_SNIFF_BYTES = 8192
_MAX_LISTED = 200
_FIND_MAX_VISITED = 50_000
_FIND_MAX_FILE_BYTES = 2 * 1024 * 1024
_MAX_DIFF_CHARS = 12_000


class SandboxedFiles:
    """File operations confined to a sandbox.

    Args:
        sandbox: allowed roots and exclusions.
        read_max_bytes: the most bytes one read returns (kept under the agent's cap on a tool
            result, so the model always sees where to read on).
        edit_max_bytes: the largest file that is written over or edited.
        trash_home: the freedesktop home trash folder (``$XDG_DATA_HOME/Trash``).
    """

    def __init__(
        self,
        sandbox: Sandbox,
        *,
        read_max_bytes: int,
        trash_home: str,
        edit_max_bytes: int = 1024 * 1024,
    ) -> None:
        self.guard = PathGuard(sandbox)
        self.read_max_bytes = read_max_bytes
        self.edit_max_bytes = edit_max_bytes
        self.trash_home = trash_home

    # --- looking ---------------------------------------------------------------------------

    def check(self, raw: str, *, write: bool = False) -> str:
        """The resolved path ``raw`` names if a tool may use it (PathRefusedError if not).

        ``write``: for changing, moving or trashing the name itself (a root, or a folder
        holding a protected one, is refused).
        """
        path = self.guard.resolve(raw, follow_final=not write)
        if write:
            self.guard.movable(path)
            self.guard.changeable(path)
        return path

    def list_dir(self, raw: str) -> dict[str, Any]:
        """The visible entries of a folder: name, kind, size, modification time."""
        path = self.guard.resolve(raw)
        entries: list[dict[str, Any]] = []
        hidden = 0
        with self.guard.dir_fd(path) as fd, os.scandir(fd) as scan:
            for entry in scan:
                if not self._visible(path, entry.name):
                    hidden += 1
                    continue
                info = entry.stat(follow_symlinks=False)
                entries.append(
                    {"name": entry.name, "kind": _kind(info.st_mode), "size": info.st_size}
                )
        entries.sort(key=lambda e: (e["kind"] != "folder", e["name"].lower()))
        result: dict[str, Any] = {"folder": self.guard.show(path), "entries": entries[:_MAX_LISTED]}
        if len(entries) > _MAX_LISTED:
            result["more"] = len(entries) - _MAX_LISTED
        if hidden:
            result["not_shown"] = hidden
        return result

    def _visible(self, folder: str, name: str) -> bool:
        child = folder.rstrip("/") + "/" + name
        return refusal(child, self.guard.sandbox) is None

    def read_text(self, raw: str, *, offset: int = 0) -> dict[str, Any]:
        """Up to ``read_max_bytes`` of a text file from byte ``offset``; binary is refused."""
        path = self.guard.resolve(raw)
        with self.guard.open_file(path) as fd:
            size = os.fstat(fd).st_size
            sniff = os.pread(fd, _SNIFF_BYTES, 0)
            if b"\x00" in sniff:
                raise FileOperationError(
                    f"{self.guard.show(path)} is a binary file (it contains NUL bytes); "
                    "ARIA reads text files only."
                )
            data = os.pread(fd, self.read_max_bytes, max(0, offset))
        text = _decode(data, path, self.guard, partial=offset + len(data) < size)
        result: dict[str, Any] = {"path": self.guard.show(path), "size": size, "text": text}
        end = offset + len(data)
        if end < size:
            result["truncated"] = f"bytes {offset}-{end} of {size}; read on with offset={end}"
        return result

    def find(self, raw: str, *, name: str = "", text: str = "", limit: int = 100) -> dict[str, Any]:
        """Files below a folder whose name matches a glob and/or whose text contains ``text``."""
        if not name and not text:
            raise FileOperationError("Give a name pattern, a text to look for, or both.")
        path = self.guard.resolve(raw)
        matches: list[dict[str, Any]] = []
        visited = 0
        with self.guard.dir_fd(path) as top:
            for folder, dirs, files, dir_fd in os.fwalk(".", dir_fd=top, follow_symlinks=False):
                here = os.path.normpath(os.path.join(path, folder))
                dirs[:] = [d for d in dirs if self._visible(here, d)]
                for file_name in files:
                    visited += 1
                    if len(matches) >= limit or visited > _FIND_MAX_VISITED:
                        return _found(matches, path, self.guard, complete=False)
                    if not self._visible(here, file_name):
                        continue
                    if name and not fnmatch.fnmatch(file_name.lower(), name.lower()):
                        continue
                    shown = self.guard.show(os.path.join(here, file_name))
                    if not text:
                        matches.append({"path": shown})
                        continue
                    lines = _grep(file_name, dir_fd, text)
                    if lines:
                        matches.append({"path": shown, "lines": lines})
        return _found(matches, path, self.guard, complete=True)

    # --- planning changes --------------------------------------------------------------------

    def plan_write(self, raw: str, content: str, *, overwrite: bool) -> FileChange:
        """The change writing ``content`` to ``raw`` makes (FileOperationError: would clobber)."""
        path = self.guard.resolve(raw, follow_final=False)
        self.guard.changeable(path)
        old = self._current(path)
        if old is not None and not overwrite:
            raise FileOperationError(
                f"{self.guard.show(path)} already exists; nothing was written.",
                hint="Edit it with file_edit, or write again with overwrite=true.",
            )
        return self._change(path, old, content)

    def plan_edit(self, raw: str, old_text: str, new_text: str) -> FileChange:
        """The change replacing the one occurrence of ``old_text``; says where when not unique."""
        path = self.guard.resolve(raw)
        current = self._current(path)
        if current is None:
            raise FileOperationError(f"{self.guard.show(path)} does not exist.")
        if not old_text:
            raise FileOperationError("The text to replace is empty.")
        count = current.count(old_text)
        if count == 0:
            raise FileOperationError(
                f"The text to replace does not occur in {self.guard.show(path)}.",
                hint="Read the file and copy the exact text, spaces and line breaks included.",
            )
        if count > 1:
            lines = _occurrence_lines(current, old_text)
            raise FileOperationError(
                f"The text to replace occurs {count} times in {self.guard.show(path)} "
                f"(lines {', '.join(map(str, lines[:20]))}); nothing was changed.",
                hint="Include more of the surrounding text so that it occurs exactly once.",
            )
        return self._change(path, current, current.replace(old_text, new_text, 1))

    def _current(self, path: str) -> str | None:
        """The text of ``path`` (None when absent); binary or oversized files are refused."""
        try:
            with self.guard.parent_fd(path) as (parent, name):
                os.stat(name, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except FileOperationError as exc:
            if "does not exist" in exc.message:
                return None
            raise
        with self.guard.open_file(path) as fd:
            data = os.pread(fd, self.edit_max_bytes + 1, 0)
        if len(data) > self.edit_max_bytes:
            raise FileOperationError(
                f"{self.guard.show(path)} is larger than {self.edit_max_bytes} bytes; "
                "ARIA changes only smaller text files."
            )
        if b"\x00" in data:
            raise FileOperationError(f"{self.guard.show(path)} is a binary file.")
        return _decode(data, path, self.guard, partial=False)

    def _change(self, path: str, old: str | None, new: str) -> FileChange:
        shown = self.guard.show(path)
        diff = "".join(
            difflib.unified_diff(
                (old or "").splitlines(keepends=True),
                new.splitlines(keepends=True),
                fromfile="/dev/null" if old is None else shown,
                tofile=shown,
            )
        )
        if len(diff) > _MAX_DIFF_CHARS:
            diff = diff[:_MAX_DIFF_CHARS] + "\n[diff shortened]\n"
        return FileChange(
            path=path,
            created=old is None,
            display=shown,
            diff=diff,
            token=_token(old),
            content=new,
        )

    # --- changing ----------------------------------------------------------------------------

    def apply(self, change: FileChange) -> dict[str, Any]:
        """Write ``change``, only if the file is still as it was when the change was planned."""
        path = change.path
        now = self._current(path)
        if _token(now) != change.token:
            raise FileOperationError(
                f"{change.display} changed after the change was prepared; nothing was written.",
                hint="Read the file again and redo the change.",
            )
        data = change.content.encode("utf-8")
        with self.guard.parent_fd(path) as (parent, name):
            if change.created:
                self._create(parent, name, data, path)
            else:
                self._replace(parent, name, data, path)
        return {"path": change.display, "bytes": len(data), "created": change.created}

    def _create(self, parent: int, name: str, data: bytes, path: str) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(name, flags, 0o644, dir_fd=parent)
        except OSError as exc:
            raise os_error(exc, path, self.guard) from exc
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)

    def _replace(self, parent: int, name: str, data: bytes, path: str) -> None:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
            raise FileOperationError(f"{self.guard.show(path)} changed; nothing was written.")
        temp = f".{name}.aria-{secrets.token_hex(4)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temp, flags, stat.S_IMODE(info.st_mode), dir_fd=parent)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(temp, name, src_dir_fd=parent, dst_dir_fd=parent)

    def plan_move(self, source: str, target: str, *, overwrite: bool) -> tuple[str, str, bool]:
        """(resolved source, resolved target, target exists) for a move, refusing clobbering."""
        src = self.guard.resolve(source, follow_final=False)
        self.guard.movable(src)
        dst = self.guard.resolve(target, follow_final=False)
        if src == dst:
            raise FileOperationError(f"{self.guard.show(src)} would be moved onto itself.")
        if not self._exists(src):
            raise FileOperationError(f"{self.guard.show(src)} does not exist.")
        exists = self._exists(dst)
        if exists and not overwrite:
            raise FileOperationError(
                f"{self.guard.show(dst)} already exists; nothing was moved.",
                hint="Choose another name, or trash the existing file first.",
            )
        return src, dst, exists

    def move(self, source: str, target: str, *, overwrite: bool) -> dict[str, Any]:
        """Move or rename one item inside the roots; an existing target is trashed first."""
        src, dst, exists = self.plan_move(source, target, overwrite=overwrite)
        replaced = None
        if exists:
            replaced = self.trash(dst)["trashed"]
        with (
            self.guard.parent_fd(src) as (src_dir, src_name),
            self.guard.parent_fd(dst) as (dst_dir, dst_name),
        ):
            if self._exists(dst):
                raise FileOperationError(f"{self.guard.show(dst)} appeared; nothing moved.")
            try:
                os.rename(src_name, dst_name, src_dir_fd=src_dir, dst_dir_fd=dst_dir)
            except OSError as exc:
                raise os_error(exc, src, self.guard) from exc
        result: dict[str, Any] = {"from": self.guard.show(src), "to": self.guard.show(dst)}
        if replaced:
            result["replaced_item_trashed"] = replaced
        return result

    def trash(self, raw: str) -> dict[str, Any]:
        """Move one item to the freedesktop trash (restorable; never unlinked)."""
        path = self.guard.resolve(raw, follow_final=False)
        self.guard.movable(path)
        with self.guard.parent_fd(path) as (parent, name):
            trashed = move_to_trash(parent, name, path, trash_home=self.trash_home)
        return {"trashed": self.guard.show(path), "trash_name": trashed}

    def is_dir(self, path: str) -> bool:
        """The resolved ``path`` is a folder (a link to one counts as a link, not a folder)."""
        try:
            with self.guard.parent_fd(path) as (parent, name):
                return stat.S_ISDIR(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
        except (FileNotFoundError, FileOperationError):
            return False

    def exists(self, path: str) -> bool:
        """Something (also a link) is at the resolved ``path``."""
        return self._exists(path)

    def _exists(self, path: str) -> bool:
        try:
            with self.guard.parent_fd(path) as (parent, name):
                os.stat(name, dir_fd=parent, follow_symlinks=False)
        except (FileNotFoundError, FileOperationError):
            return False
        return True


def _token(text: str | None) -> str:
    if text is None:
        return "absent"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISLNK(mode):
        return "link"
    return "file" if stat.S_ISREG(mode) else "other"


def _decode(data: bytes, path: str, guard: PathGuard, *, partial: bool) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if partial and exc.start >= len(data) - 3:
            return data[: exc.start].decode("utf-8")
        raise FileOperationError(
            f"{guard.show(path)} is not UTF-8 text (undecodable byte at {exc.start}); "
            "ARIA reads text files only."
        ) from exc


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _occurrence_lines(text: str, needle: str) -> list[int]:
    lines, start = [], 0
    while (index := text.find(needle, start)) != -1:
        lines.append(text.count("\n", 0, index) + 1)
        start = index + 1
    return lines


def _grep(name: str, dir_fd: int, needle: str) -> list[str]:
    """Up to 5 matching lines ``N: text`` of a text file (binary files are skipped)."""
    if name.lower().endswith(PASSWORD_DB_SUFFIXES):
        return []
    try:
        fd = os.open(
            name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd
        )
    except OSError:
        return []
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
            return []
        data = os.pread(fd, _FIND_MAX_FILE_BYTES, 0)
    finally:
        os.close(fd)
    if b"\x00" in data[:_SNIFF_BYTES]:
        return []
    lowered = needle.lower()
    hits = []
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if lowered in line.lower():
            hits.append(f"{number}: {line.strip()[:160]}")
            if len(hits) == 3:
                break
    return hits


def _found(
    matches: list[dict[str, Any]], path: str, guard: PathGuard, *, complete: bool
) -> dict[str, Any]:
    result: dict[str, Any] = {"folder": guard.show(path), "matches": matches}
    if not complete:
        result["incomplete"] = "stopped at the result or file limit; narrow the search"
    return result
