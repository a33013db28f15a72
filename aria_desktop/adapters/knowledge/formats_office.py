"""PDF (text per page, pypdf) and DOCX (paragraphs under Word's heading styles, python-docx).

Both libraries are permissively licensed (BSD, MIT) and imported here only, when a file of
their format is read. A PDF page without text (a scanned image) is read by OCR when a reader
is given (``scanned_pages``), else reported in the document's notes, never silently left
empty; an encrypted PDF that does not open with an empty password is refused with its own
problem code.
"""

from __future__ import annotations

import io
import re
from typing import Any

from aria_desktop.adapters.knowledge.document import (
    Block,
    Document,
    DocumentError,
    HeadingStack,
    document_error,
)
from aria_desktop.adapters.knowledge.scanned_pages import OcrOptions, read_scanned_pages

__all__ = ["docx_document", "pdf_document"]

_DOCX_HEADING = re.compile(r"^(?:heading|überschrift|titre|título)\s*(\d)$", re.IGNORECASE)


def pdf_document(data: bytes, title: str, path: str, ocr: OcrOptions | None = None) -> Document:
    """One block per PDF page that has text, or whose scan ``ocr`` reads.

    Raises:
        DocumentError: malformed or encrypted file, or no page with text at all.
    """
    import pypdf
    from pypdf.errors import PdfReadError

    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise document_error(
                f"{path} is encrypted.",
                problem="encrypted",
                hint="Save an unprotected copy of the PDF and add that one.",
            )
        pages = list(reader.pages)
        meta_title = (reader.metadata.title if reader.metadata else None) or ""
    except DocumentError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, NotImplementedError) as exc:
        problem = "encrypted" if "decrypt" in str(exc).lower() else "malformed"
        raise document_error(
            f"{path} is not a readable PDF: {exc}",
            problem=problem,
            hint="Open it in a PDF viewer to check it; re-save or re-export it.",
        ) from exc
    doc = Document(title=str(meta_title).strip() or title)
    scanned: list[tuple[int, Any]] = []
    for number, page in enumerate(pages, start=1):
        try:
            text = page.extract_text() or ""
        except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
            doc.notes.append(f"page {number} could not be read: {exc}")
            continue
        if not text.strip():
            scanned.append((number, page))
            continue
        doc.blocks.append(Block(text=text, page=number, start=0, end=len(text)))
    unavailable = read_scanned_pages(scanned, ocr, doc)
    if not doc.blocks:
        why = f": {'; '.join(doc.notes)}" if doc.notes and ocr is not None else ""
        hint = "Run OCR on it (e.g. ocrmypdf) and add the result."
        if unavailable is not None:
            hint = f"{unavailable.hint} Or run OCR on it (e.g. ocrmypdf) and add the result."
        raise document_error(
            f"{path} has no text on any of its {len(pages)} page(s) (a scanned PDF?){why}",
            problem="no_text",
            hint=hint,
        )
    return doc


def docx_document(data: bytes, title: str, path: str) -> Document:
    """Paragraphs and table rows of a DOCX file under the heading path of Word's styles.

    Raises:
        DocumentError: not a readable DOCX file.
    """
    import zipfile

    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise document_error(
            f"{path} is not a readable DOCX file: {exc}",
            problem="malformed",
            hint="Open it in a word processor and save it again as .docx.",
        ) from exc
    doc = Document(title=(document.core_properties.title or "").strip() or title)
    headings = HeadingStack()
    offset = 0

    def emit(text: str) -> None:
        nonlocal offset
        body = text.strip()
        if body:
            doc.blocks.append(
                Block(text=body, heading=headings.path, start=offset, end=offset + len(body))
            )
            offset += len(body) + 2

    from docx.table import Table
    from docx.text.paragraph import Paragraph

    for element in document.element.body.iterchildren():
        tag = str(element.tag).rsplit("}", 1)[-1]
        if tag == "tbl":
            for row in Table(element, document).rows:
                emit(" | ".join(cell.text.strip() for cell in row.cells))
            continue
        if tag != "p":
            continue
        paragraph = Paragraph(element, document)
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        level = _DOCX_HEADING.match(style.strip())
        if style.strip().lower() == "title":
            headings.push(1, paragraph.text)
            if doc.title == title and paragraph.text.strip():
                doc.title = paragraph.text.strip()
        elif level:
            headings.push(int(level.group(1)) + 1, paragraph.text)
        else:
            emit(paragraph.text)
    return doc
