"""The audit log on disk: a JSON-lines file plus a checkpoint file in another directory.

Satisfies ``core.ports.AuditStore`` for ``core.audit.AuditLog``, which owns the record format,
the hash chain and verification; this module only moves bytes to and from the two files, in a
worker thread so appends never block the event loop (see ``aria_desktop/ARCHITECTURE.md``).

Durability: each appended line is fsynced before the checkpoint is replaced (atomically), and
the folder is fsynced when the log file is created, so a sequence number ``AuditLog`` returns
survives a crash. Appending never rewrites existing bytes, so damage stays visible to
``aria audit verify``.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

from aria_desktop.domain.errors import AuditLogError
from aria_desktop.files import (
    PRIVATE_FILE_MODE,
    atomic_write,
    ensure_private_dir,
    fsync_dir,
    write_all,
)

__all__ = ["AuditFile"]

_WRITE_HINT = "Check free disk space and the permissions of the ARIA data directory."


class AuditFile:
    """The audit log's two files; ``core.ports.AuditStore``.

    Args:
        log_path: the JSON-lines log file.
        checkpoint_path: the checkpoint file; keep it in a different directory, so that whoever
            can rewrite the log does not also rewrite the checkpoint by the same mistake.

    Raises:
        ValueError: both paths name the same file.
    """

    def __init__(self, log_path: Path, checkpoint_path: Path) -> None:
        if log_path.resolve() == checkpoint_path.resolve():
            raise ValueError("the audit checkpoint must be a different file than the log")
        self._log_path = log_path
        self._checkpoint_path = checkpoint_path
        self._write_lock = threading.Lock()

    @property
    def location(self) -> str:
        """The log file's path, for messages."""
        return str(self._log_path)

    def read_log(self) -> bytes:
        """The log file's bytes; ``b""`` before the first record."""
        try:
            return self._log_path.read_bytes()
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise AuditLogError(
                f"Cannot read the audit log {self._log_path}: {exc.strerror}",
                hint=f"Check the permissions of {self._log_path}.",
            ) from exc

    def read_checkpoint(self) -> bytes | None:
        """The checkpoint file's bytes; None before the first record."""
        try:
            return self._checkpoint_path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise AuditLogError(
                f"checkpoint unreadable: {exc.strerror}",
                hint=f"Check the permissions of {self._checkpoint_path}.",
            ) from exc

    async def append(self, line: bytes, checkpoint: bytes) -> None:
        """Append ``line`` and then replace the checkpoint, in a worker thread."""
        await asyncio.to_thread(self._append_now, line, checkpoint)

    def _append_now(self, line: bytes, checkpoint: bytes) -> None:
        with self._write_lock:
            try:
                self._append_line(line)
                atomic_write(self._checkpoint_path, checkpoint, mode=PRIVATE_FILE_MODE)
            except OSError as exc:
                raise AuditLogError(
                    f"Cannot write the audit log {self._log_path}: {exc.strerror or exc}",
                    hint=_WRITE_HINT,
                ) from exc

    def _append_line(self, line: bytes) -> None:
        ensure_private_dir(self._log_path.parent)
        created = not self._log_path.exists()
        fd = os.open(self._log_path, os.O_RDWR | os.O_CREAT | os.O_APPEND, PRIVATE_FILE_MODE)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # a cut-off last line stays a line of its own, and visible
            write_all(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            fsync_dir(self._log_path.parent)
