"""The benchmark's word error rate: correct transcripts score 0, misheard words count."""

from __future__ import annotations

import pytest

from aria_desktop.core.voice.wer import error_pairs, normalize, word_errors


@pytest.mark.parametrize(
    ("said", "heard"),
    [
        (
            "What's the weather in Reykjavik this weekend?",
            "What is the weather in Reykjavík this weekend",
        ),
        ("Text Dmitri that I am on my way.", "Text Dmitri that I'm on my way."),
        ("Schedule a meeting with Zoltan.", "Schedule a meeting with Zoltán."),
        ("I won't be late.", "I will not be late"),
        ("Set the colour to grey.", "Set the color to gray."),
        ("Okay, call Nakamura.", "OK call Nakamura"),
        ("Call Priya Raman at seven thirty p.m.", "Call Priya Raman at 7:30 PM."),
        ("Remind me on March third.", "Um, remind me on March 3rd. [music]"),
        ("Turn the volume down to thirty percent.", "Turn the volume down to 30%."),
        ("What is fifteen times twelve?", "What is 15x12?"),
        ("What is fifteen times twelve?", "What is 15 × 12?"),
    ],
)
def test_a_correct_transcript_written_differently_scores_no_errors(said: str, heard: str) -> None:
    assert word_errors(said, heard) == (0, len(normalize(said)))


def test_a_mangled_time_and_a_misheard_name_count_as_errors() -> None:
    said = "Call Priya Raman tomorrow at seven thirty p.m."
    assert error_pairs(said, "Call Pria Raman tomorrow at 0 730 pm") == [
        ("priya", "pria"),
        ("", "zero"),
    ]
    assert (
        word_errors("Text Dmitri that I am on my way.", "Text the tree that I'm on my way")[0] == 2
    )


def test_error_pairs_name_each_run_of_errors_in_order() -> None:
    pairs = error_pairs(
        "Call Priya Raman tomorrow at seven thirty p.m.",
        "Please call Pria Ramen tomorrow at seven p.m.",
    )
    assert pairs == [("", "please"), ("priya raman", "pria ramen"), ("thirty", "")]
    assert error_pairs("Play some jazz on Spotify.", "Play some jazz on Spotify") == []
