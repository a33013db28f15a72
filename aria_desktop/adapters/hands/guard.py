"""Resolving a tool's path and opening it so that it cannot escape the allowed roots.

Two steps, both needed (ARCHITECTURE.md: safety): the path is resolved with its links
(``os.path.realpath``; for a new file or a name that is moved or trashed, the parent) and the
result judged by the pure rules of ``domain/sandbox.py``; then it is opened by walking from the
root's directory descriptor one component at a time with ``O_NOFOLLOW``. The resolved path
holds no links, so a link met on the walk means the path was swapped between check and use:
it is refused, never followed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import stat
from collections.abc import Iterator

from aria_desktop.domain.errors import FileOperationError, PathRefusedError
from aria_desktop.domain.sandbox import (
    SECRET_STORES,
    Sandbox,
    inside,
    lexical_problem,
    refusal,
    shorten,
)

__all__ = ["PathGuard", "os_error"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class PathGuard:
    """Resolves and opens paths inside a :class:`Sandbox`.

    Args:
        sandbox: the allowed roots (already resolved) and the excluded folders.
    """

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def show(self, path: str) -> str:
        """``path`` as the user reads it."""
        return shorten(path, self.sandbox.home)

    def resolve(self, raw: str, *, follow_final: bool = True, base: str | None = None) -> str:
        """The absolute, link-free path ``raw`` names, or PathRefusedError saying why not.

        ``follow_final=False`` resolves only the parent: the name itself is what a move, a
        trash or a new file acts on (a link is moved, not its target).
        """
        problem = lexical_problem(raw)
        if problem:
            raise PathRefusedError(f"Refused {raw[:200]!r}: {problem}.", hint=_HINT)
        lexical = self.sandbox.expand(raw, base=base)
        self._judge(lexical)
        if follow_final or lexical == "/":
            resolved = os.path.realpath(lexical)
        else:
            parent, name = posixpath.split(lexical)
            resolved = posixpath.join(os.path.realpath(parent), name)
        if resolved != lexical:
            self._judge(resolved, via=lexical)
        return resolved

    def movable(self, path: str) -> None:
        """Refuse moving or trashing ``path`` when it is a root or holds a protected folder."""
        sandbox = self.sandbox
        if path in sandbox.roots or path == sandbox.home:
            raise PathRefusedError(
                f"Refused: {self.show(path)} is an allowed folder itself; it is not moved or "
                "trashed.",
                hint=_HINT,
            )
        stores = (*(posixpath.join(sandbox.home, s) for s in SECRET_STORES), *sandbox.excluded)
        held = [store for store in stores if inside(store, path)]
        if held:
            raise PathRefusedError(
                f"Refused: {self.show(path)} holds a protected folder ({self.show(held[0])}).",
                hint=_HINT,
            )

    def changeable(self, path: str) -> None:
        """Refuse changing the resolved name ``path`` where the change could reach outside.

        The name itself is judged by ``resolve(follow_final=False)``; this looks at what is at
        it now: a symbolic link is refused (what it leads to is named, and refused outright
        when that is out of reach), and so is a regular file with other hard links, which may
        be the same bytes as a file outside the allowed folders. A person approving a diff
        could not see that a file elsewhere changes. ``open_file`` checks the descriptor again
        at the moment of the change.
        """
        try:
            info = os.lstat(path)
        except OSError:
            return  # nothing there yet: a new file, created with O_EXCL | O_NOFOLLOW
        shown = self.show(path)
        if stat.S_ISLNK(info.st_mode):
            target = os.path.realpath(path)
            reason = refusal(target, self.sandbox)
            if reason:
                raise PathRefusedError(
                    f"Refused: {shown} is a link to {self.show(target)}: {reason}.", hint=_HINT
                )
            raise PathRefusedError(
                f"Refused: {shown} is a link (to {self.show(target)}); ARIA changes files "
                "themselves, never through a link.",
                hint=f"Use the path it leads to: {self.show(target)}.",
            )
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            raise PathRefusedError(
                f"Refused: {shown} has {info.st_nlink} hard links; another name for the same "
                "file may lie outside the allowed folders.",
                hint=_HINT,
            )

    def _judge(self, path: str, *, via: str | None = None) -> None:
        reason = refusal(path, self.sandbox)
        if reason:
            prefix = f"{self.show(via)} leads to {self.show(path)}: " if via else ""
            raise PathRefusedError(f"Refused: {prefix}{reason}.", hint=_HINT)

    def root_of(self, path: str) -> str:
        """The (longest) allowed root holding the resolved ``path``."""
        roots = [root for root in self.sandbox.roots if inside(path, root)]
        if not roots:
            raise PathRefusedError(f"Refused: {self.show(path)} is outside the allowed folders.")
        return max(roots, key=len)

    @contextlib.contextmanager
    def parent_fd(self, path: str) -> Iterator[tuple[int, str]]:
        """The directory descriptor holding the resolved ``path``'s last component, and it.

        For a root itself the name is ``.``.
        """
        root = self.root_of(path)
        parts = [p for p in path[len(root) :].split("/") if p]
        fd = _open_dir(root, None, path, self)
        try:
            for part in parts[:-1]:
                next_fd = _open_dir(part, fd, path, self)
                os.close(fd)
                fd = next_fd
            yield fd, parts[-1] if parts else "."
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def dir_fd(self, path: str) -> Iterator[int]:
        """A descriptor of the resolved directory ``path`` (no link anywhere on the way)."""
        with self.parent_fd(path) as (parent, name):
            fd = _open_dir(name, parent, path, self)
        try:
            yield fd
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def open_file(self, path: str, flags: int = os.O_RDONLY) -> Iterator[int]:
        """A descriptor of the resolved regular file ``path``; refused when it has other names.

        A file with more than one hard link may be the same bytes as a file outside the roots,
        so it is refused: reading or changing it could reach what the roots exclude.
        """
        with self.parent_fd(path) as (parent, name):
            try:
                fd = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
            except OSError as exc:
                raise os_error(exc, path, self) from exc
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
                raise FileOperationError(f"{self.show(path)} is {kind}.")
            if info.st_nlink > 1:
                raise PathRefusedError(
                    f"Refused: {self.show(path)} has {info.st_nlink} hard links; another name "
                    "for the same file may lie outside the allowed folders.",
                    hint=_HINT,
                )
            yield fd
        finally:
            os.close(fd)


_HINT = "Use a path inside the allowed folders (tools.files.roots; see `aria tools check path`)."


def _open_dir(name: str, dir_fd: int | None, path: str, guard: PathGuard) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ENOTDIR and _is_link(name, dir_fd):
            # O_DIRECTORY | O_NOFOLLOW on a link fails with ENOTDIR, not ELOOP.
            exc = OSError(errno.ELOOP, os.strerror(errno.ELOOP))
        raise os_error(exc, path, guard) from exc


def _is_link(name: str, dir_fd: int | None) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def os_error(exc: OSError, path: str, guard: PathGuard) -> Exception:
    """An OSError met while walking or opening ``path`` as the error the user sees."""
    shown = guard.show(path)
    if exc.errno in (errno.ELOOP, errno.EMLINK):
        return PathRefusedError(
            f"Refused: a part of {shown} became a symbolic link after it was checked.",
            hint="Something changed the folder while ARIA used it; look at it and try again.",
        )
    if exc.errno == errno.ENOTDIR:
        return FileOperationError(f"A part of {shown} is not a folder (or became a link).")
    if exc.errno == errno.ENOENT:
        return FileOperationError(f"{shown} does not exist.", hint="List the folder first.")
    if exc.errno == errno.EEXIST:
        return FileOperationError(f"{shown} already exists.")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return FileOperationError(f"Permission denied for {shown}.")
    if exc.errno == errno.EISDIR:
        return FileOperationError(f"{shown} is a folder.")
    return FileOperationError(f"{shown}: {exc.strerror or exc}.")
