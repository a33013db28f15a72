from __future__ import annotations

import asyncio
import hashlib
import json
import math
import stat
import threading
from pathlib import Path

import pytest

from aria_desktop.core.audit import GENESIS_HASH, AuditLog, AuditReport
from aria_desktop.core.ports import AuditSink
from aria_desktop.domain.errors import AuditLogError


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.25

    def time(self) -> float:
        self.now += 1.5
        return self.now

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def log_paths(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "data" / "audit" / "audit.jsonl", tmp_path / "state" / "audit.checkpoint"


def _open(log_paths: tuple[Path, Path], **kwargs: object) -> AuditLog:
    return AuditLog(log_paths[0], log_paths[1], clock=FakeClock(), **kwargs)  # type: ignore[arg-type]


def _filled(log_paths: tuple[Path, Path], count: int = 5) -> AuditLog:
    audit = _open(log_paths)
    for i in range(count):
        audit.append_sync(
            "tool-call",
            {"tool": "type_text", "n": i, "args": {"text": f"héllo ✓ {i}"}, "ok": i % 2 == 0},
        )
    return audit


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _offsets(path: Path) -> list[tuple[int, int]]:
    """(start, end) byte range of each record's line including its newline."""
    spans, start = [], 0
    for line in _lines(path):
        spans.append((start, start + len(line)))
        start += len(line)
    return spans


# --- format and a clean log ---------------------------------------------------------------------


def test_clean_log_verifies(log_paths: tuple[Path, Path]) -> None:
    audit = _filled(log_paths)
    assert audit.verify() == AuditReport(ok=True, records=5, first_bad_seq=None, reason="")
    assert audit.last_seq == 5


def test_empty_log_verifies(log_paths: tuple[Path, Path]) -> None:
    assert _open(log_paths).verify() == AuditReport(True, 0, None, "")


def test_record_format_and_chain(log_paths: tuple[Path, Path]) -> None:
    _filled(log_paths, 3)
    records = [json.loads(line) for line in _lines(log_paths[0])]
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
    assert "héllo ✓".encode() in log_paths[0].read_bytes()  # ensure_ascii=False
    checkpoint = json.loads(log_paths[1].read_text())
    assert checkpoint == {"seq": 3, "head": records[-1]["hash"]}


def test_files_are_private(log_paths: tuple[Path, Path]) -> None:
    _filled(log_paths, 1)
    for path in log_paths:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(log_paths[0].parent.stat().st_mode) == 0o700
    assert list(log_paths[1].parent.glob(".*tmp")) == []


def test_checkpoint_must_be_another_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="different file"):
        AuditLog(tmp_path / "a.jsonl", tmp_path / "a.jsonl")


# --- tampering ----------------------------------------------------------------------------------


def test_every_single_bit_flip_is_reported_at_its_record(log_paths: tuple[Path, Path]) -> None:
    audit = _filled(log_paths, 4)
    original = log_paths[0].read_bytes()
    spans = _offsets(log_paths[0])
    checked = 0
    for seq, (start, end) in enumerate(spans, start=1):
        # every byte of record 2 (newline included); a spread of positions in the others
        positions = range(start, end) if seq == 2 else sorted({start, start + 7, end - 2, end - 1})
        for position in positions:
            for bit in range(8):
                damaged = bytearray(original)
                damaged[position] ^= 1 << bit
                log_paths[0].write_bytes(bytes(damaged))
                report = audit.verify()
                assert not report.ok, (seq, position, bit)
                assert report.first_bad_seq == seq, (seq, position, bit, report)
                assert report.records == seq - 1
                checked += 1
    log_paths[0].write_bytes(original)
    assert audit.verify().ok
    assert checked > 8 * 100


def test_deleted_middle_record(log_paths: tuple[Path, Path]) -> None:
    audit = _filled(log_paths)
    lines = _lines(log_paths[0])
    log_paths[0].write_bytes(b"".join(lines[:2] + lines[3:]))
    report = audit.verify()
    assert (report.ok, report.first_bad_seq, report.records) == (False, 3, 2)
    assert "gap" in report.reason


def test_swapped_records(log_paths: tuple[Path, Path]) -> None:
    audit = _filled(log_paths)
    lines = _lines(log_paths[0])
    lines[1], lines[2] = lines[2], lines[1]
    log_paths[0].write_bytes(b"".join(lines))
    assert audit.verify().first_bad_seq == 2


