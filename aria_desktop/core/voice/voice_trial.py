"""Test my voice: which local speech model and decoding hear this person best.

The wizard records the person reading a few sentences; each recording is transcribed by every
candidate (the packaged tiny.en and base models, beam search and greedy), the words missed are
counted the way the benchmarks count them (``wer.py``), and the candidate that misses fewest
wins — the faster one only on a tie (accuracy before speed). Pure: the transcriptions come in
as ``TrialHearing`` values.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from aria_desktop.core.voice.wer import word_errors
from aria_desktop.domain.voice_trial import SpeechCandidate, TrialHearing, TrialScore

__all__ = ["CANDIDATES", "best", "score"]

CANDIDATES: tuple[SpeechCandidate, ...] = (
    SpeechCandidate(model="tiny.en", beam_size=5),
    SpeechCandidate(model="tiny.en", beam_size=1),
    SpeechCandidate(model="base", beam_size=5),
)
"""The packaged models with ARIA's decoding, and tiny.en greedy (faster, mishears more)."""


def score(hearings: Sequence[TrialHearing]) -> list[TrialScore]:
    """Words missed and time per sentence for each candidate, in ``CANDIDATES`` order."""
    scores = []
    for candidate in dict.fromkeys(h.candidate for h in hearings):
        mine = [h for h in hearings if h.candidate == candidate]
        errors = words = 0
        for hearing in mine:
            wrong, total = word_errors(hearing.said, hearing.heard)
            errors, words = errors + wrong, words + total
        seconds = statistics.median(h.seconds for h in mine) if mine else 0.0
        scores.append(TrialScore(candidate=candidate, errors=errors, words=words, seconds=seconds))
    return scores


def best(scores: Sequence[TrialScore]) -> TrialScore:
    """The candidate that missed fewest words; on a tie the faster one."""
    if not scores:
        raise ValueError("no candidate was tried")
    return min(scores, key=lambda s: (s.errors, s.seconds))
