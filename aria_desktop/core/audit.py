"""The append-only, hash-chained audit log of tool calls and policy decisions.

Format: one JSON object per line (UTF-8), written in canonical form (sorted keys, no spaces,
``ensure_ascii=False``)::

    {"data":{...},"hash":"<hex>","kind":"tool-call","prev":"<hex>","seq":1,"ts":1718000000.5}

``seq`` counts from 1 without gaps, ``prev`` is the previous record's ``hash`` (64 zeros for the
first record) and ``hash`` is the SHA-256 of the canonical JSON of the record without ``hash``.
Changing, inserting or deleting a record therefore breaks the chain from that record on.

Deleting records from the *end* leaves a valid chain, so after every append a checkpoint
(``{"seq": n, "head": hash}``) is written atomically to a separate file, normally in another
directory: a log that ends before the checkpoint's ``seq``, or whose record at that ``seq`` has a
different hash, was truncated or rewritten. (This makes tampering evident to an attacker who
edits the log without recomputing the chain and the checkpoint; it is not a signature.)

Corruption policy: appending never modifies existing bytes and never "repairs" the log. On
open, the next record continues from the newest trustworthy head: the checkpoint, or the last
self-consistent record in the log if that is newer (a crash between writing the log and the
checkpoint). Damaged records stay where they are, so ``verify()`` keeps reporting the first bad
one; a log whose last line was cut off mid-write gets a newline first, so the new record is a
line of its own. Opening a log that fails verification logs an error once; the report is
available as ``AuditLog.open_report``.

Nothing in the log may be a secret: callers pass redacted data, and every string value is also
passed through the optional ``redact`` callable (the composition root hands in the log
scrubber's ``scrub_text``).

Only the standard library and ``aria_desktop.domain`` are imported (core layer rule).
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from aria_desktop.domain.errors import AuditLogError

__all__ = ["GENESIS_HASH", "AuditLog", "AuditRecord", "AuditReport"]

_LOGGER = logging.getLogger(__name__)

GENESIS_HASH = "0" * 64
"""The ``prev`` of the first record."""

_FIELDS = frozenset({"seq", "ts", "kind", "data", "prev", "hash"})
_FILE_MODE = 0o600
_DIR_MODE = 0o700


class _WallClock(Protocol):
    def time(self) -> float: ...


class _SystemClock:
    def time(self) -> float:
        return time.time()


@dataclass(frozen=True)
class AuditRecord:
    """One audit record.

    Attributes:
        seq: sequence number, from 1.
        ts: wall-clock time of the append, UNIX seconds.
        kind: what happened ("tool-call", "policy-decision", ...).
        data: the redacted details (JSON values).
        prev: hash of the previous record (hex).
        hash: SHA-256 of this record's canonical JSON without ``hash`` (hex).
    """

    seq: int
    ts: float
    kind: str
    data: Mapping[str, Any]
    prev: str
    hash: str


@dataclass(frozen=True)
class AuditReport:
    """Result of ``AuditLog.verify``.

    Attributes:
        ok: the log is intact (and consistent with the checkpoint).
        records: how many records verified before the first problem (all of them when ok).
        first_bad_seq: sequence number of the first bad, missing or truncated record; None
            when ok or when the problem is not tied to a record (e.g. a missing checkpoint).
        reason: human-readable explanation ("" when ok and nothing worth noting).
    """

    ok: bool
    records: int
    first_bad_seq: int | None
    reason: str


def _canonical(obj: Mapping[str, Any]) -> bytes:
    return json.dumps(
        obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def _record_hash(record: Mapping[str, Any]) -> str:
    body = {k: v for k, v in record.items() if k != "hash"}
    return hashlib.sha256(_canonical(body)).hexdigest()


def _is_hex64(value: object) -> bool:
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def _parse_line(line: bytes) -> dict[str, Any] | str:
    """Parse one line into a record dict, or return why it is not a well-formed record."""
    try:
        obj = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return f"unparsable line ({type(exc).__name__})"
    if not isinstance(obj, dict) or set(obj) != _FIELDS:
        return "not an audit record (wrong fields)"
    seq, ts, kind, data = obj["seq"], obj["ts"], obj["kind"], obj["data"]
    if (
        not isinstance(seq, int)
        or isinstance(seq, bool)
        or not isinstance(ts, int | float)
        or isinstance(ts, bool)
        or not isinstance(kind, str)
        or not isinstance(data, dict)
        or not _is_hex64(obj["prev"])
        or not _is_hex64(obj["hash"])
    ):
        return "not an audit record (wrong field types)"
    try:
        canonical = _canonical(obj)
    except ValueError:
        return "not an audit record (non-finite number)"
    if canonical != line:
        return "record is not in canonical form (bytes altered)"
    return obj


def _to_record(obj: Mapping[str, Any]) -> AuditRecord:
    return AuditRecord(
        seq=obj["seq"],
        ts=float(obj["ts"]),
        kind=obj["kind"],
        data=obj["data"],
        prev=obj["prev"],
        hash=obj["hash"],
    )


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _ensure_dir(path: Path) -> None:
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True, mode=_DIR_MODE)


@dataclass(frozen=True)
class _Checkpoint:
    seq: int
    head: str


class AuditLog:
    """Hash-chained JSON-lines audit log with an external checkpoint; satisfies ``AuditSink``.

    Appends are serialised (an asyncio lock for coroutines, a thread lock for the file), each
    one flushed and fsynced before the checkpoint is replaced, so a returned sequence number is
    durable.
    """

    def __init__(
        self,
        log_path: Path,
        checkpoint_path: Path,
        *,
        redact: Callable[[str], str] | None = None,
        clock: _WallClock | None = None,
    ) -> None:
        """Open (or prepare to create) the log and find where the chain continues.

        Args:
            log_path: the JSON-lines log file.
            checkpoint_path: the checkpoint file; keep it in a different directory.
            redact: applied to every string value (and dict key) in appended data.
            clock: wall-clock source with ``time()`` in UNIX seconds (``core.ports.Clock``).

        Raises:
            AuditLogError: the log or checkpoint exists but cannot be read.
        """
        if log_path.resolve() == checkpoint_path.resolve():
            raise ValueError("the audit checkpoint must be a different file than the log")
        self._log_path = log_path
        self._checkpoint_path = checkpoint_path
        self._redact = redact
        self._clock: _WallClock = clock or _SystemClock()
        self._thread_lock = threading.Lock()
        self._async_lock = asyncio.Lock()
        self._seq, self._head = self._resume()
        self.open_report = self.verify()
        if not self.open_report.ok:
            _LOGGER.error(
                "audit log %s failed verification: %s (first bad seq %s); new records "
                "continue the chain after seq %d and the damage stays visible",
                log_path,
                self.open_report.reason,
                self.open_report.first_bad_seq,
                self._seq,
            )

    @property
    def log_path(self) -> Path:
        """The log file."""
        return self._log_path

    @property
    def checkpoint_path(self) -> Path:
        """The checkpoint file."""
        return self._checkpoint_path

    @property
    def last_seq(self) -> int:
        """Sequence number of the newest record (0 for an empty log)."""
        return self._seq

    # --- reading ----------------------------------------------------------------------------

    def _read_lines(self) -> tuple[list[bytes], bool]:
        """The log's lines (without newlines) and whether the last line was terminated."""
        try:
            content = self._log_path.read_bytes()
        except FileNotFoundError:
            return [], True
        except OSError as exc:
            raise AuditLogError(
                f"Cannot read the audit log {self._log_path}: {exc.strerror}",
                hint=f"Check the permissions of {self._log_path}.",
            ) from exc
        if not content:
            return [], True
        terminated = content.endswith(b"\n")
        lines = content.split(b"\n")
        if terminated:
            lines.pop()
        return lines, terminated

    def _read_checkpoint(self) -> _Checkpoint | str | None:
        """The checkpoint, None if there is none, or why it is unreadable."""
        try:
            raw = self._checkpoint_path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"checkpoint unreadable: {exc.strerror}"
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return "checkpoint file is corrupt"
        if (
            not isinstance(obj, dict)
            or not isinstance(obj.get("seq"), int)
            or isinstance(obj.get("seq"), bool)
            or obj["seq"] < 0
            or not _is_hex64(obj.get("head"))
        ):
            return "checkpoint file is corrupt"
        return _Checkpoint(seq=obj["seq"], head=obj["head"])

    def _resume(self) -> tuple[int, str]:
        """Sequence number and hash the next append continues from (see module docstring)."""
        lines, _ = self._read_lines()
        last: tuple[int, str] = (0, GENESIS_HASH)
        for line in lines:
            parsed = _parse_line(line)
            if (
                isinstance(parsed, dict)
                and _record_hash(parsed) == parsed["hash"]
                and parsed["seq"] > last[0]
            ):
                last = (parsed["seq"], parsed["hash"])
        checkpoint = self._read_checkpoint()
        if isinstance(checkpoint, _Checkpoint) and checkpoint.seq >= last[0]:
            return checkpoint.seq, checkpoint.head
        return last

    def records(self, limit: int | None = None) -> Iterator[AuditRecord]:
        """Well-formed records, oldest first; with ``limit``, only the newest ``limit``.

        Lines that are not well-formed records are skipped (with a warning); use ``verify``
        to judge integrity.
        """
        lines, _ = self._read_lines()
        selected: collections.deque[AuditRecord] = collections.deque(maxlen=limit)
        skipped = 0
        for line in lines:
            parsed = _parse_line(line)
            if isinstance(parsed, dict):
                selected.append(_to_record(parsed))
            else:
                skipped += 1
        if skipped:
            _LOGGER.warning("audit log %s: skipped %d malformed line(s)", self._log_path, skipped)
        yield from selected

    def verify(self) -> AuditReport:
        """Check every record and the checkpoint; report the first problem.

        Problems, in the order records are read: a line that is not a canonical, well-formed
        record (a flipped bit, a cut-off write), a hash that does not match the record, a
        sequence gap (a deleted record), a ``prev`` that is not the previous hash (a record
        replaced or reordered); then, against the checkpoint: fewer records than it names
        (tail truncated) or a different hash at its ``seq`` (rewritten).
        """
        lines, terminated = self._read_lines()
        prev_hash = GENESIS_HASH
        hashes: dict[int, str] = {}
        count = 0
        for index, line in enumerate(lines):
            expected_seq = index + 1
            parsed = _parse_line(line)
            if isinstance(parsed, str):
                if index == len(lines) - 1 and not terminated:
                    parsed = f"last record incomplete (interrupted write or truncation); {parsed}"
                return AuditReport(False, count, expected_seq, f"seq {expected_seq}: {parsed}")
            if _record_hash(parsed) != parsed["hash"]:
                reason = f"seq {expected_seq}: hash mismatch (record altered)"
                return AuditReport(False, count, expected_seq, reason)
            if parsed["seq"] != expected_seq:
                reason = (
                    f"sequence gap: expected seq {expected_seq}, found {parsed['seq']} "
                    "(record deleted or inserted)"
                )
                return AuditReport(False, count, expected_seq, reason)
            if parsed["prev"] != prev_hash:
                reason = f"seq {expected_seq}: chain broken (prev does not match seq {index})"
                return AuditReport(False, count, expected_seq, reason)
            if not terminated and index == len(lines) - 1:
                reason = f"seq {expected_seq}: last line has no newline (interrupted write)"
                return AuditReport(False, count, expected_seq, reason)
            prev_hash = parsed["hash"]
            hashes[expected_seq] = prev_hash
            count += 1
        checkpoint = self._read_checkpoint()
        if isinstance(checkpoint, str):
            return AuditReport(False, count, None, checkpoint)
        if checkpoint is None:
            if count:
                reason = "checkpoint missing: truncation of the log cannot be ruled out"
                return AuditReport(False, count, None, reason)
            return AuditReport(True, 0, None, "")
        if checkpoint.seq > count:
            reason = (
                f"log ends at seq {count} but the checkpoint records seq {checkpoint.seq} "
                "(tail truncated)"
            )
            return AuditReport(False, count, count + 1, reason)
        if checkpoint.seq and hashes[checkpoint.seq] != checkpoint.head:
            reason = f"seq {checkpoint.seq}: hash differs from the checkpoint (log rewritten)"
            return AuditReport(False, checkpoint.seq - 1, checkpoint.seq, reason)
        if count > checkpoint.seq:
            reason = (
                f"{count - checkpoint.seq} record(s) after the checkpoint "
                "(crash between append and checkpoint?)"
            )
            return AuditReport(True, count, None, reason)
        return AuditReport(True, count, None, "")

    # --- writing ----------------------------------------------------------------------------

    def _clean(self, value: Any) -> Any:
        """JSON-safe copy of ``value`` with every string passed through ``redact``."""
        if isinstance(value, str):
            return self._redact(value) if self._redact else value
        if value is None or isinstance(value, bool | int):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else repr(value)
        if isinstance(value, Mapping):
            return {str(self._clean(str(k))): self._clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple | set | frozenset):
            items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
            return [self._clean(v) for v in items]
        return self._clean(str(value))

    def append_sync(self, kind: str, data: Mapping[str, Any]) -> int:
        """Append one record durably (blocking); return its sequence number.

        Raises:
            ValueError: empty ``kind``.
            AuditLogError: the log or checkpoint could not be written.
        """
        if not kind:
            raise ValueError("audit record kind must not be empty")
        clean_data = self._clean(dict(data))
        with self._thread_lock:
            record: dict[str, Any] = {
                "seq": self._seq + 1,
                "ts": self._clock.time(),
                "kind": kind,
                "data": clean_data,
                "prev": self._head,
            }
            record["hash"] = _record_hash(record)
            line = _canonical(record) + b"\n"
            try:
                self._write_record(line)
                self._write_checkpoint(record["seq"], record["hash"])
            except OSError as exc:
                raise AuditLogError(
                    f"Cannot write the audit log {self._log_path}: {exc.strerror or exc}",
                    hint="Check free disk space and the permissions of the ARIA data directory.",
                ) from exc
            self._seq, self._head = record["seq"], record["hash"]
            return self._seq

    async def append(self, kind: str, data: Mapping[str, Any]) -> int:
        """Append one record without blocking the event loop; return its sequence number."""
        async with self._async_lock:
            return await asyncio.to_thread(self.append_sync, kind, data)

    def _write_record(self, line: bytes) -> None:
        _ensure_dir(self._log_path.parent)
        created = not self._log_path.exists()
        fd = os.open(self._log_path, os.O_RDWR | os.O_CREAT | os.O_APPEND, _FILE_MODE)
        try:
            size = os.fstat(fd).st_size
            if size:
                # A cut-off last line must stay a line of its own (and stay visible).
                last = os.pread(fd, 1, size - 1)
                if last != b"\n":
                    line = b"\n" + line
            view = memoryview(line)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            _fsync_dir(self._log_path.parent)

    def _write_checkpoint(self, seq: int, head: str) -> None:
        directory = self._checkpoint_path.parent
        _ensure_dir(directory)
        tmp = directory / f".{self._checkpoint_path.name}.{os.getpid()}.tmp"
        payload = json.dumps({"seq": seq, "head": head}, sort_keys=True).encode("ascii")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, _FILE_MODE)
        try:
            os.write(fd, payload + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self._checkpoint_path)
        _fsync_dir(directory)