def test_tail_truncated_by_one_record(log_paths: tuple[Path, Path]) -> None:
    audit = _filled(log_paths)
    lines = _lines(log_paths[0])
    log_paths[0].write_bytes(b"".join(lines[:-1]))
    report = audit.verify()
    assert (report.ok, report.first_bad_seq, report.records) == (False, 5, 4)
    assert "truncated" in report.reason


def test_tail_truncated_mid_line(log_paths: tuple[Path, Path]) -> None:
    audit = _filled(log_paths)
    data = log_paths[0].read_bytes()
    for cut in (1, 10, 60):
        log_paths[0].write_bytes(data[:-cut])
        report = audit.verify()
        assert (report.ok, report.first_bad_seq) == (False, 5), cut
        assert "incomplete" in report.reason or "newline" in report.reason


def test_log_emptied_or_deleted(log_paths: tuple[Path, Path]) -> None:
    audit = _filled(log_paths)
    log_paths[0].write_bytes(b"")
    assert audit.verify().first_bad_seq == 1
    log_paths[0].unlink()
    report = audit.verify()
    assert (report.ok, report.first_bad_seq, report.records) == (False, 1, 0)


def test_rewritten_tail_differs_from_checkpoint(log_paths: tuple[Path, Path]) -> None:
    audit = _filled(log_paths, 3)
    checkpoint = log_paths[1].read_bytes()
    lines = _lines(log_paths[0])
    # A forger rewrites the last record with a valid hash but cannot touch the checkpoint.
    record = json.loads(lines[-1])
    record["data"] = {"tool": "nothing to see"}
    body = {k: v for k, v in record.items() if k != "hash"}
    record["hash"] = hashlib.sha256(
        json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ).hexdigest()
    forged = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    log_paths[0].write_bytes(b"".join(lines[:-1]) + forged.encode() + b"\n")
    assert log_paths[1].read_bytes() == checkpoint
    report = audit.verify()
    assert (report.ok, report.first_bad_seq) == (False, 3)
    assert "checkpoint" in report.reason


def test_missing_or_corrupt_checkpoint(log_paths: tuple[Path, Path]) -> None:
    audit = _filled(log_paths, 2)
    saved = log_paths[1].read_bytes()
    log_paths[1].unlink()
    report = audit.verify()
    assert (report.ok, report.first_bad_seq, report.records) == (False, None, 2)
    assert "checkpoint missing" in report.reason
    log_paths[1].write_bytes(saved[:-5])
    assert "checkpoint" in audit.verify().reason
    assert not audit.verify().ok


def test_records_after_the_checkpoint_are_ok(log_paths: tuple[Path, Path]) -> None:
    audit = _filled(log_paths, 2)
    old_checkpoint = log_paths[1].read_bytes()
    audit.append_sync("tool-call", {"n": 3})
    log_paths[1].write_bytes(old_checkpoint)  # as if we crashed before the checkpoint write
    report = audit.verify()
    assert (report.ok, report.records) == (True, 3)
    assert "after the checkpoint" in report.reason
    reopened = _open(log_paths)
    assert reopened.last_seq == 3
    reopened.append_sync("tool-call", {"n": 4})
    assert reopened.verify() == AuditReport(True, 4, None, "")


# --- reopening and appending after damage -------------------------------------------------------


def test_reopen_resumes_the_chain(log_paths: tuple[Path, Path]) -> None:
    _filled(log_paths, 3)
    reopened = _open(log_paths)
    assert reopened.open_report.ok
    assert reopened.last_seq == 3
    assert reopened.append_sync("policy-decision", {"decision": "allow"}) == 4
    assert reopened.verify() == AuditReport(True, 4, None, "")


def test_append_after_bit_flip_keeps_the_damage_visible(log_paths: tuple[Path, Path]) -> None:
    _filled(log_paths, 4)
    data = bytearray(log_paths[0].read_bytes())
    start, _ = _offsets(log_paths[0])[1]
    data[start + 20] ^= 0x01
    log_paths[0].write_bytes(bytes(data))
    reopened = _open(log_paths)
    assert not reopened.open_report.ok
    assert reopened.open_report.first_bad_seq == 2
    assert reopened.append_sync("tool-call", {"n": 99}) == 5  # continues from the checkpoint
    assert log_paths[0].read_bytes().startswith(bytes(data))  # nothing rewritten
    report = reopened.verify()
    assert (report.ok, report.first_bad_seq) == (False, 2)
    assert [r.seq for r in reopened.records()][-1] == 5


