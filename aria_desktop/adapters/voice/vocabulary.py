"""The user's names as a hint to Whisper, and the first check that a hint was really heard.

Names given to faster-whisper as ``hotwords`` fix names it mishears ("Dmitri", not "the
metri"), but on a short command a suggested name can also come out when it was never said:
the whole command replaced by the list ("Kowalski, Oluwaseun"), or a word swapped for a
name ("What is" -> "Wojciech", "March 3rd" -> "Margarethe"). A transcript that contains a
suggested name is therefore decoded again without the hint and the two are aligned word by
word: here, a name must stand in place of words the unbiased decoding heard — not of nothing,
not of a number, not of function words alone. The engine then asks the model itself whether
the name is as likely as what it heard (``whisper.WhisperSTT``: the suggested transcript's
probability under the unbiased prompt). See ARCHITECTURE.md, "Voice accuracy".
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

__all__ = ["MAX_HOTWORDS_CHARS", "hotwords_text", "mentioned", "supported_by"]

MAX_HOTWORDS_CHARS = 200
"""The hint stays short: Whisper's prompt is limited, and a long list invents more names."""
_FUNCTION_WORD_TEXT = """a an the and or but of to in on at by for from with is are was were be am
i you he she it we they me my your his her its our their this that what what's who how when where
which do does did not no so if as"""
_FUNCTION_WORDS = frozenset(_FUNCTION_WORD_TEXT.split())
"""Words a name never replaces on their own: "What is 15 times 12" -> "Wojciech 15 times 12"."""


def hotwords_text(terms: Sequence[str]) -> str:
    """The terms as one comma-separated hint, cut to whole terms within the length cap."""
    text = ""
    for term in terms:
        candidate = f"{text}, {term}" if text else term
        if len(candidate) > MAX_HOTWORDS_CHARS:
            break
        text = candidate
    return text


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower().replace("'s ", " "))


def _term_words(terms: Sequence[str]) -> set[str]:
    return {word for term in terms for word in _words(term) if len(word) > 2}


def mentioned(text: str, terms: Sequence[str]) -> bool:
    """Whether any (3+ letter) word of the terms occurs in ``text``."""
    return not _term_words(terms).isdisjoint(_words(text))


def _replaceable(span: list[str]) -> bool:
    """Whether a name may stand where the unbiased decoding heard ``span``.

    Not where it heard nothing, not in place of a number, not for function words alone.
    """
    if not span or any(char.isdigit() for word in span for char in word):
        return False
    return not all(word in _FUNCTION_WORDS for word in span)


def supported_by(biased: str, plain: str, terms: Sequence[str]) -> bool:
    """Whether every suggested name in ``biased`` stands in place of words ``plain`` heard.

    The two transcripts are aligned word by word; every changed stretch that holds a suggested
    name must replace words of the unbiased decoding that a name could be a mishearing of
    (``_replaceable``). Whether it sounds like them is the model's call
    (``WhisperSTT``), not a spelling comparison's.

    Args:
        biased: the transcript decoded with the names as hotwords.
        plain: the same audio decoded without them.
        terms: the names suggested.
    """
    names = _term_words(terms)
    ours, theirs = _words(biased), _words(plain)
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal" or names.isdisjoint(ours[i1:i2]):
            continue
        if not _replaceable(theirs[j1:j2]):
            return False
    return True
