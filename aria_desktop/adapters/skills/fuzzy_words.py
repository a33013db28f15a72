"""Near-miss words of a transcript replaced by the templates' own words.

Speech-to-text writes "timmer" or "minuets" now and then; a template needs the right word. Only
words the templates do not know are replaced, only by a template word that is very close (and
only for words long enough that closeness means something), so a correction cannot turn one
known command into another. Voice turns use it after the exact match failed.

Some mishearings are real words, which spelling closeness cannot catch: Whisper writes a
command's first word "Add" as "And" ("and milk to my shopping list") and "Start a 15 minute
timer" as "Start at …". Those few, measured on the tuning half of ``aria bench skills
--accuracy``, are tried as sound-alike readings (``SOUND_ALIKES``); a reading still has to
state a whole template, so "And then?" stays a question.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["SOUND_ALIKES", "WordCorrector"]

_MIN_LENGTH = 4
_CUTOFF = 0.75
_WORD = re.compile(r"[\w']+")

SoundAlike = tuple[re.Pattern[str], str]

SOUND_ALIKES: Mapping[str, Sequence[SoundAlike]] = {
    "en": (
        # not when "add" is said too: "and then add it to the list" is not "add then add it"
        (re.compile(r"^and\b(?!.*\badd\b)", re.IGNORECASE), "add"),
        (re.compile(r"^(set|start) at\b(?=.*\btimer\b)", re.IGNORECASE), r"\1 a"),
    ),
}
"""Per language: a real word Whisper writes for a command's word, as (pattern, replacement)."""


class WordCorrector:
    """Replaces unknown words by the closest known word, when one is close enough."""

    def __init__(self, vocabulary: Iterable[str], sound_alikes: Sequence[SoundAlike] = ()) -> None:
        """Know ``vocabulary`` (lower-case words); ``sound_alikes`` are tried as readings."""
        self._known = frozenset(vocabulary)
        self._long = sorted(word for word in self._known if len(word) >= _MIN_LENGTH - 1)
        self._sound_alikes = tuple(sound_alikes)

    @classmethod
    def from_templates(cls, words: Iterable[str], language: str = "") -> WordCorrector:
        """A corrector for the words of a language's templates."""
        return cls(words, SOUND_ALIKES.get(language, ()))

    def readings(self, text: str) -> list[str]:
        """Other readings of ``text`` to try, likeliest first (``text`` itself is not one).

        The words corrected; then each sound-alike that applies, with the words corrected.
        """
        found: list[str] = []
        for reading in (text, *self._alike(text)):
            for candidate in (reading, self.correct(reading)):
                if candidate != text and candidate not in found:
                    found.append(candidate)
        return found

    def _alike(self, text: str) -> list[str]:
        readings = []
        for pattern, replacement in self._sound_alikes:
            changed = pattern.sub(replacement, text, count=1)
            if changed != text:
                readings.append(changed)
        return readings

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
