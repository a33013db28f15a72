"""The append-only, hash-chained audit log of tool calls and policy decisions.

Format: one JSON object per line (UTF-8), written in canonical form (sorted keys, no spaces,
``ensure_ascii=False``)::

    {"data":{...},"hash":"<hex>","kind":"tool-call","prev":"<hex>","seq":1,"ts":1718000000.5}

``seq`` counts from 1 without gaps, ``prev`` is the previous record's ``hash`` (64 zeros for the
first record) and ``hash`` is the SHA-256 of the canonical JSON of the record without ``hash``.
Changing, inserting or deleting a record therefore breaks the chain from that record on.

Deleting records from the *end* leaves a valid chain, so after every append a checkpoint
(``{"seq": n, "head": hash}``) is stored atomically apart from the log (the file adapter keeps
it in another directory): a log that ends before the checkpoint's ``seq``, or whose record at
that ``seq`` has a different hash, was truncated or rewritten. (This makes tampering evident to
an attacker who edits the log without recomputing the chain and the checkpoint; it is not a
signature.)

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

Where the bytes live is a port, ``core.ports.AuditStore``: the file adapter is
``storage.audit_file.AuditFile`` (the log and a checkpoint file in another directory, written
from a worker thread), tests use an in-memory store. This module stays pure: it builds, chains
and checks records and never opens a file (see ``aria_desktop/ARCHITECTURE.md``).
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import json
import logging
import math
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from aria_desktop.core.ports import AuditStore
from aria_desktop.domain.errors import AuditLogError

__all__ = ["GENESIS_HASH", "AuditLog", "AuditRecord", "AuditReport"]

_LOGGER = logging.getLogger(__name__)

GENESIS_HASH = "0" * 64
"""The ``prev`` of the first record."""

_FIELDS = frozenset({"seq", "ts", "kind", "data", "prev", "hash"})


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


def _split_lines(content: bytes) -> tuple[list[bytes], bool]:
    """The log's lines (without newlines) and whether the last line was terminated."""
    if not content:
        return [], True
    terminated = content.endswith(b"\n")
    lines = content.split(b"\n")
    if terminated:
        lines.pop()
    return lines, terminated


@dataclass(frozen=True)
class _Checkpoint:
    seq: int
    head: str

    def encode(self) -> bytes:
        """The checkpoint as stored: one line of JSON."""
        return json.dumps({"seq": self.seq, "head": self.head}, sort_keys=True).encode() + b"\n"


def _parse_checkpoint(raw: bytes) -> _Checkpoint | str:
    """The checkpoint in ``raw``, or why it is not one."""
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


