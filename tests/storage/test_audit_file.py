"""The audit log on disk (``storage.audit_file.AuditFile`` under ``core.audit.AuditLog``).

Tampering with the bytes of the real files: every single-bit flip, deleted and truncated
records, cut-off writes; and the files' permissions, durability and errors.
"""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest

from aria_desktop.adapters.storage.audit_file import AuditFile
from aria_desktop.core.audit import AuditLog, AuditReport
from aria_desktop.core.ports import AuditStore
from aria_desktop.domain.errors import AuditLogError


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.25

    def time(self) -> float:
        self.now += 1.5
        return self.now


@pytest.fixture
def log_paths(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "data" / "audit" / "audit.jsonl", tmp_path / "state" / "audit.checkpoint"


def _open(log_paths: tuple[Path, Path]) -> AuditLog:
    return AuditLog(AuditFile(*log_paths), clock=FakeClock())


async def _filled(log_paths: tuple[Path, Path], count: int = 5) -> AuditLog:
    audit = _open(log_paths)
    for i in range(count):
        await audit.append(
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


# --- the files ----------------------------------------------------------------------------------


async def test_records_and_checkpoint_land_in_their_files(log_paths: tuple[Path, Path]) -> None:
    audit = await _filled(log_paths, 3)
    store: AuditStore = AuditFile(*log_paths)
    assert store.read_log() == log_paths[0].read_bytes()
    assert [json.loads(line)["seq"] for line in _lines(log_paths[0])] == [1, 2, 3]
    assert "héllo ✓".encode() in log_paths[0].read_bytes()
    head = json.loads(_lines(log_paths[0])[-1])["hash"]
    assert json.loads(log_paths[1].read_text()) == {"seq": 3, "head": head}
    assert audit.verify() == AuditReport(True, 3, None, "")


def test_nothing_is_created_before_the_first_record(log_paths: tuple[Path, Path]) -> None:
    store = AuditFile(*log_paths)
    assert (store.read_log(), store.read_checkpoint()) == (b"", None)
    assert _open(log_paths).verify() == AuditReport(True, 0, None, "")
    assert not log_paths[0].parent.exists()


async def test_files_are_private(log_paths: tuple[Path, Path]) -> None:
    await _filled(log_paths, 1)
    for path in log_paths:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(log_paths[0].parent.stat().st_mode) == 0o700
    assert list(log_paths[1].parent.glob(".*tmp")) == []


def test_checkpoint_must_be_another_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="different file"):
        AuditFile(tmp_path / "a.jsonl", tmp_path / "a.jsonl")


# --- tampering ----------------------------------------------------------------------------------


async def test_every_single_bit_flip_is_reported_at_its_record(
    log_paths: tuple[Path, Path],
) -> None:
    audit = await _filled(log_paths, 4)
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


async def test_deleted_middle_record(log_paths: tuple[Path, Path]) -> None:
    audit = await _filled(log_paths)
    lines = _lines(log_paths[0])
    log_paths[0].write_bytes(b"".join(lines[:2] + lines[3:]))
    report = audit.verify()
    assert (report.ok, report.first_bad_seq, report.records) == (False, 3, 2)
    assert "gap" in report.reason


async def test_tail_truncated_by_one_record(log_paths: tuple[Path, Path]) -> None:
    audit = await _filled(log_paths)
    lines = _lines(log_paths[0])
    log_paths[0].write_bytes(b"".join(lines[:-1]))
    report = audit.verify()
    assert (report.ok, report.first_bad_seq, report.records) == (False, 5, 4)
    assert "truncated" in report.reason


async def test_tail_truncated_mid_line(log_paths: tuple[Path, Path]) -> None:
    audit = await _filled(log_paths)
    data = log_paths[0].read_bytes()
    for cut in (1, 10, 60):
        log_paths[0].write_bytes(data[:-cut])
        report = audit.verify()
        assert (report.ok, report.first_bad_seq) == (False, 5), cut
        assert "incomplete" in report.reason or "newline" in report.reason


async def test_log_emptied_or_deleted(log_paths: tuple[Path, Path]) -> None:
    audit = await _filled(log_paths)
    log_paths[0].write_bytes(b"")
    assert audit.verify().first_bad_seq == 1
    log_paths[0].unlink()
    report = audit.verify()
    assert (report.ok, report.first_bad_seq, report.records) == (False, 1, 0)


async def test_corrupt_checkpoint_file(log_paths: tuple[Path, Path]) -> None:
    audit = await _filled(log_paths, 2)
    log_paths[1].write_bytes(log_paths[1].read_bytes()[:-5])
    assert audit.verify() == AuditReport(False, 2, None, "checkpoint file is corrupt")


# --- reopening and appending after damage -------------------------------------------------------


async def test_reopen_resumes_the_chain(log_paths: tuple[Path, Path]) -> None:
    await _filled(log_paths, 3)
    reopened = _open(log_paths)
    assert reopened.open_report.ok
    assert reopened.last_seq == 3
    assert await reopened.append("policy-decision", {"decision": "allow"}) == 4
    assert reopened.verify() == AuditReport(True, 4, None, "")


async def test_append_after_bit_flip_keeps_the_damage_visible(
    log_paths: tuple[Path, Path],
) -> None:
    await _filled(log_paths, 4)
    data = bytearray(log_paths[0].read_bytes())
    start, _ = _offsets(log_paths[0])[1]
    data[start + 20] ^= 0x01
    log_paths[0].write_bytes(bytes(data))
    reopened = _open(log_paths)
    assert not reopened.open_report.ok
    assert reopened.open_report.first_bad_seq == 2
    assert await reopened.append("tool-call", {"n": 99}) == 5  # continues from the checkpoint
    assert log_paths[0].read_bytes().startswith(bytes(data))  # nothing rewritten
    report = reopened.verify()
    assert (report.ok, report.first_bad_seq) == (False, 2)
    assert [r.seq for r in reopened.records()][-1] == 5


async def test_append_after_truncation_keeps_the_gap(log_paths: tuple[Path, Path]) -> None:
    await _filled(log_paths, 4)
    lines = _lines(log_paths[0])
    log_paths[0].write_bytes(b"".join(lines[:-1]))
    reopened = _open(log_paths)
    assert reopened.open_report.first_bad_seq == 4
    assert await reopened.append("tool-call", {"n": 5}) == 5
    report = reopened.verify()
    assert (report.ok, report.first_bad_seq) == (False, 4)
    assert "gap" in report.reason


async def test_append_after_partial_line_starts_a_new_line(log_paths: tuple[Path, Path]) -> None:
    await _filled(log_paths, 3)
    data = log_paths[0].read_bytes()
    log_paths[0].write_bytes(data[:-15])
    reopened = _open(log_paths)
    assert reopened.open_report.first_bad_seq == 3
    await reopened.append("tool-call", {"after": "crash"})
    lines = log_paths[0].read_bytes().split(b"\n")
    assert json.loads(lines[3])["data"] == {"after": "crash"}
    assert reopened.verify().first_bad_seq == 3


# --- errors ---------------------------------------------------------------------------------


async def test_write_failure_is_an_audit_log_error(log_paths: tuple[Path, Path]) -> None:
    audit = _open(log_paths)
    log_paths[0].mkdir(parents=True)  # a directory where the file should be
    with pytest.raises(AuditLogError, match="Cannot write the audit log") as info:
        await audit.append("tool-call", {})
    assert info.value.hint
    assert audit.last_seq == 0
    assert not log_paths[1].exists()  # no checkpoint for a record that was not written


def test_unreadable_log_is_an_audit_log_error(log_paths: tuple[Path, Path]) -> None:
    log_paths[0].mkdir(parents=True)
    with pytest.raises(AuditLogError, match="Cannot read"):
        _open(log_paths)


async def test_unreadable_checkpoint_is_reported_not_raised(log_paths: tuple[Path, Path]) -> None:
    audit = await _filled(log_paths, 1)
    log_paths[1].unlink()
    log_paths[1].mkdir()  # reading it fails with EISDIR
    report = audit.verify()
    assert (report.ok, report.records) == (False, 1)
    assert report.reason.startswith("checkpoint unreadable: ")


async def test_concurrent_appends_stay_chained_on_disk(log_paths: tuple[Path, Path]) -> None:
    audit = _open(log_paths)
    seqs = await asyncio.gather(*(audit.append("tool-call", {"n": i}) for i in range(40)))
    assert sorted(seqs) == list(range(1, 41))
    assert _open(log_paths).verify() == AuditReport(True, 40, None, "")
