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
            for line in _docx_table_rows(Table(element, document)):
                emit(line)
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


def _is_header_row(rows: list[list[str]], first: Any) -> bool:
    """Whether a DOCX table's first row names its columns.

    Word marks a repeated header row (``w:tblHeader``) and people bold one; without either,
    a first row of labels without digits over rows that hold numbers ("Item | Charge" over
    "Hourly rate | £6.50") is one. A two-row key/value table never has one.
    """
    if len(rows) < 3 or len(rows[0]) < 2 or not all(rows[0]):
        return False
    if first._tr.xpath("./w:trPr/w:tblHeader"):
        return True
    runs = [run for cell in first.cells for par in cell.paragraphs for run in par.runs]
    if runs and all(run.bold for run in runs if run.text.strip()):
        return True
    has_digit = re.compile(r"\d").search
    return not any(has_digit(cell) for cell in rows[0]) and all(
        any(has_digit(cell) for cell in row) for row in rows[1:]
    )


def _docx_table_rows(table: Any) -> list[str]:
    """Each row of a DOCX table as one line, cells named by the header row when it has one.

    Like HTML tables (``formats_html.table_rows``): "Item: Late collection; Charge: £10" keeps
    what each value is, where "Late collection | £10" loses it once the row is read alone.
    """
    rows = [[cell.text.strip() for cell in row.cells] for row in table.rows]
    rows = [row for row in rows if any(row)]
    if not rows:
        return []
    if not _is_header_row(rows, table.rows[0]):
        return [" | ".join(cell for cell in row if cell) for row in rows]
    header = rows[0]
    return [
        "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, row, strict=True) if c)
        if len(row) == len(header)
        else " | ".join(cell for cell in row if cell)
        for row in rows[1:]
    ]
