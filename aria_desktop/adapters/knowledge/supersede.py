"""Newer versions first: a passage of a document that replaces an older one outranks its match.

People keep the old Wi-Fi note next to the new one, last year's bin calendar next to this
year's. Both answer "what is the Wi-Fi password?" equally well by their words, so search alone
ranks them by chance; the answer a person wants is the current one. Two files are versions of
one document when their titles (or file names) are the same once years, dates and words like
"new", "old", "v2" or "updated" are left out; a passage of the newer file (by modification
time) that says the same as a passage of the older one (their vectors are close) is moved
just above it. Nothing is dropped: the older passage stays, below, for "what was it before?".

Pure (no SQL): ``search`` gives it the fused ranking with each candidate's file facts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

__all__ = ["SAME_PASSAGE_COSINE", "Candidate", "document_family", "newer_first"]

SAME_PASSAGE_COSINE = 0.5
"""Two passages of two versions say the same thing when their cosine is at least this."""

_VERSION_WORDS = frozenset(
    {
        "new", "newer", "newest", "old", "older", "latest", "current", "updated", "update",
        "final", "draft", "copy", "version", "revised", "rev", "edition",
    }
)  # fmt: skip
_MONTHS = frozenset(
    {
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
        "dec", "january", "february", "march", "april", "june", "july", "august", "september",
        "october", "november", "december",
    }
)  # fmt: skip
_EXTENSION = re.compile(r"\.(?:md|markdown|txt|text|html?|pdf|docx)$", re.IGNORECASE)
_VERSION_TOKEN = re.compile(r"^(?:v|rev|r)?\d+[a-z]?$")


def document_family(name: str) -> str:
    """The words that stay the same across versions of a document's title or file name.

    ``"bins-2024.html"``, ``"Bins 2025"`` and ``"bins (new)"`` are all ``"bins"``; a name
    that is nothing but a date or a version gives "" (no family: never matched).
    """
    words = re.findall(r"[^\W_]+", _EXTENSION.sub("", PurePath(name).name).casefold())
    kept = [
        word
        for word in words
        if word not in _VERSION_WORDS and word not in _MONTHS and not _VERSION_TOKEN.match(word)
    ]
    return " ".join(kept)


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """What the ordering needs of one ranked passage.

    Attributes:
        path: its file.
        families: the document families of its file's title and file name.
        modified: the file's modification time (any monotonic unit).
        vector: its unit vector (float32, as stored), None when it has none; read only for
            the few pairs of versions.
    """

    path: str
    families: frozenset[str]
    modified: int
    vector: bytes | None


def _cosine(a: bytes | None, b: bytes | None) -> float:
    if not a or not b or len(a) != len(b):
        return 0.0
    left, right = memoryview(a).cast("f"), memoryview(b).cast("f")
    return float(sum(x * y for x, y in zip(left, right, strict=True)))


def _replaces(newer: Candidate, older: Candidate, threshold: float) -> bool:
    return (
        newer.path != older.path
        and newer.modified > older.modified
        and bool(newer.families & older.families)
        and _cosine(newer.vector, older.vector) >= threshold
    )


def newer_first(
    ranked: Sequence[Candidate], *, threshold: float = SAME_PASSAGE_COSINE
) -> list[int]:
    """The order (indexes into ``ranked``) with each newer version's passage above its match.

    Every passage keeps its place unless a passage of a newer version of its document, saying
    the same, ranks below it: that one moves up to just above it. Stable otherwise.
    """
    order = list(range(len(ranked)))
    position = 0
    while position < len(order):
        older = ranked[order[position]]
        for later in range(position + 1, len(order)):
            if _replaces(ranked[order[later]], older, threshold):
                order.insert(position, order.pop(later))
                break
        else:
            position += 1
    return order
