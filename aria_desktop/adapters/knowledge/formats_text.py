"""Markdown and plain text: paragraphs with exact offsets into the file's own text."""

from __future__ import annotations

import re

from aria_desktop.adapters.knowledge.document import Block, Document, HeadingStack

__all__ = ["markdown_document", "plain_document"]

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")


def _lines(text: str) -> list[tuple[int, str]]:
    """Each line with the offset it starts at."""
    out: list[tuple[int, str]] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        out.append((offset, line.rstrip("\r\n")))
        offset += len(line)
    return out


_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _pipe_table_rows(para: list[tuple[int, str]]) -> list[tuple[int, int, str]] | None:
    """A Markdown pipe table's data rows as "Header: value; ..." lines, None for other text.

    Each row becomes its own block (the chunker joins neighbours), so a long table is never cut
    in the middle of a row and every row keeps the names of its columns.
    """
    if len(para) < 3 or "|" not in para[0][1] or not _TABLE_RULE.match(para[1][1]):
        return None
    header = _cells(para[0][1])
    rows: list[tuple[int, int, str]] = []
    for offset, line in para[2:]:
        cells = _cells(line)
        if len(cells) == len(header):
            text = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=True))
        else:
            text = " | ".join(c for c in cells if c)
        if text:
            rows.append((offset, offset + len(line), text))
    return rows


def markdown_document(text: str, title: str) -> Document:
    """Blocks of a Markdown file under their ATX/setext heading path (code fences kept whole)."""
    doc = Document(title=title)
    headings = HeadingStack()
    para: list[tuple[int, str]] = []
    in_fence = False

    def flush() -> None:
        rows = _pipe_table_rows(para) if not in_fence else None
        if rows is not None:
            for start, end, row in rows:
                doc.blocks.append(Block(text=row, heading=headings.path, start=start, end=end))
            para.clear()
        if para:
            start = para[0][0]
            end = para[-1][0] + len(para[-1][1])
            body = "\n".join(line for _, line in para).strip()
            if body:
                doc.blocks.append(Block(text=body, heading=headings.path, start=start, end=end))
            para.clear()

    for offset, line in _lines(text):
        if _FENCE.match(line):
            in_fence = not in_fence
            para.append((offset, line))
            continue
        if in_fence:
            para.append((offset, line))
            continue
        atx = _ATX.match(line)
        if atx:
            flush()
            headings.push(len(atx.group(1)), atx.group(2) or "")
            if len(atx.group(1)) == 1 and title == doc.title and not doc.blocks:
                doc.title = (atx.group(2) or title).strip() or title
            continue
        if _SETEXT.match(line) and len(para) == 1:
            heading = para[0][1]
            para.clear()
            headings.push(1 if line.strip().startswith("=") else 2, heading)
            continue
        if not line.strip():
            flush()
            continue
        para.append((offset, line))
    flush()
    return doc


_UNDERLINE = re.compile(r"^[ \t]*(=+|-+)[ \t]*$")
_HEADING_MAX_CHARS = 60
"""A one-line block longer than this is a sentence, not a heading."""


def _plain_heading(block: str) -> tuple[int, str] | None:
    """(level, title) when a plain-text block is a heading as people type them, else None.

    Three habits are recognised: a line underlined with ``===`` (level 1) or ``---`` (level 2),
    a short line in capitals ("WI-FI DETAILS"), and a short line ending with a colon and
    nothing after it ("Bin collection:"); a "key: value" line is text, not a heading.
    """
    lines = block.splitlines()
    if len(lines) == 2 and _UNDERLINE.match(lines[1]) and len(lines[0].strip()) <= 80:
        return (1 if lines[1].strip().startswith("=") else 2), lines[0].strip()
    if len(lines) != 1:
        return None
    return _heading_line(lines[0].strip())


def _heading_line(line: str) -> tuple[int, str] | None:
    """(level, title) when one line is a capitals or colon heading."""
    if not line:
        return None
    if len(line) > _HEADING_MAX_CHARS or line[-1] in ".!?,;":
        return None
    letters = [c for c in line if c.isalpha()]
    if len(letters) >= 3 and all(c.isupper() for c in letters):
        return 1, line.rstrip(":").strip()
    if line.endswith(":") and len(line) > 1:
        return 2, line[:-1].strip()
    return None


def plain_document(text: str, title: str) -> Document:
    """Blocks of a plain-text file: paragraphs separated by blank lines, under their headings.

    Headings are the lines :func:`_plain_heading` recognises; they become the heading path of
    the paragraphs after them (as in Markdown), so a passage keeps the topic it is under. A
    top-level heading before any text is the document's title, as a Markdown file's first
    ``#`` heading is.
    """
    doc = Document(title=title)
    headings = HeadingStack()
    for match in re.finditer(r"\S(?:.*?\S)?(?=\n[ \t]*\n|\s*\Z)", text, re.DOTALL):
        body = match.group(0)
        start = match.start()
        heading = _plain_heading(body)
        if heading is not None:
            if not doc.blocks and not headings.path and heading[0] == 1:
                doc.title = heading[1].title() if heading[1].isupper() else heading[1]
            headings.push(*heading)
            continue
        first, newline, rest = body.partition("\n")
        heading = _heading_line(first.strip()) if newline and rest.strip() else None
        if heading is not None:  # a heading line with its text right under it
            headings.push(*heading)
            skipped = len(body) - len(rest.lstrip())
            body, start = body[skipped:], start + skipped
        doc.blocks.append(Block(text=body, heading=headings.path, start=start, end=match.end()))
    return doc
