"""``aria doctor``'s knowledge check on this installation."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from aria_desktop.doctor.knowledge import check_knowledge
from aria_desktop.settings import Settings


def test_the_installed_extractors_and_watcher_are_reported() -> None:
    result = check_knowledge(Settings())
    assert result.status == "OK"
    assert "PDF and DOCX; watched folders" in result.detail
    assert "scanned PDF pages by OCR" in result.detail


def test_missing_tesseract_is_a_warning_with_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    result = check_knowledge(Settings())
    assert result.status == "WARN"
    assert "scanned PDF pages cannot be read" in result.detail
    assert "apt-get install tesseract-ocr" in result.fix


def test_a_switched_off_knowledge_base_is_said_so() -> None:
    off = dataclasses.replace(Settings().knowledge, enabled=False)
    result = check_knowledge(dataclasses.replace(Settings(), knowledge=off))
    assert result.status == "OK"
    assert "switched off" in result.detail
