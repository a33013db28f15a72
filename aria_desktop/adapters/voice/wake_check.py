"""The second wake word check: does a quick transcription of the wake segment say the phrase?

openWakeWord scores some look-alikes ("Hey Janice", "Hey Darwin", "Jarvis" alone) as high as
the wake phrase itself. Whisper, which ARIA has loaded anyway, tells them apart: the last 2 s
of audio are transcribed greedily without any vocabulary hint (~0.1-0.2 s with tiny.en, in a
worker thread) and the phrase's words must all be there, in order, each spelt nearly the same
("Hey, Jarvis!" passes, "Hey Janice" and "Jarvis." do not).

A transcript without the phrase is not the end: greedy decoding of an accent or of speech in
noise garbles the name ("Hey, John, I missed you." for "Hey Jarvis"). The model is then asked
how likely the phrase itself is for the segment; within :data:`MAX_PHRASE_COST` nats of what
it wrote, the phrase was said. Look-alikes cost more (measured: at least 1.7 nats on 140
clips, 2.4 for those the detector fires on). See ARCHITECTURE.md, "Voice accuracy".
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Sequence
from typing import Protocol

__all__ = ["MAX_PHRASE_COST", "WakePhraseCheck", "phrase_heard", "written_forms"]

_LOGGER = logging.getLogger(__name__)
_NAME_SIMILARITY = 0.75
"""How close the name must be spelt ("jervis" 0.83 passes; "janice", "travis" 0.67 fail)."""
_LEAD_SIMILARITY = 0.5
"""The words before it ("hey"): "hay", "hey" pass; Whisper writes "hi" for a hurried "hey"."""
_LEAD_WORDS = {"hey": ("hi", "hay", "heh", "he")}
MAX_PHRASE_COST = 1.0
"""Nats by which the model may prefer its own transcript to the wake phrase, phrase said.

Measured with tiny.en (``aria bench voice --accuracy`` and 14 look-alikes x 10 voices):
"Hey Jarvis" that the transcript garbled cost -0.9 to 2.8 (6 of 11 within 1.0); look-alikes
1.7 and more (those openWakeWord fires on: 2.4 and more)."""


class QuickTranscriber(Protocol):
    """Whisper's greedy, unbiased transcription of a short segment, and its judgement of it."""

    async def transcribe_quick(self, pcm: bytes) -> str: ...

    async def phrase_cost(self, pcm: bytes, heard: str, phrases: Sequence[str]) -> float: ...


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


def written_forms(phrase: str) -> tuple[str, ...]:
    """How Whisper would write ``phrase`` ("hey jarvis": "Hey Jarvis.", "Hey, Jarvis!", ...)."""
    words = [w.capitalize() for w in phrase.split()]
    bodies = [" ".join(words)]
    if len(words) > 1:
        bodies.append(f"{words[0]}, {' '.join(words[1:])}")
    return tuple(body + end for body in bodies for end in (".", "!"))


class WakePhraseCheck:
    """Confirms a wake word detection when the segment says a wake phrase.

    Said: the quick transcript holds it, or the model finds it nearly as likely as what it
    wrote (:data:`MAX_PHRASE_COST`).

    Args:
        stt: the loaded speech-to-text model (shared with the pipeline).
        phrases: the wake phrases ("hey jarvis"); a custom model's file name is its phrase.
    """

    def __init__(self, stt: QuickTranscriber, phrases: Sequence[str]) -> None:
        self._stt = stt
        self._phrases = tuple(p for p in phrases if p.strip())
        self._forms = tuple(form for p in self._phrases for form in written_forms(p))
        self.last_text = ""

    async def __call__(self, pcm: bytes) -> bool:
        """Whether ``pcm`` (16 kHz mono, the audio up to the detection) says a wake phrase."""
        text = await self._stt.transcribe_quick(pcm)
        self.last_text = text
        if not self._phrases:
            return False
        if any(phrase_heard(text, phrase) for phrase in self._phrases):
            _LOGGER.debug("Wake phrase check: %r -> heard", text)
            return True
        cost = await self._stt.phrase_cost(pcm, text, self._forms)
        _LOGGER.debug("Wake phrase check: %r, the phrase %.1f nats less likely", text, cost)
        return cost <= MAX_PHRASE_COST
