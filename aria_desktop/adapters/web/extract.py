"""A fetched body reduced to readable text: HTML by trafilatura, PDFs by pypdf, text as is.

Runs in a worker thread (``web.fetcher``); both libraries are imported here, when a page is
first read (``ARCHITECTURE.md``, start-up cost). trafilatura works offline: it extracts the
main content from the markup it is given and fetches nothing. Hidden elements are removed
first (``web.hidden``) and handed back for the scanner.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass

from aria_desktop.domain.errors import WebFetchError

__all__ = ["Extracted", "extract"]

_LOGGER = logging.getLogger(__name__)
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_TYPES = frozenset(
    {"application/json", "application/xml", "application/javascript", "application/ld+json"}
)
_PDF_TYPE = "application/pdf"


@dataclass(frozen=True)
class Extracted:
    """Readable text of a body, its title, and what was hidden in it."""

    text: str
    title: str = ""
    hidden: tuple[str, ...] = ()


def sniff(content_type: str, body: bytes) -> str:
    """The media type to read ``body`` as (the header's, or a guess when it says nothing)."""
    if content_type and content_type != "application/octet-stream":
        return content_type
    head = body[:512].lstrip().lower()
    if head.startswith(b"%pdf-"):
        return _PDF_TYPE
    if head.startswith((b"<!doctype html", b"<html")):
        return "text/html"
    return content_type or "application/octet-stream"


def extract(body: bytes, content_type: str, charset: str | None, *, truncated: bool) -> Extracted:
    """Readable text of ``body``.

    Raises:
        WebFetchError: a type ARIA cannot read, a PDF cut at the size cap, or an unreadable PDF.
    """
    kind = sniff(content_type, body)
    if kind in _HTML_TYPES:
        return _html(body)
    if kind == _PDF_TYPE:
        if truncated:
            raise WebFetchError(
                "The PDF is larger than the size cap, so it cannot be read.",
                hint="Raise web.max_bytes, or download it and open it as a file.",
            )
        return _pdf(body)
    if kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml")):
        return Extracted(text=body.decode(charset or "utf-8", errors="replace"))
    raise WebFetchError(
        f"The address returned {kind or 'content of no stated type'}, which ARIA cannot read.",
        hint="ARIA reads web pages (HTML), plain text, JSON and PDF documents.",
    )


def _missing(exc: ImportError) -> WebFetchError:
    return WebFetchError(
        f"Reading this page needs a library that is not installed ({exc.name}).",
        hint="Install ARIA's web extra: pip install 'aria-desktop[web]' "
        "(bash packaging/setup.sh installs it).",
    )


def _html(body: bytes) -> Extracted:
    try:
        import lxml.html
        import trafilatura
        from lxml.etree import ParserError
    except ImportError as exc:
        raise _missing(exc) from exc

    from aria_desktop.adapters.web.hidden import remove_hidden

    try:
        root = lxml.html.fromstring(body)
    except (ParserError, ValueError):
        return Extracted(text="")
    title = " ".join((root.findtext(".//title") or "").split())
    hidden = remove_hidden(root)
    cleaned = lxml.html.tostring(root, encoding="unicode")
    text = trafilatura.extract(
        cleaned,
        output_format="txt",
        include_comments=False,
        include_tables=True,
        include_links=False,
        favor_recall=True,
        with_metadata=False,
    )
    if not text:
        # Short pages (a login form, a one-line notice) are not "main content" to the
        # extractor; their whole visible text is.
        text = trafilatura.html2txt(cleaned) or ""
    return Extracted(text=text.strip(), title=title, hidden=tuple(hidden))


def _pdf(body: bytes) -> Extracted:
    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError as exc:
        raise _missing(exc) from exc

    try:
        reader = PdfReader(io.BytesIO(body))
        if reader.is_encrypted:
            raise WebFetchError(
                "The PDF is encrypted, so ARIA cannot read it.",
                hint="Open it in a PDF viewer with its password.",
            )
        pages = [page.extract_text() or "" for page in reader.pages]
        metadata = reader.metadata
        title = str(metadata.get("/Title") or "") if metadata is not None else ""
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise WebFetchError(f"The PDF could not be read: {exc}") from exc
    text = "\n\n".join(f"[page {n}]\n{page.strip()}" for n, page in enumerate(pages, 1))
    return Extracted(text=text, title=title.strip())
