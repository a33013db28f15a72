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


def markdown_document(text: str, title: str) -> Document:
    """Blocks of a Markdown file under their ATX/setext heading path (code fences kept whole)."""
    doc = Document(title=title)
    headings = HeadingStack()
    para: list[tuple[int, str]] = []
    in_fence = False

    def flush() -> None:
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


def plain_document(text: str, title: str) -> Document:
    """Blocks of a plain-text file: paragraphs separated by blank lines."""
    doc = Document(title=title)
    for match in re.finditer(r"\S(?:.*?\S)?(?=\n[ \t]*\n|\s*\Z)", text, re.DOTALL):
        doc.blocks.append(Block(text=match.group(0), start=match.start(), end=match.end()))
    return doc
