"""The user's names as a hint to Whisper, and the check that a hint was really heard.

Names given to faster-whisper as ``hotwords`` fix names it mishears ("Dmitri", not "the
metri"), but on a short command a suggested name can also come out when it was never said:
the whole command replaced by the list ("Kowalski, Oluwaseun"), or a word swapped for a
name ("What is" -> "Wojciech", "March 3rd" -> "Margarethe"). So a transcript that contains a
suggested name is compared with the unbiased one: the name must stand where the unbiased
decoding heard something that sounds like it, and never in place of a number. See
ARCHITECTURE.md, "Voice accuracy".
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

__all__ = ["MAX_HOTWORDS_CHARS", "hotwords_text", "mentioned", "supported_by"]

MAX_HOTWORDS_CHARS = 200
"""The hint stays short: Whisper's prompt is limited, and a long list invents more names."""
_MIN_SIMILARITY = 0.4
_MIN_LENGTH_RATIO = 0.6
_SOUNDS = (("ph", "f"), ("ck", "k"), ("c", "k"), ("q", "k"), ("z", "s"), ("x", "ks"), ("w", "v"))


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


def _sound(text: str) -> str:
    letters = re.sub(r"[^a-z]", "", text.lower())
    for written, said in _SOUNDS:
        letters = letters.replace(written, said)
    return letters


def _sounds_alike(heard: list[str], unbiased: list[str]) -> bool:
    said = " ".join(unbiased)
    if not unbiased or any(char.isdigit() for char in said):
        return False  # a name where nothing (or a number) was heard was not said
    a, b = _sound(" ".join(heard)), _sound(said)
    if min(len(a), len(b)) < _MIN_LENGTH_RATIO * max(len(a), len(b)):
        return False  # "Kowalski" for "call": a name is not twice as long as what was heard
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= _MIN_SIMILARITY


def supported_by(biased: str, plain: str, terms: Sequence[str]) -> bool:
    """Whether every suggested name in ``biased`` replaces a sound-alike in ``plain``.

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
        if op != "replace":
            return False
        if i2 - i1 == j2 - j1:  # word for word: each name against the word in its place
            pairs = [([o], [t]) for o, t in zip(ours[i1:i2], theirs[j1:j2], strict=True)]
            if not all(_sounds_alike(o, t) for o, t in pairs if o[0] in names):
                return False
        elif not _sounds_alike(ours[i1:i2], theirs[j1:j2]):
            return False
    return True
