"""An in-memory ``core.ports.AuditStore``, for tests of the audit log that need no files.

``core.audit.AuditLog`` over this store behaves as over ``storage.audit_file.AuditFile`` (the
same bytes, the same chain and verification), without disk, threads or fsync; tests tamper
with ``log`` and ``checkpoint`` directly.
"""

from __future__ import annotations

from aria_desktop.domain.errors import AuditLogError

__all__ = ["MemoryAuditStore"]


class MemoryAuditStore:
    """The audit log's bytes in memory.

    Attributes:
        log: the log as stored; tests may change it to simulate tampering.
        checkpoint: the checkpoint as stored (None before the first append).
        fail_appends: when set, ``append`` raises it and stores nothing (a full disk).
    """

    def __init__(self) -> None:
        self.log = bytearray()
        self.checkpoint: bytes | None = None
        self.fail_appends: AuditLogError | None = None

    @property
    def location(self) -> str:
        """A name for messages."""
        return "memory"

    def read_log(self) -> bytes:
        """The log's bytes."""
        return bytes(self.log)

    def read_checkpoint(self) -> bytes | None:
        """The checkpoint's bytes."""
        return self.checkpoint

    async def append(self, line: bytes, checkpoint: bytes) -> None:
        """Add ``line`` (after a newline if the log ends mid-line), then keep ``checkpoint``."""
        if self.fail_appends is not None:
            raise self.fail_appends
        if self.log and not self.log.endswith(b"\n"):
            self.log += b"\n"
        self.log += line
        self.checkpoint = checkpoint
