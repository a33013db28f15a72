"""Test my voice: the candidate that missed fewest words wins, the faster one only on a tie."""

from __future__ import annotations

import pytest

from aria_desktop.core.voice.voice_trial import CANDIDATES, best, score
from aria_desktop.domain.voice_trial import SpeechCandidate, TrialHearing

TINY, QUICK, BASE = CANDIDATES
SAID = "Remind me to call Anna at half past six."


def heard(candidate: SpeechCandidate, text: str, seconds: float) -> TrialHearing:
    return TrialHearing(candidate=candidate, said=SAID, heard=text, seconds=seconds)


def test_words_missed_and_time_are_counted_per_candidate_in_order() -> None:
    scores = score(
        [
            heard(TINY, "Remind me to call Anna at 6:30.", 0.3),
            heard(TINY, "Remind me to call Hannah at half past six.", 0.5),
            heard(BASE, SAID, 0.9),
            heard(BASE, SAID, 1.1),
        ]
    )
    assert [s.candidate for s in scores] == [TINY, BASE]
    assert (scores[0].errors, scores[0].words, scores[0].seconds) == (
        4,
        18,
        0.4,
    )  # "6:30" for "half past six": 3; "Hannah": 1
    assert (scores[1].errors, scores[1].seconds) == (0, 1.0)


def test_the_most_accurate_wins_even_when_slower() -> None:
    scores = score(
        [heard(TINY, "Remind me to call Hannah at half past six.", 0.3), heard(BASE, SAID, 1.2)]
    )
    assert best(scores).candidate == BASE


def test_on_a_tie_the_faster_wins() -> None:
    scores = score([heard(TINY, SAID, 0.4), heard(QUICK, SAID, 0.2), heard(BASE, SAID, 1.0)])
    assert best(scores).candidate == QUICK
    assert QUICK.label == "tiny.en (quick)"


def test_nothing_tried_is_an_error() -> None:
    with pytest.raises(ValueError, match="no candidate"):
        best([])