def test_append_after_truncation_keeps_the_gap(log_paths: tuple[Path, Path]) -> None:
    _filled(log_paths, 4)
    lines = _lines(log_paths[0])
    log_paths[0].write_bytes(b"".join(lines[:-1]))
    reopened = _open(log_paths)
    assert reopened.open_report.first_bad_seq == 4
    assert reopened.append_sync("tool-call", {"n": 5}) == 5
    report = reopened.verify()
    assert (report.ok, report.first_bad_seq) == (False, 4)
    assert "gap" in report.reason


def test_append_after_partial_line_starts_a_new_line(log_paths: tuple[Path, Path]) -> None:
    _filled(log_paths, 3)
    data = log_paths[0].read_bytes()
    log_paths[0].write_bytes(data[:-15])
    reopened = _open(log_paths)
    assert reopened.open_report.first_bad_seq == 3
    reopened.append_sync("tool-call", {"after": "crash"})
    lines = log_paths[0].read_bytes().split(b"\n")
    assert json.loads(lines[3])["data"] == {"after": "crash"}
    assert reopened.verify().first_bad_seq == 3


# --- appending ------------------------------------------------------------------------------


async def test_concurrent_async_appends_stay_chained(log_paths: tuple[Path, Path]) -> None:
    audit = _open(log_paths)
    sink: AuditSink = audit
    seqs = await asyncio.wait_for(
        asyncio.gather(*(sink.append("tool-call", {"n": i}) for i in range(40))), timeout=30
    )
    assert sorted(seqs) == list(range(1, 41))
    assert audit.verify() == AuditReport(True, 40, None, "")
    assert sorted(r.data["n"] for r in audit.records()) == list(range(40))


def test_threaded_sync_appends_stay_chained(log_paths: tuple[Path, Path]) -> None:
    audit = _open(log_paths)
    results: list[int] = []
    lock = threading.Lock()

    def worker(base: int) -> None:
        for i in range(10):
            seq = audit.append_sync("tool-call", {"n": base + i})
            with lock:
                results.append(seq)

    threads = [threading.Thread(target=worker, args=(k * 10,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(results) == list(range(1, 41))
    assert audit.verify().ok


def test_redact_and_json_safety(log_paths: tuple[Path, Path]) -> None:
    audit = _open(log_paths, redact=lambda text: text.replace("sk-secret", "[REDACTED]"))
    audit.append_sync(
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
    raw = log_paths[0].read_text(encoding="utf-8")
    assert "sk-secret" not in raw
    record = next(audit.records())
    assert record.data["cmd"] == "curl -H 'x-api-key: [REDACTED]'"
    assert record.data["nested"] == {"list": ["[REDACTED]", 1, None], "[REDACTED]": True}
    assert record.data["path"] == "/tmp/x"
    assert record.data["tags"] == ["a", "b"]
    assert record.data["ratio"] == "nan"
    assert record.data["tuple"] == [1, 2]
    assert audit.verify().ok


def test_records_limit_returns_newest(log_paths: tuple[Path, Path]) -> None:
    audit = _filled(log_paths, 5)
    assert [r.seq for r in audit.records()] == [1, 2, 3, 4, 5]
    assert [r.seq for r in audit.records(limit=2)] == [4, 5]
    (newest,) = audit.records(limit=1)
    assert newest.kind == "tool-call"
    assert newest.ts == pytest.approx(1_700_000_000.25 + 1.5 * 5)


def test_empty_kind_is_rejected(log_paths: tuple[Path, Path]) -> None:
    with pytest.raises(ValueError, match="kind"):
        _open(log_paths).append_sync("", {})


def test_write_failure_is_an_audit_log_error(log_paths: tuple[Path, Path]) -> None:
    audit = _open(log_paths)
    log_paths[0].mkdir(parents=True)  # a directory where the file should be
    with pytest.raises(AuditLogError) as info:
        audit.append_sync("tool-call", {})
    assert info.value.hint
    assert audit.last_seq == 0
    assert not log_paths[1].exists()  # no checkpoint for a record that was not written


def test_unreadable_log_is_an_audit_log_error(log_paths: tuple[Path, Path]) -> None:
    log_paths[0].mkdir(parents=True)
    with pytest.raises(AuditLogError, match="Cannot read"):
        _open(log_paths)
