"""PDF pages without a text layer (scans) read by OCR, bounded, with what was left out said.

The knowledge package never imports the computer-use adapter (ARCHITECTURE.md: adapters are
independent): the composition root hands in the one Tesseract adapter's page reader
(``computer.ocr.read_document_page``) as a :data:`PageOcr`, as it hands in the embedder.
This runs inside extraction, which runs in a worker thread, never on the event loop.

Bounded: at most ``max_pages`` pages of one document are read, each within
``page_timeout_s`` (the reader ends Tesseract's process after it) and each image under the
reader's pixel cap. A page that is not read is never silently empty: the document's notes
say which pages and why (no Tesseract, with the install hint; over the page limit; too slow;
nothing legible), so the file shows up with a ``no_text`` problem.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from aria_desktop.adapters.knowledge.document import Block, Document
from aria_desktop.domain.errors import OcrUnavailableError

__all__ = ["OcrOptions", "PageOcr", "listed", "read_scanned_pages"]

PageOcr = Callable[[Any, float], str]
"""(a page image as Pillow gives it, time limit in seconds) -> the page's text.

Raises ``OcrUnavailableError`` (Tesseract missing or failing: its hint says what to install)
and ``TimeoutError`` (over the limit)."""


@dataclass(frozen=True, kw_only=True)
class OcrOptions:
    """How scanned pages are read (``knowledge.ocr_max_pages``, ``knowledge.ocr_page_timeout_s``).

    Attributes:
        read: the OCR reader.
        max_pages: pages read by OCR per document at most (0: none).
        page_timeout_s: one page's time limit.
    """

    read: PageOcr
    max_pages: int = 50
    page_timeout_s: float = 30.0


def listed(numbers: Sequence[int]) -> str:
    """Page numbers for a note: the first 20, then an ellipsis."""
    return ", ".join(str(n) for n in numbers[:20]) + (" ..." if len(numbers) > 20 else "")


@dataclass(kw_only=True)
class _Pages:
    """The fate of each scanned page while they are read."""

    no_image: list[int]
    illegible: list[int]
    too_slow: list[int]
    unreadable: list[str]


def _page_images(page: Any, number: int, pages: _Pages) -> list[Any] | None:
    """The page's images (Pillow), or None when they cannot be decoded (noted).

    Raises:
        OcrUnavailableError: Pillow is missing (pypdf decodes images with it).
    """
    from pypdf.errors import PdfReadError

    try:
        return [item.image for item in page.images]
    except ImportError as exc:
        raise OcrUnavailableError(
            "Pillow is not installed.", hint="pip install 'aria-desktop[knowledge]'"
        ) from exc
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, NotImplementedError) as exc:
        pages.unreadable.append(f"page {number}'s image could not be decoded: {exc}")
        return None


def _read_page(page: Any, number: int, ocr: OcrOptions, pages: _Pages) -> str:
    """The OCR text of one page's images ("" when there is none; why is noted)."""
    images = _page_images(page, number, pages)
    if images is None:
        return ""
    if not images:
        pages.no_image.append(number)
        return ""
    parts: list[str] = []
    for image in images:
        try:
            parts.append(ocr.read(image, ocr.page_timeout_s).strip())
        except TimeoutError:
            pages.too_slow.append(number)
            return ""
    text = "\n\n".join(part for part in parts if part)
    if not text:
        pages.illegible.append(number)
    return text


def read_scanned_pages(
    scanned: Sequence[tuple[int, Any]], ocr: OcrOptions | None, doc: Document
) -> OcrUnavailableError | None:
    """Add a block for each of ``scanned`` (page number, pypdf page) that OCR reads.

    Counts them in ``doc.ocr_pages`` and notes every page left out. Returns why OCR is
    unavailable, when it is (the caller's error for a wholly scanned PDF says what to install).
    """
    if not scanned:
        return None
    numbers = [number for number, _ in scanned]
    if ocr is None or ocr.max_pages <= 0:
        doc.notes.append(
            f"{len(numbers)} page(s) without text (scanned images?): {listed(numbers)}; "
            "run OCR on the PDF to include them (or set knowledge.ocr_max_pages above 0)"
        )
        return None
    pages = _Pages(no_image=[], illegible=[], too_slow=[], unreadable=[])
    unavailable: OcrUnavailableError | None = None
    unread: list[int] = []
    for index, (number, page) in enumerate(scanned[: ocr.max_pages]):
        try:
            text = _read_page(page, number, ocr, pages)
        except OcrUnavailableError as exc:
            unavailable, unread = exc, numbers[index:]
            break
        if text:
            doc.blocks.append(Block(text=text, page=number, start=0, end=len(text)))
            doc.ocr_pages += 1
    doc.blocks.sort(key=lambda block: block.page or 0)
    _note(doc, pages, unavailable, unread)
    over = numbers[ocr.max_pages :] if unavailable is None else []
    if over:
        doc.notes.append(
            f"{len(over)} scanned page(s) not read by OCR: {listed(over)} (at most "
            f"{ocr.max_pages} pages per document; raise knowledge.ocr_max_pages)"
        )
    if pages.too_slow:
        doc.notes.append(
            f"OCR of page(s) {listed(pages.too_slow)} took over {ocr.page_timeout_s:g} s and "
            "was stopped (raise knowledge.ocr_page_timeout_s)"
        )
    return unavailable


def _note(
    doc: Document, pages: _Pages, unavailable: OcrUnavailableError | None, unread: list[int]
) -> None:
    if unavailable is not None:
        doc.notes.append(
            f"{len(unread)} page(s) without text (scanned images?): {listed(unread)}; OCR "
            f"could not read them: {unavailable.message} {unavailable.hint}".rstrip()
        )
    if pages.no_image:
        doc.notes.append(
            f"{len(pages.no_image)} page(s) without text or images (blank, or text drawn as "
            f"shapes): {listed(pages.no_image)}"
        )
    if pages.illegible:
        doc.notes.append(
            f"{len(pages.illegible)} scanned page(s) where OCR found no text: "
            f"{listed(pages.illegible)}"
        )
    doc.notes.extend(pages.unreadable)
