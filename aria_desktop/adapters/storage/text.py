"""Text for the keyword leg of hybrid search: normalisation, content hash, safe FTS5 queries.

Shared by every store that ranks with FTS5 + sqlite-vec (long-term memory today, the knowledge
base next; see ``aria_desktop/ARCHITECTURE.md``), so that "the same statement" and "the words a
query searches for" mean one thing everywhere. User, model and OCR text never reaches FTS5
syntax raw: a query is reduced to quoted words (:func:`fts_query`).
"""

from __future__ import annotations

import hashlib
import re

__all__ = [
    "MAX_QUERY_WORDS",
    "content_hash",
    "fts_query",
    "normalize_content",
    "query_terms",
    "strict_coverage",
    "term_coverage",
]

MAX_QUERY_WORDS = 32
"""At most this many distinct content words of a query are searched for."""

_WORD_RE = re.compile(r"\w+", re.UNICODE)
_STOPWORD_TEXT = """a about above after again all am an and any are as at be been before being below
    between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself
    yourselves s t d ll m re ve don doesn didn isn wasn aren weren won wouldn shouldn whats
    what's tell know remember please
    called call named name like get got thing things much many also still ever"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def normalize_content(text: str) -> str:
    """Collapse whitespace, for comparing texts whose spacing should not matter.

    Not a stored form: memory keeps text exactly as acknowledged (``adapters/memory/rows.py``), and
    spacing is ignored where it must be by :func:`content_hash`.
    """
    return " ".join(text.split())


def content_hash(text: str) -> str:
    """Hash identifying "the same statement": case, spacing and final punctuation ignored."""
    canonical = " ".join(text.casefold().split()).rstrip(".!?;,: ")
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression for plain text: quoted content words joined by OR.

    Every token is a run of word characters wrapped in double quotes, so no FTS5 operator,
    column filter, prefix or NEAR group can be expressed by the input (``NEAR(" OR *`` becomes
    ``"near"``). Common function words and question-frame words ("what is X called") are
    dropped so they do not swamp BM25. Returns "" when nothing searchable is left.
    """
    words: list[str] = []
    for word in _WORD_RE.findall(text.casefold()):
        if word in _STOPWORDS or word in words:
            continue
        words.append(word)
        if len(words) >= MAX_QUERY_WORDS:
            break
    return " OR ".join(f'"{word}"' for word in words)


def _stem(word: str) -> str:
    """A light suffix strip, close enough to FTS5's porter stemmer to compare word sets."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def query_terms(text: str) -> set[str]:
    """The stemmed content words :func:`fts_query` searches for."""
    return {_stem(w) for w in _WORD_RE.findall(text.casefold()) if w not in _STOPWORDS}


def term_coverage(terms: set[str], content: str) -> float:
    """Fraction of the query's content words found in ``content``.

    A row the keyword index returned holds at least one query word even when the light stem
    here misses it, so the share never drops below one word. An empty query covers nothing.
    """
    if not terms:
        return 0.0
    found = terms & {_stem(w) for w in _WORD_RE.findall(content.casefold())}
    return max(len(found), 1) / len(terms)


def strict_coverage(terms: set[str], content: str, strict: bool) -> float | None:
    """A keyword match's coverage, or None when ``strict`` drops it.

    With ``strict`` (a vector leg runs too), a match must hold more than half of the query's
    words: one shared common word is weak evidence, and under rank fusion it would push better
    meaning matches out of the top results.
    """
    share = term_coverage(terms, content)
    return None if strict and share <= 0.5 else share
