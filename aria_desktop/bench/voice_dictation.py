"""``aria bench voice --dictation``: spoken punctuation and words, as dictation types them.

Dictated sentences with spoken marks ("Dear Anna comma thanks full stop") and plain ones are
spoken by generated voices (espeak-ng accents and variants, Piper with its variation: the
wake word benchmark's voices, ``wake_corpus``) and heard by the packaged tiny.en as ARIA's
dictation hears them, with the prompt that tells Whisper to expect spoken marks and without
it. Each transcript goes through dictation's own formatting (``domain/dictation.py``) and is
scored against the sentence as it should be typed:

- marks: the share of the spoken marks that come out as the right mark in the right order;
- WER: word error rate of the typed words (core/voice/wer.py);
- invented marks: plain sentences whose transcript holds a mark word nobody said.

Voices and sentences both have a tuning half and a checking half; the prompt was chosen on
the tuning half, the checking half is the figure to quote.
"""

from __future__ import annotations

import difflib
import os
import random
import re
from dataclasses import dataclass, field

from aria_desktop.bench.wake_corpus import WakeVoice, say, wake_voices
from aria_desktop.core.voice.wer import word_errors
from aria_desktop.domain.audio import PIPELINE_RATE_HZ, AudioClip
from aria_desktop.domain.dictation import DICTATION_PROMPT, typed_text

__all__ = ["run_dictation_bench"]

MARKED: dict[str, tuple[str, ...]] = {
    "tune": (
        "Dear Anna comma thanks for the lovely tea full stop",
        "Can you send the report by Friday question mark",
        "Shopping list colon milk comma eggs and bread",
        "We won the match exclamation mark",
        "First call the plumber new line then pay the bill",
        "I will be late tonight comma sorry full stop",
        "Is the meeting still on question mark see you there",
        "Pack the tent comma the stove and the maps full stop",
    ),
    "check": (
        "Hello Tom comma the keys are under the mat full stop",
        "Did you feed the cat question mark",
        "Things to bring colon towels comma snacks and water",
        "Happy birthday exclamation mark",
        "Dinner is at seven new line bring a salad",
        "The train was cancelled comma so I took the bus full stop",
        "Could we meet on Tuesday instead question mark",
        "Note colon the gate code changed full stop",
    ),
}
"""Sentences with spoken marks, per half."""

PLAIN: dict[str, tuple[str, ...]] = {
    "tune": (
        "Thanks for the tea and see you on Sunday",
        "The boiler needs a service before the winter",
        "Please book a table for four at eight",
        "My sister arrives on the morning train",
        "Remember to water the tomatoes every evening",
        "The parcel came while we were out",
    ),
    "check": (
        "The library closes early on Saturdays",
        "We need new batteries for the smoke alarm",
        "Grandma loved the photos you sent",
        "The car is booked in for Thursday morning",
        "I left my umbrella at the office",
        "Our neighbours are away until next week",
    ),
}
"""Sentences without a spoken mark, per half (for marks nobody said)."""

_VOICES = {"espeak": 4, "piper": 3}
_MARKS = frozenset(",.?!:;\n")
_MARK_WORDS = re.compile(
    r"\b(comma|full stop|period|question mark|exclamation (mark|point)|colon|semicolon"
    r"|new ?line|new paragraph)\b",
    re.IGNORECASE,
)
_SILENCE = b"\0\0" * (PIPELINE_RATE_HZ // 2)


@dataclass
class _Tally:
    marks_said: int = 0
    marks_typed: int = 0
    word_errors: int = 0
    words: int = 0
    plain: int = 0
    invented: int = 0
    examples: list[str] = field(default_factory=list)

    def line(self, label: str) -> str:
        marks = self.marks_typed / self.marks_said if self.marks_said else 0.0
        wer = self.word_errors / self.words if self.words else 0.0
        return (
            f"  {label:<28}{marks:>8.3f}{wer:>8.3f}{self.invented:>6} of {self.plain:<4}"
            f"({self.marks_said} marks, {self.words} words)"
        )


def _voices(half: str) -> list[WakeVoice]:
    voices = wake_voices(half=half)
    random.Random(f"dictation {half}").shuffle(voices)
    picked: list[WakeVoice] = []
    for family, count in _VOICES.items():
        picked += [v for v in voices if v.family == family][:count]
    return picked


def _marks(text: str) -> list[str]:
    return [char for char in text if char in _MARKS]


def _score(tally: _Tally, said: str, heard: str, *, marked: bool) -> None:
    wanted, typed = typed_text(said), typed_text(heard)
    errors, words = word_errors(wanted, typed)
    tally.word_errors += errors
    tally.words += words
    if marked:
        expected, got = _marks(wanted), _marks(typed)
        matcher = difflib.SequenceMatcher(a=expected, b=got, autojunk=False)
        right = sum(block.size for block in matcher.get_matching_blocks())
        tally.marks_said += len(expected)
        tally.marks_typed += right
        if right < len(expected) and len(tally.examples) < 3:
            tally.examples.append(f"{said!r} -> {typed!r}")
    else:
        tally.plain += 1
        tally.invented += bool(_MARK_WORDS.search(heard))


async def run_dictation_bench() -> None:
    """Print marks, WER and invented marks per half and voice family, prompt on and off."""
    from aria_desktop.adapters.voice.whisper import WhisperSTT

    stt = WhisperSTT("tiny.en", cpu_threads=os.cpu_count() or 2)
    await stt.load()
    prompts = {"no prompt": "", "dictation prompt": DICTATION_PROMPT}
    print("aria bench voice --dictation — tiny.en, generated voices; quote the check half")
    for half in ("tune", "check"):
        tallies: dict[tuple[str, str], _Tally] = {}
        for voice in _voices(half):
            sentences = [(s, True) for s in MARKED[half]] + [(s, False) for s in PLAIN[half]]
            for said, marked in sentences:
                clip = AudioClip(pcm=_SILENCE + say(said, voice) + _SILENCE)
                for label, prompt in prompts.items():
                    heard = await stt.transcribe(clip, language="en", prompt=prompt)
                    for family in (voice.family, "all"):
                        tally = tallies.setdefault((family, label), _Tally())
                        _score(tally, said, heard.text, marked=marked)
        print(f"{half} half ({len(_voices(half))} voices){'':<6}marks     WER  invented marks")
        for (family, label), tally in sorted(tallies.items()):
            print(tally.line(f"{family}, {label}"))
        for label in prompts:
            for example in tallies[("all", label)].examples:
                print(f"    {label}: {example}")
    await stt.aclose()
