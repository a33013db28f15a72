"""The second wake word check: does a quick transcription of the wake segment say the phrase?

openWakeWord scores some look-alikes ("Hey Janice", "Hey Darwin", "Jarvis" alone) as high as
the wake phrase itself. Whisper, which ARIA has loaded anyway, tells them apart: the last 2 s
of audio are transcribed greedily without any vocabulary hint (~0.1-0.2 s with tiny.en, in a
worker thread) and the phrase's words must all be there, in order, each spelt nearly the same
("Hey, Jarvis!" passes, "Hey Janice" and "Jarvis." do not). See ARCHITECTURE.md, "Voice
accuracy".
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Sequence
from typing import Protocol

__all__ = ["WakePhraseCheck", "phrase_heard"]

_LOGGER = logging.getLogger(__name__)
_NAME_SIMILARITY = 0.75
"""How close the name must be spelt ("jervis" 0.83 passes; "janice", "travis" 0.67 fail)."""
_LEAD_SIMILARITY = 0.5
"""The words before it ("hey"): "hay", "hey" pass; Whisper writes "hi" for a hurried "hey"."""
_LEAD_WORDS = {"hey": ("hi", "hay", "heh", "he")}


class QuickTranscriber(Protocol):
    """Whisper's greedy, unbiased transcription of a short segment."""

    async def transcribe_quick(self, pcm: bytes) -> str: ...


def _similar(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _word_matches(expected: str, heard: str, *, name: bool) -> bool:
    if name:
        return _similar(expected, heard) >= _NAME_SIMILARITY
    return heard in _LEAD_WORDS.get(expected, ()) or _similar(expected, heard) >= _LEAD_SIMILARITY


def phrase_heard(text: str, phrase: str) -> bool:
    """Whether ``text`` holds the words of ``phrase`` one after another (spelling tolerant)."""
    words = re.findall(r"[a-z']+", text.lower())
    wanted = phrase.lower().split()
    for start in range(len(words) - len(wanted) + 1):
        window = words[start : start + len(wanted)]
        if all(
            _word_matches(w, h, name=i == len(wanted) - 1)
            for i, (w, h) in enumerate(zip(wanted, window, strict=True))
        ):
            return True
    return False


class WakePhraseCheck:
    """Confirms a wake word detection when the segment's transcript holds a wake phrase.

    Args:
        stt: the loaded speech-to-text model (shared with the pipeline).
        phrases: the wake phrases ("hey jarvis"); a custom model's file name is its phrase.
    """

    def __init__(self, stt: QuickTranscriber, phrases: Sequence[str]) -> None:
        self._stt = stt
        self._phrases = tuple(p for p in phrases if p.strip())
        self.last_text = ""

    async def __call__(self, pcm: bytes) -> bool:
        """Whether ``pcm`` (16 kHz mono, the audio up to the detection) says a wake phrase."""
        text = await self._stt.transcribe_quick(pcm)
        self.last_text = text
        heard = any(phrase_heard(text, phrase) for phrase in self._phrases)
        _LOGGER.debug("Wake phrase check: %r -> %s", text, heard)
        return heard
