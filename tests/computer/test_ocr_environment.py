"""Tesseract's thread limit must stay with Tesseract: set in ARIA's own environment it caps
OpenMP for CTranslate2 too, and Whisper then transcribes garbage."""

from __future__ import annotations

import os

import pytest
from PIL import Image, ImageDraw, ImageFont

from aria_desktop.adapters.computer.ocr import TesseractOcr
from aria_desktop.adapters.voice.whisper import _threads_within_omp_limit
from aria_desktop.domain.computer import Rect


def _text_image() -> Image.Image:
    image = Image.new("RGB", (480, 120), "white")
    draw = ImageDraw.Draw(image)
    draw.text((20, 40), "Send the report", fill="black", font=ImageFont.load_default(size=28))
    return image


def test_ocr_limits_tesseract_threads_without_touching_our_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    import pytesseract

    screen = TesseractOcr().read(_text_image(), Rect(0, 0, 480, 120))
    assert "Send" in {word.text for word in screen.words}
    assert "OMP_THREAD_LIMIT" not in os.environ
    assert pytesseract.pytesseract.environ["OMP_THREAD_LIMIT"] == "1"
    assert pytesseract.pytesseract.environ["PATH"] == os.environ["PATH"]


@pytest.mark.parametrize(("limit", "wanted", "expected"), [("1", 2, 1), ("4", 2, 2), ("", 2, 2)])
def test_whisper_never_asks_for_more_threads_than_the_openmp_limit(
    monkeypatch: pytest.MonkeyPatch, limit: str, wanted: int, expected: int
) -> None:
    monkeypatch.setenv("OMP_THREAD_LIMIT", limit)
    assert _threads_within_omp_limit(wanted) == expected
