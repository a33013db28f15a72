"""Atomic, private file writes (``aria_desktop.files``): the settings file, the audit checkpoint."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from aria_desktop.files import atomic_write, write_all


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_and_its_folder_are_private(tmp_path: Path) -> None:
    target = tmp_path / "new" / "settings.toml"
    atomic_write(target, b"a = 1\n")
    assert target.read_bytes() == b"a = 1\n"
    assert _mode(target) == 0o600
    assert _mode(target.parent) == 0o700


def test_replacing_keeps_the_permissions_the_user_chose(tmp_path: Path) -> None:
    target = tmp_path / "settings.toml"
    target.write_bytes(b"old")
    target.chmod(0o644)
    atomic_write(target, b"new")
    assert (target.read_bytes(), _mode(target)) == (b"new", 0o644)


def test_an_explicit_mode_wins(tmp_path: Path) -> None:
    target = tmp_path / "checkpoint"
    target.write_bytes(b"old")
    target.chmod(0o644)
    atomic_write(target, b"new", mode=0o600)
    assert _mode(target) == 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "settings.toml"
    target.write_bytes(b"old")

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="I/O error"):
        atomic_write(target, b"new")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.toml"]


def test_write_all_writes_everything(tmp_path: Path) -> None:
    data = bytes(range(256)) * 4096
    fd = os.open(tmp_path / "blob", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)
    assert (tmp_path / "blob").read_bytes() == data