class AuditLog:
    """Hash-chained JSON-lines audit log with an external checkpoint; satisfies ``AuditSink``.

    Appends are serialised by an asyncio lock, and the chain only advances once the store has
    the record and the checkpoint durably, so a returned sequence number is never lost.
    """

    def __init__(
        self,
        store: AuditStore,
        *,
        redact: Callable[[str], str] | None = None,
        clock: _WallClock | None = None,
    ) -> None:
        """Open the log in ``store`` and find where the chain continues.

        Args:
            store: where the log and its checkpoint are kept (``storage.audit_file.AuditFile``).
            redact: applied to every string value (and dict key) in appended data.
            clock: wall-clock source with ``time()`` in UNIX seconds (``core.ports.Clock``).

        Raises:
            AuditLogError: the log exists but cannot be read.
        """
        self._store = store
        self._redact = redact
        self._clock: _WallClock = clock or _SystemClock()
        self._lock = asyncio.Lock()
        self._seq, self._head = self._resume()
        self.open_report = self.verify()
        if not self.open_report.ok:
            _LOGGER.error(
                "audit log %s failed verification: %s (first bad seq %s); new records "
                "continue the chain after seq %d and the damage stays visible",
                store.location,
                self.open_report.reason,
                self.open_report.first_bad_seq,
                self._seq,
            )

    @property
    def last_seq(self) -> int:
        """Sequence number of the newest record (0 for an empty log)."""
        return self._seq

    # --- reading ----------------------------------------------------------------------------

    def _read_lines(self) -> tuple[list[bytes], bool]:
        return _split_lines(self._store.read_log())

    def _read_checkpoint(self) -> _Checkpoint | str | None:
        """The checkpoint, None if there is none, or why it is unreadable."""
        try:
            raw = self._store.read_checkpoint()
        except AuditLogError as exc:
            return exc.message
        return None if raw is None else _parse_checkpoint(raw)

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
            _LOGGER.warning(
                "audit log %s: skipped %d malformed line(s)", self._store.location, skipped
            )
        yield from selected

    def verify(self) -> AuditReport:
        """Check every record and the checkpoint; report the first problem.

        Problems, in the order records are read: a line that is not a canonical, well-formed
        record (a flipped bit, a cut-off write), a hash that does not match the record, a
        sequence gap (a deleted record), a ``prev`` that is not the previous hash (a record
        replaced or reordered); then, against the checkpoint: fewer records than it names
        (tail truncated) or a different hash at its ``seq`` (rewritten).
        """
        hashes, problem = _check_chain(*self._read_lines())
        if problem is not None:
            return problem
        return _check_against(self._read_checkpoint(), hashes)

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

    async def append(self, kind: str, data: Mapping[str, Any]) -> int:
        """Append one record durably; return its sequence number.

        Raises:
            ValueError: empty ``kind``.
            AuditLogError: the store could not write the record or the checkpoint.
        """
        if not kind:
            raise ValueError("audit record kind must not be empty")
        clean_data = self._clean(dict(data))
        async with self._lock:
            record: dict[str, Any] = {
                "seq": self._seq + 1,
                "ts": self._clock.time(),
                "kind": kind,
                "data": clean_data,
                "prev": self._head,
            }
            record["hash"] = _record_hash(record)
            checkpoint = _Checkpoint(seq=record["seq"], head=record["hash"])
            await self._store.append(_canonical(record) + b"\n", checkpoint.encode())
            self._seq, self._head = checkpoint.seq, checkpoint.head
            return self._seq


def _check_chain(lines: list[bytes], terminated: bool) -> tuple[list[str], AuditReport | None]:
    """The hashes of the good records before the first bad line, and the report on that line."""
    hashes: list[str] = []
    for index, line in enumerate(lines):
        seq = index + 1
        cut_off = index == len(lines) - 1 and not terminated
        parsed = _parse_line(line)
        if isinstance(parsed, str):
            if cut_off:
                parsed = f"last record incomplete (interrupted write or truncation); {parsed}"
            return hashes, AuditReport(False, index, seq, f"seq {seq}: {parsed}")
        reason = _chain_problem(parsed, seq, hashes[-1] if hashes else GENESIS_HASH, cut_off)
        if reason:
            return hashes, AuditReport(False, index, seq, reason)
        hashes.append(parsed["hash"])
    return hashes, None


def _chain_problem(record: Mapping[str, Any], seq: int, prev_hash: str, cut_off: bool) -> str:
    """Why a well-formed record at position ``seq`` breaks the chain ("" when it does not)."""
    if _record_hash(record) != record["hash"]:
        return f"seq {seq}: hash mismatch (record altered)"
    if record["seq"] != seq:
        return (
            f"sequence gap: expected seq {seq}, found {record['seq']} (record deleted or inserted)"
        )
    if record["prev"] != prev_hash:
        return f"seq {seq}: chain broken (prev does not match seq {seq - 1})"
    if cut_off:
        return f"seq {seq}: last line has no newline (interrupted write)"
    return ""


def _check_against(checkpoint: _Checkpoint | str | None, hashes: list[str]) -> AuditReport:
    """Judge an intact chain of ``hashes`` against the checkpoint (truncation, rewriting)."""
    count = len(hashes)
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
    if checkpoint.seq and hashes[checkpoint.seq - 1] != checkpoint.head:
        reason = f"seq {checkpoint.seq}: hash differs from the checkpoint (log rewritten)"
        return AuditReport(False, checkpoint.seq - 1, checkpoint.seq, reason)
    if count > checkpoint.seq:
        reason = (
            f"{count - checkpoint.seq} record(s) after the checkpoint "
            "(crash between append and checkpoint?)"
        )
        return AuditReport(True, count, None, reason)
    return AuditReport(True, count, None, "")
