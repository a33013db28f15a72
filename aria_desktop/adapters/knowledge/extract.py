"""Which extractor reads a file, and the checks every file passes first (size, binary, text).

One entry point, :func:`extract`, for files and fetched URLs alike; whatever goes wrong with
one document becomes a :class:`DocumentError` with a problem code, so an ingest reports it per
file and goes on with the rest.
"""

from __future__ import annotations

from pathlib import PurePath

from aria_desktop.adapters.knowledge.document import Document, document_error
from aria_desktop.adapters.knowledge.scanned_pages import OcrOptions

__all__ = ["EXTRACTION_VERSION", "FORMATS", "detect_format", "extract", "format_of_path"]

EXTRACTION_VERSION = 2
"""What the extractors and the chunker make of a file; a store indexed by an older version is
re-indexed once at the next start (``store.outdated_extraction``). Bump it whenever a file's
passages change for the same bytes. 2: plain-text headings, table rows with their column
names, HTML running text kept whole."""

FORMATS: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".rst": "text",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pdf": "pdf",
    ".docx": "docx",
}
"""File name suffix -> format; files with other suffixes are not part of a folder's index."""

_CONTENT_TYPES = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "application/pdf": "pdf",
    "text/markdown": "markdown",
    "text/plain": "text",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
}
_SNIFF_BYTES = 8192


def format_of_path(path: str) -> str | None:
    """The format a file name says, or None for files the knowledge base does not read."""
    return FORMATS.get(PurePath(path).suffix.lower())


def detect_format(path: str, content_type: str, data: bytes) -> str | None:
    """The format of a fetched URL: its content type, its name, then the bytes."""
    kind = _CONTENT_TYPES.get(content_type.split(";")[0].strip().lower())
    if kind is not None:
        return kind
    by_name = format_of_path(path.split("?")[0])
    if by_name is not None:
        return by_name
    if data.startswith(b"%PDF"):
        return "pdf"
    head = data[:_SNIFF_BYTES].lower()
    return "html" if b"<html" in head or b"<!doctype html" in head else None


def _decode_text(data: bytes, path: str) -> str:
    """UTF-8 text (BOM allowed), refusing binary data.

    Raises:
        DocumentError: NUL bytes or invalid UTF-8 (problem ``binary``).
    """
    if b"\x00" in data[:_SNIFF_BYTES]:
        raise document_error(
            f"{path} looks like a binary file, not text.",
            problem="binary",
            hint="Only Markdown, plain text, HTML, PDF and DOCX files can be added.",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise document_error(
            f"{path} is not UTF-8 text (byte {exc.start} is invalid).",
            problem="binary",
            hint="Convert it to UTF-8 (e.g. iconv -t UTF-8) and add it again.",
        ) from exc


def extract(
    data: bytes, *, path: str, kind: str, max_bytes: int, ocr: OcrOptions | None = None
) -> Document:
    """Read one document.

    Args:
        data: the file's bytes.
        path: its path or URL (for messages and the fallback title).
        kind: markdown, text, html, pdf or docx.
        max_bytes: larger documents are refused (problem ``too_large``).
        ocr: reads PDF pages without a text layer (None: they are only reported).

    Raises:
        DocumentError: the document cannot be read; ``problem`` says why.
    """
    if len(data) > max_bytes:
        raise document_error(
            f"{path} is {len(data) / 1e6:.1f} MB, over the {max_bytes / 1e6:.0f} MB limit.",
            problem="too_large",
            hint="Split it, or raise knowledge.max_file_mb in the settings.",
        )
    title = PurePath(path.rstrip("/")).name or path
    if kind == "pdf":
        from aria_desktop.adapters.knowledge.formats_office import pdf_document

        doc = pdf_document(data, title, path, ocr)
    elif kind == "docx":
        from aria_desktop.adapters.knowledge.formats_office import docx_document

        doc = docx_document(data, title, path)
    elif kind in ("markdown", "text", "html"):
        text = _decode_text(data, path)
        if kind == "html":
            from aria_desktop.adapters.knowledge.formats_html import html_document

            doc = html_document(text, title)
        else:
            from aria_desktop.adapters.knowledge.formats_text import (
                markdown_document,
                plain_document,
            )

            doc = (markdown_document if kind == "markdown" else plain_document)(text, title)
    else:
        raise document_error(
            f"{path}: this kind of file cannot be added.",
            problem="unsupported",
            hint="Supported: Markdown, plain text, HTML, PDF and DOCX.",
        )
    if not doc.blocks:
        raise document_error(
            f"{path} holds no text.", problem="no_text", hint="Check that the file is not empty."
        )
    return doc
