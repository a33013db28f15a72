"""``aria bench voice --dictation``'s scoring: spoken marks typed right, words, invented marks
(behaviour only: the figures are the benchmark's business)."""

from __future__ import annotations

from aria_desktop.bench.voice_dictation import MARKED, PLAIN, _score, _Tally, _voices


def test_a_transcript_with_every_mark_scores_all_of_them() -> None:
    tally = _Tally()
    _score(
        tally,
        "Dear Anna comma thanks full stop",
        "Dear Anna, comma, thanks. Full stop.",
        marked=True,
    )
    assert (tally.marks_said, tally.marks_typed) == (2, 2)
    assert tally.word_errors == 0


def test_a_misheard_mark_is_missed_and_its_word_is_an_error() -> None:
    tally = _Tally()
    _score(tally, "Dear Anna comma thanks full stop", "Dear Anna commerce thanks.", marked=True)
    assert (tally.marks_said, tally.marks_typed) == (2, 1)
    assert tally.word_errors == 1
    assert tally.examples


def test_a_mark_word_nobody_said_counts_as_invented() -> None:
    tally = _Tally()
    _score(tally, "The parcel came", "The parcel came, full stop.", marked=False)
    _score(tally, "The parcel came", "The parcel came.", marked=False)
    assert (tally.plain, tally.invented) == (2, 1)


def test_the_halves_share_no_sentence_and_no_voice() -> None:
    assert not set(MARKED["tune"]) & set(MARKED["check"])
    assert not set(PLAIN["tune"]) & set(PLAIN["check"])
    assert not {v.key for v in _voices("tune")} & {v.key for v in _voices("check")}
