"""OCR with Tesseract through pytesseract (the one module that imports it).

``image_to_data`` gives word boxes with confidences and Tesseract's block/paragraph/line ids;
they become ``ScreenText`` words, lines, blocks and numbered elements, in screen coordinates.
Screen text is small (9–11 pt) and sparse, so the image is read as grayscale at 2x with page
segmentation mode 11 ("sparse text"), which finds isolated button captions that the default
mode skips. ``OMP_THREAD_LIMIT=1``: Tesseract's OpenMP threads only fight each other (and the
event loop) on small images. It is given to the Tesseract child process only: set in this
process's environment it would also cap OpenMP in CTranslate2, whose Whisper then transcribes
garbage ("!!!!") when asked for more threads than the cap.

:func:`read_document_page` is the other reading: a scanned document page (the knowledge base's
PDF pages without a text layer) as plain text, in Tesseract's automatic layout mode (psm 3)
and without enlarging (scans are 150-600 dpi, not 96-dpi screen text), under a time limit.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from aria_desktop.adapters.computer import imaging
from aria_desktop.adapters.computer.grounding import build_elements
from aria_desktop.domain.computer import OcrBlock, OcrLine, OcrWord, Rect, ScreenText
from aria_desktop.domain.errors import OcrUnavailableError
from aria_desktop.domain.geometry import union

__all__ = ["TesseractOcr", "read_document_page", "tesseract_version"]

_LOGGER = logging.getLogger(__name__)
_HINT = "Install Tesseract: sudo apt-get install tesseract-ocr tesseract-ocr-eng"
_MIN_CONFIDENCE = 30.0
_WORDLIKE = re.compile(r"\w")
_PAGE_MAX_PIXELS = 25_000_000
"""A larger page image is scaled down first: a 600-dpi A4 scan is 35 MP; 300 dpi (8.7 MP)
reads as well, so the cap bounds a page's memory and time without losing text."""


def tesseract_version() -> str | None:
    """The installed Tesseract version, or None when it is missing."""
    try:
        import pytesseract

        return str(pytesseract.get_tesseract_version())
    except Exception:
        return None


class _ChildEnvironment(Mapping[str, str]):
    """``os.environ`` as it is now, plus overrides: the environment of Tesseract children."""

    def __init__(self, overrides: dict[str, str]) -> None:
        self._overrides = overrides

    def _merged(self) -> dict[str, str]:
        return {**os.environ, **self._overrides}

    def __getitem__(self, key: str) -> str:
        return self._merged()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._merged())

    def __len__(self) -> int:
        return len(self._merged())


def _limit_tesseract_threads(pytesseract_module: Any) -> None:
    """Give pytesseract's child processes OMP_THREAD_LIMIT=1 without touching ours.

    pytesseract starts Tesseract with ``env=<its module's environ>``; pointing that name at a
    merged view scopes the limit to Tesseract alone.
    """
    inner = pytesseract_module.pytesseract
    if not isinstance(inner.environ, _ChildEnvironment):
        inner.environ = _ChildEnvironment({"OMP_THREAD_LIMIT": "1"})


def _pytesseract() -> Any:
    """The pytesseract module, its children limited to one OpenMP thread.

    Raises:
        OcrUnavailableError: pytesseract is not installed.
    """
    try:
        import pytesseract
    except ImportError as exc:
        raise OcrUnavailableError(
            "pytesseract is not installed.", hint="pip install 'aria-desktop[computer]'"
        ) from exc
    _limit_tesseract_threads(pytesseract)
    return pytesseract


@contextlib.contextmanager
def _tesseract_errors(pytesseract: Any, lang: str) -> Iterator[None]:
    """Map pytesseract's failures to ``OcrUnavailableError`` (with what to install)."""
    try:
        yield
    except pytesseract.TesseractNotFoundError as exc:
        raise OcrUnavailableError("Tesseract is not installed.", hint=_HINT) from exc
    except pytesseract.TesseractError as exc:
        raise OcrUnavailableError(
            f"Tesseract failed: {exc.message or exc}",
            hint=f"Check the language data for {lang!r} ({_HINT}-<lang>).",
        ) from exc


def read_document_page(image: Any, *, timeout_s: float, lang: str = "eng") -> str:
    """The text of one scanned page (a Pillow image), in reading order.

    Raises:
        OcrUnavailableError: pytesseract or Tesseract is missing, or Tesseract failed.
        TimeoutError: Tesseract took longer than ``timeout_s`` (its process is ended).
    """
    pytesseract = _pytesseract()
    page = imaging.ocr_ready(imaging.fit_pixels(image, _PAGE_MAX_PIXELS), 1.0)
    with _tesseract_errors(pytesseract, lang):
        try:
            text = pytesseract.image_to_string(page, lang=lang, config="--psm 3", timeout=timeout_s)
        except RuntimeError as exc:  # pytesseract's only RuntimeError: the time limit
            if "timeout" not in str(exc).lower():
                raise
            raise TimeoutError(f"OCR of a page took over {timeout_s:g} s") from exc
    return str(text)


