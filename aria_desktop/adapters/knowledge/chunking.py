"""Chunking by structure: headings and pages first, then paragraphs, then sentences.

Consecutive blocks under the same heading path and page are joined up to
:data:`TARGET_CHARS`; a block longer than :data:`MAX_CHARS` is cut at sentence ends (then at
spaces). Each chunk keeps its heading path, page and character offsets, and its hash covers
the heading path, page and text, so an edit re-embeds only the chunks it touched.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from aria_desktop.adapters.knowledge.document import Block, Document

__all__ = ["HEADING_SEPARATOR", "MAX_CHARS", "TARGET_CHARS", "Chunk", "chunk_document"]

TARGET_CHARS = 700
"""Paragraphs are joined into one chunk up to about this many characters ..."""
MAX_CHARS = 1000
"""... and no chunk is longer than this (MiniLM reads about 256 word pieces)."""
HEADING_SEPARATOR = " > "
_SENTENCE_END = re.compile(r"(?<=[.!?…:;])\s+")


@dataclass(frozen=True, kw_only=True)
class Chunk:
    """One searchable piece of a document.

    Attributes:
        text: the chunk's text.
        heading: heading path joined with `` > `` ("" when none).
        page: PDF page or None.
        start, end: character offsets (see ``document.Block``).
        hash: identity of heading, page and text (unchanged chunk -> same hash).
    """

    text: str
    heading: str
    page: int | None
    start: int
    end: int
    hash: str

    @property
    def indexed_text(self) -> str:
        """What is embedded: the heading path is part of the chunk's meaning."""
        return f"{self.heading}\n{self.text}" if self.heading else self.text


def _hash(heading: str, page: int | None, text: str) -> str:
    return hashlib.sha256(f"{heading}\x1f{page or 0}\x1f{text}".encode()).hexdigest()


def _pieces(block: Block) -> Iterator[tuple[str, int, int]]:
    """``block`` cut into pieces of at most MAX_CHARS at sentence ends, then at spaces."""
    text = block.text
    if len(text) <= MAX_CHARS:
        yield text, block.start, block.end
        return
    # Offsets inside a block are exact for text extracted verbatim (Markdown, plain, PDF page)
    # and proportional elsewhere (HTML/DOCX blocks are whitespace-normalised already).
    bounds = [0, *(m.end() for m in _SENTENCE_END.finditer(text)), len(text)]
    start = 0
    for index in range(1, len(bounds)):
        end = bounds[index]
        next_end = bounds[index + 1] if index + 1 < len(bounds) else None
        if next_end is not None and next_end - start <= TARGET_CHARS:
            continue
        while end - start > MAX_CHARS:
            cut = text.rfind(" ", start, start + MAX_CHARS)
            cut = cut if cut > start else start + MAX_CHARS
            yield text[start:cut].strip(), block.start + start, block.start + cut
            start = cut
        if text[start:end].strip():
            yield text[start:end].strip(), block.start + start, block.start + end
        start = end


def chunk_document(doc: Document) -> list[Chunk]:
    """The document's chunks in reading order."""
    chunks: list[Chunk] = []
    parts: list[str] = []
    key: tuple[tuple[str, ...], int | None] | None = None
    span = [0, 0]

    def flush() -> None:
        if parts and key is not None:
            heading = HEADING_SEPARATOR.join(key[0])
            text = "\n\n".join(parts)
            chunks.append(
                Chunk(
                    text=text,
                    heading=heading,
                    page=key[1],
                    start=span[0],
                    end=span[1],
                    hash=_hash(heading, key[1], text),
                )
            )
        parts.clear()

    for block in doc.blocks:
        for text, start, end in _pieces(block):
            here = (block.heading, block.page)
            size = sum(len(p) + 2 for p in parts)
            if here != key or size + len(text) > TARGET_CHARS:
                flush()
                key, span[0] = here, start
            parts.append(text)
            span[1] = end
    flush()
    return chunks
