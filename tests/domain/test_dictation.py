"""Dictated words to typed text: spoken punctuation, Whisper's own marks, spacing, capitals."""

from __future__ import annotations

import pytest

from aria_desktop.domain.dictation import asks_for_dictation, joined, typed_text


@pytest.mark.parametrize(
    ("heard", "typed"),
    [
        (
            "Dear Anna comma new line thanks for the tea full stop see you soon",
            "Dear Anna,\nThanks for the tea. See you soon",
        ),
        ("What time is it question mark", "What time is it?"),
        ("Buy milk period. Then call mum exclamation mark", "Buy milk. Then call mum!"),
        ("Great exclamation point", "Great!"),
        ("I said colon yes", "I said: yes"),
        ("Eggs semicolon bread semi colon jam", "Eggs; bread; jam"),
        ("First line new paragraph second line", "First line\n\nSecond line"),
        ("new line hello", "\nHello"),
        ("Hello world.", "Hello world."),
    ],
)
def test_spoken_marks_become_the_marks(heard: str, typed: str) -> None:
    assert typed_text(heard) == typed


@pytest.mark.parametrize(
    ("heard", "typed"),
    [
        ("Hello, comma, how are you? Question mark.", "Hello, how are you?"),
        ("Thanks. Full stop.", "Thanks."),
        ("See you, new line. Bye.", "See you\nBye."),
        ("Wait, comma. Okay.", "Wait, Okay."),
    ],
)
def test_a_spoken_mark_replaces_the_mark_whisper_wrote_beside_it(heard: str, typed: str) -> None:
    assert typed_text(heard) == typed


def test_silence_and_marks_alone_type_nothing_or_the_mark() -> None:
    assert typed_text("") == ""
    assert typed_text("   ") == ""
    assert typed_text("Comma.") == ","


def test_words_that_only_contain_a_mark_word_stay_words() -> None:
    said = "The commander periodically lines up"
    assert typed_text(said) == said


def test_a_dictation_continues_the_last_one_with_a_space_and_a_capital() -> None:
    assert joined("Hello world.", "how are you") == " How are you"
    assert joined("Dear Anna,", "thanks") == " thanks"
    assert joined("Hi\n", "there") == "there"
    assert joined("Hi", ", there") == ", there"
    assert joined("", "first") == "first"


@pytest.mark.parametrize(
    "said",
    [
        "Dictate.",
        "Please start dictation",
        "dictate now",
        "Could you take dictation, please?",
        "Type what I say.",
        "Start dictating.",
    ],
)
def test_a_whole_request_to_dictate_starts_one(said: str) -> None:
    assert asks_for_dictation(said)


@pytest.mark.parametrize(
    "said",
    [
        "How do I dictate in Word?",
        "dictate a letter to Anna",
        "What is dictation software?",
        "Set a timer for five minutes",
        "",
    ],
)
def test_a_sentence_that_only_contains_the_word_is_not_a_request(said: str) -> None:
    assert not asks_for_dictation(said)
