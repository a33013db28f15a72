"""The audit log's record format, chain, verification and appends, over an in-memory store.

Tampering with the real files (bit flips, truncation, deleted records) is tested against the
file adapter in ``tests/storage/test_audit_file.py``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from pathlib import Path

import pytest

from aria_desktop.core.audit import GENESIS_HASH, AuditLog, AuditReport
from aria_desktop.core.ports import AuditSink, AuditStore
from aria_desktop.domain.errors import AuditLogError
from tests.fakes.audit import MemoryAuditStore


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.25

    def time(self) -> float:
        self.now += 1.5
        return self.now


def _open(store: MemoryAuditStore, **kwargs: object) -> AuditLog:
    return AuditLog(store, clock=FakeClock(), **kwargs)  # type: ignore[arg-type]


async def _filled(store: MemoryAuditStore, count: int = 5) -> AuditLog:
    audit = _open(store)
    for i in range(count):
        await audit.append("tool-call", {"tool": "type_text", "n": i, "ok": i % 2 == 0})
    return audit


def _lines(store: MemoryAuditStore) -> list[bytes]:
    return bytes(store.log).splitlines(keepends=True)


def _forge(record: dict[str, object]) -> bytes:
    """``record`` re-hashed as a forger who knows the format would write it."""
    body = {k: v for k, v in record.items() if k != "hash"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    record = {**body, "hash": hashlib.sha256(canonical.encode()).hexdigest()}
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def test_the_memory_store_satisfies_the_port() -> None:
    store: AuditStore = MemoryAuditStore()
    assert store.read_log() == b""
    assert store.read_checkpoint() is None


# --- format and a clean log ---------------------------------------------------------------------


async def test_clean_log_verifies() -> None:
    audit = await _filled(MemoryAuditStore())
    assert audit.verify() == AuditReport(ok=True, records=5, first_bad_seq=None, reason="")
    assert audit.last_seq == 5


def test_empty_log_verifies() -> None:
    assert _open(MemoryAuditStore()).verify() == AuditReport(True, 0, None, "")


async def test_record_format_and_chain() -> None:
    store = MemoryAuditStore()
    audit = _open(store)
    for i in range(3):
        await audit.append("tool-call", {"args": {"text": f"héllo ✓ {i}"}})
    records = [json.loads(line) for line in _lines(store)]
    prev = GENESIS_HASH
    for seq, record in enumerate(records, start=1):
        assert set(record) == {"seq", "ts", "kind", "data", "prev", "hash"}
        assert record["seq"] == seq
        assert record["prev"] == prev
        body = {k: v for k, v in record.items() if k != "hash"}
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert record["hash"] == hashlib.sha256(canonical.encode("utf-8")).hexdigest()
        prev = record["hash"]
    assert records[0]["data"]["args"]["text"] == "héllo ✓ 0"
    assert "héllo ✓".encode() in store.log  # ensure_ascii=False
    assert store.checkpoint is not None
    assert json.loads(store.checkpoint) == {"seq": 3, "head": records[-1]["hash"]}


# --- tampering that needs no file ---------------------------------------------------------------


async def test_swapped_records() -> None:
    store = MemoryAuditStore()
    audit = await _filled(store)
    lines = _lines(store)
    lines[1], lines[2] = lines[2], lines[1]
    store.log = bytearray(b"".join(lines))
    assert audit.verify().first_bad_seq == 2


async def test_rewritten_tail_differs_from_checkpoint() -> None:
    store = MemoryAuditStore()
    audit = await _filled(store, 3)
    checkpoint = store.checkpoint
    lines = _lines(store)
    # A forger rewrites the last record with a valid hash but cannot touch the checkpoint.
    record = json.loads(lines[-1])
    record["data"] = {"tool": "nothing to see"}
    store.log = bytearray(b"".join(lines[:-1]) + _forge(record) + b"\n")
    assert store.checkpoint == checkpoint
    report = audit.verify()
    assert (report.ok, report.first_bad_seq) == (False, 3)
    assert "checkpoint" in report.reason


async def test_missing_or_corrupt_checkpoint() -> None:
    store = MemoryAuditStore()
    audit = await _filled(store, 2)
    saved = store.checkpoint
    assert saved is not None
    store.checkpoint = None
    report = audit.verify()
    assert (report.ok, report.first_bad_seq, report.records) == (False, None, 2)
    assert "checkpoint missing" in report.reason
    store.checkpoint = saved[:-5]
    assert audit.verify() == AuditReport(False, 2, None, "checkpoint file is corrupt")


async def test_records_after_the_checkpoint_are_ok() -> None:
    store = MemoryAuditStore()
    audit = await _filled(store, 2)
    old_checkpoint = store.checkpoint
    await audit.append("tool-call", {"n": 3})
    store.checkpoint = old_checkpoint  # as if we crashed before the checkpoint write
    report = audit.verify()
    assert (report.ok, report.records) == (True, 3)
    assert "after the checkpoint" in report.reason
    reopened = _open(store)
    assert reopened.last_seq == 3
    await reopened.append("tool-call", {"n": 4})
    assert reopened.verify() == AuditReport(True, 4, None, "")


# --- reopening and appending after damage -------------------------------------------------------


async def test_reopen_resumes_the_chain() -> None:
    store = MemoryAuditStore()
    await _filled(store, 3)
    reopened = _open(store)
    assert reopened.open_report.ok
    assert reopened.last_seq == 3
    assert await reopened.append("policy-decision", {"decision": "allow"}) == 4
    assert reopened.verify() == AuditReport(True, 4, None, "")


async def test_append_continues_after_the_newest_consistent_record() -> None:
    store = MemoryAuditStore()
    await _filled(store, 2)
    lines = _lines(store)
    record = json.loads(lines[-1])
    record["seq"] = 9  # a well-formed record claiming a later seq than the checkpoint
    store.log = bytearray(b"".join(lines[:-1]) + _forge(record) + b"\n")
    reopened = _open(store)
    assert not reopened.open_report.ok
    assert reopened.last_seq == 9  # the newest self-consistent record wins over the checkpoint
    assert await reopened.append("tool-call", {}) == 10
    assert reopened.verify().first_bad_seq == 2


# --- appending ------------------------------------------------------------------------------


async def test_concurrent_appends_stay_chained() -> None:
    audit = _open(MemoryAuditStore())
    sink: AuditSink = audit
    seqs = await asyncio.gather(*(sink.append("tool-call", {"n": i}) for i in range(40)))
    assert sorted(seqs) == list(range(1, 41))
    assert audit.verify() == AuditReport(True, 40, None, "")
    assert sorted(r.data["n"] for r in audit.records()) == list(range(40))


async def test_redact_and_json_safety() -> None:
    store = MemoryAuditStore()
    audit = _open(store, redact=lambda text: text.replace("sk-secret", "[REDACTED]"))
    await audit.append(
        "tool-call",
        {
            "cmd": "curl -H 'x-api-key: sk-secret'",
            "nested": {"list": ["sk-secret", 1, None], "sk-secret": True},
            "path": Path("/tmp/x"),
            "tags": {"b", "a"},
            "ratio": math.nan,
            "tuple": (1, 2),
        },
    )
    assert b"sk-secret" not in store.log
    record = next(audit.records())
    assert record.data["cmd"] == "curl -H 'x-api-key: [REDACTED]'"
    assert record.data["nested"] == {"list": ["[REDACTED]", 1, None], "[REDACTED]": True}
    assert record.data["path"] == "/tmp/x"
    assert record.data["tags"] == ["a", "b"]
    assert record.data["ratio"] == "nan"
    assert record.data["tuple"] == [1, 2]
    assert audit.verify().ok


async def test_records_limit_returns_newest() -> None:
    audit = await _filled(MemoryAuditStore(), 5)
    assert [r.seq for r in audit.records()] == [1, 2, 3, 4, 5]
    assert [r.seq for r in audit.records(limit=2)] == [4, 5]
    (newest,) = audit.records(limit=1)
    assert newest.kind == "tool-call"
    assert newest.ts == pytest.approx(1_700_000_000.25 + 1.5 * 5)


async def test_malformed_lines_are_skipped_when_listing() -> None:
    store = MemoryAuditStore()
    audit = await _filled(store, 3)
    lines = _lines(store)
    store.log = bytearray(lines[0] + b"not json\n" + b"".join(lines[1:]))
    assert [r.seq for r in audit.records()] == [1, 2, 3]
    assert audit.verify().first_bad_seq == 2


async def test_empty_kind_is_rejected() -> None:
    with pytest.raises(ValueError, match="kind"):
        await _open(MemoryAuditStore()).append("", {})


async def test_a_failed_write_does_not_advance_the_chain() -> None:
    store = MemoryAuditStore()
    audit = await _filled(store, 1)
    store.fail_appends = AuditLogError("disk full", hint="free some space")
    with pytest.raises(AuditLogError, match="disk full"):
        await audit.append("tool-call", {})
    assert audit.last_seq == 1
    store.fail_appends = None
    assert await audit.append("tool-call", {}) == 2
    assert audit.verify() == AuditReport(True, 2, None, "")
