"""A document as the extractors give it: paragraph-sized blocks with heading path and page.

Every extractor (``formats_text``, ``formats_html``, ``formats_office``) returns a
:class:`Document`; the chunker (``chunking``) only ever sees blocks, so chunking by structure
is one algorithm for every format.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aria_desktop.domain.errors import DocumentError

__all__ = ["Block", "Document", "DocumentError", "HeadingStack", "document_error"]


def document_error(message: str, *, problem: str, hint: str = "") -> DocumentError:
    """A :class:`DocumentError` naming its kind of ``problem`` (``FileProblem.code``)."""
    error = DocumentError(message, hint=hint)
    error.problem = problem
    return error


@dataclass(frozen=True, kw_only=True)
class Block:
    """One paragraph (or list item, table row, PDF page) of extracted text.

    Attributes:
        text: the block's text, whitespace as extracted.
        heading: the heading path above it, outermost first.
        page: 1-based PDF page, None for formats without pages.
        start, end: character offsets in the document's extracted text (the page's text for
            PDFs; the file's own text for Markdown and plain text).
    """

    text: str
    heading: tuple[str, ...] = ()
    page: int | None = None
    start: int = 0
    end: int = 0


@dataclass(kw_only=True)
class Document:
    """What one file holds, ready for chunking.

    Attributes:
        title: the document's title (file name when it has none).
        blocks: its text in reading order.
        notes: problems that left part of it out (e.g. "page 3 has no text"), reported, not
            fatal.
        ocr_pages: PDF pages whose text was read by OCR (scans without a text layer).
    """

    title: str
    blocks: list[Block] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ocr_pages: int = 0


class HeadingStack:
    """The current heading path while walking a document: a level-n heading replaces n and up."""

    def __init__(self) -> None:
        """Start outside any heading."""
        self._levels: list[tuple[int, str]] = []

    def push(self, level: int, text: str) -> None:
        """A heading of ``level`` (1 = top) begins."""
        while self._levels and self._levels[-1][0] >= level:
            self._levels.pop()
        title = " ".join(text.split())
        if title:
            self._levels.append((level, title))

    @property
    def path(self) -> tuple[str, ...]:
        """The headings above the current position, outermost first."""
        return tuple(title for _, title in self._levels)
