"""Near-miss words of a transcript replaced by the templates' own words.

Speech-to-text writes "timmer" or "minuets" now and then; a template needs the right word. Only
words the templates do not know are replaced, only by a template word that is very close (and
only for words long enough that closeness means something), so a correction cannot turn one
known command into another. Voice turns use it after the exact match failed.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

__all__ = ["WordCorrector"]

_MIN_LENGTH = 4
_CUTOFF = 0.75
_WORD = re.compile(r"[\w']+")


class WordCorrector:
    """Replaces unknown words by the closest known word, when one is close enough."""

    def __init__(self, vocabulary: Iterable[str]) -> None:
        """Know ``vocabulary`` (lower-case words)."""
        self._known = frozenset(vocabulary)
        self._long = sorted(word for word in self._known if len(word) >= _MIN_LENGTH - 1)

    @classmethod
    def from_templates(cls, words: Iterable[str]) -> WordCorrector:
        """A corrector for the words of a language's templates."""
        return cls(words)

    def correct(self, text: str) -> str:
        """``text`` with each unknown long word replaced by a close known one."""

        def one(match: re.Match[str]) -> str:
            word = match.group(0)
            lowered = word.lower()
            if len(lowered) < _MIN_LENGTH or lowered in self._known or lowered.isdigit():
                return word
            close = difflib.get_close_matches(lowered, self._long, n=1, cutoff=_CUTOFF)
            return close[0] if close else word

        return _WORD.sub(one, text)