class TesseractOcr:
    """Reads text from screen images.

    Args:
        upscale: enlargement before recognition (2.0 reads UI fonts reliably).
        psm: Tesseract page segmentation mode (11 = sparse text, right for screens).
        lang: Tesseract language(s), e.g. "eng" or "eng+deu".
    """

    def __init__(self, *, upscale: float = 2.0, psm: int = 11, lang: str = "eng") -> None:
        """Configure; Tesseract runs as a child process with OMP_THREAD_LIMIT=1."""
        self._upscale = upscale
        self._config = f"--psm {psm}"
        self._lang = lang

    def read(self, frame: Any, origin: Rect) -> ScreenText:
        """Read ``frame`` (a Pillow image showing screen area ``origin``)."""
        pytesseract = _pytesseract()
        started = time.perf_counter()
        image = imaging.ocr_ready(frame, self._upscale)
        with _tesseract_errors(pytesseract, self._lang):
            data = pytesseract.image_to_data(
                image, lang=self._lang, config=self._config, output_type=pytesseract.Output.DICT
            )
        screen = self._group(data, origin, frame)
        elapsed_ms = (time.perf_counter() - started) * 1000
        _LOGGER.debug(
            "OCR of %dx%d px: %d words in %.0f ms",
            origin.width,
            origin.height,
            len(screen.words),
            elapsed_ms,
        )
        return replace(screen, ocr_ms=elapsed_ms)

    def _group(self, data: dict[str, list[Any]], origin: Rect, frame: Any) -> ScreenText:
        scale = self._upscale
        line_keys: dict[tuple[int, int, int], int] = {}
        words: list[OcrWord] = []
        for i, raw in enumerate(data["text"]):
            text = str(raw).strip()
            confidence = float(data["conf"][i])
            if not text or confidence < _MIN_CONFIDENCE or not _WORDLIKE.search(text):
                continue
            block = int(data["block_num"][i])
            key = (block, int(data["par_num"][i]), int(data["line_num"][i]))
            line_id = line_keys.setdefault(key, len(line_keys) + 1)
            box = Rect(
                origin.x + int(data["left"][i] / scale),
                origin.y + int(data["top"][i] / scale),
                max(1, round(data["width"][i] / scale)),
                max(1, round(data["height"][i] / scale)),
            )
            words.append(
                OcrWord(text=text, confidence=confidence, box=box, block=block, line=line_id)
            )
        lines: list[OcrLine] = []
        for line_id in sorted(set(line_keys.values())):
            members = sorted((w for w in words if w.line == line_id), key=lambda w: w.box.x)
            for part in _split_at_borders(members, frame, origin):
                number = len(lines) + 1
                part_words = tuple(replace(w, line=number) for w in part)
                lines.append(
                    OcrLine(
                        id=number,
                        text=" ".join(w.text for w in part_words),
                        box=union([w.box for w in part_words]),
                        block=part_words[0].block,
                        words=part_words,
                    )
                )
        words = [w for line in lines for w in line.words]
        blocks: list[OcrBlock] = []
        for block_id in sorted({line.block for line in lines}):
            members_lines = tuple(line for line in lines if line.block == block_id)
            blocks.append(
                OcrBlock(
                    id=block_id,
                    text="\n".join(line.text for line in members_lines),
                    box=union([line.box for line in members_lines]),
                    lines=members_lines,
                )
            )
        ordered_lines = tuple(sorted(lines, key=lambda ln: (ln.box.y, ln.box.x)))
        return ScreenText(
            region=origin,
            words=tuple(words),
            lines=ordered_lines,
            blocks=tuple(blocks),
            elements=build_elements(ordered_lines),
        )


def _split_at_borders(words: list[OcrWord], frame: Any, origin: Rect) -> list[list[OcrWord]]:
    """Tesseract's line, cut where a border runs between two words.

    A label and the text in the field next to it are different things, however close they sit.
    """
    parts: list[list[OcrWord]] = []
    for word in words:
        if parts:
            previous = parts[-1][-1]
            top = min(previous.box.y, word.box.y)
            bottom = max(previous.box.bottom, word.box.bottom)
            gap = Rect(
                previous.box.right + 1, top, word.box.x - previous.box.right - 2, bottom - top
            )
            if not imaging.has_vertical_edge(frame, gap, origin):
                parts[-1].append(word)
                continue
        parts.append([word])
    return parts
