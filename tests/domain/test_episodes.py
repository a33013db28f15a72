"""Episode rules as plain values: the fallback text, the time a question names, and which
questions ask about an earlier conversation at all."""

from __future__ import annotations

import time

import pytest

from aria_desktop.domain.episodes import (
    FALLBACK_CHARS,
    asks_about_the_past,
    fallback_summary,
    named_time_span,
)

# Wednesday 2026-12-02, 15:00 local time.
NOW = time.mktime((2026, 12, 2, 15, 0, 0, 0, 0, -1))


def _day(day: int) -> float:
    return time.mktime((2026, 12, day, 0, 0, 0, 0, 0, -1))


def test_the_fallback_keeps_the_title_and_the_first_three_user_lines() -> None:
    text = fallback_summary("Trip", ["Book a  train\nto York", "", "Friday", "Window seat", "x"])
    assert text == "Trip: Book a train to York / Friday / Window seat"
    assert fallback_summary("", []) == "Conversation"
    long = fallback_summary("T", ["word " * 500])
    assert len(long) == FALLBACK_CHARS
    assert long.endswith("…")


def test_today_and_yesterday_are_whole_local_days() -> None:
    assert named_time_span("What did we talk about yesterday?", NOW) == (_day(1), _day(2))
    assert named_time_span("what did I say this morning", NOW) == (_day(2), NOW)


def test_days_ago_weekdays_and_weeks_are_whole_local_days() -> None:
    assert named_time_span("the recipe from 3 days ago", NOW) == (
        time.mktime((2026, 11, 29, 0, 0, 0, 0, 0, -1)),
        time.mktime((2026, 11, 30, 0, 0, 0, 0, 0, -1)),
    )
    assert named_time_span("What did we decide on Monday?", NOW) == (
        time.mktime((2026, 11, 30, 0, 0, 0, 0, 0, -1)),
        _day(1),
    )
    assert named_time_span("last week", NOW) == (
        time.mktime((2026, 11, 23, 0, 0, 0, 0, 0, -1)),
        time.mktime((2026, 11, 30, 0, 0, 0, 0, 0, -1)),
    )
    assert named_time_span("What is a tulip?", NOW) is None


@pytest.mark.parametrize(
    "question",
    [
        "What did we decide about the car?",
        "Remind me what you said about the boiler",
        "did we talk about Lisbon",
        "In our last conversation you mentioned a book",
        "I told you my sister's name",
    ],
)
def test_questions_about_an_earlier_conversation_are_recognised(question: str) -> None:
    assert asks_about_the_past(question)


@pytest.mark.parametrize(
    "question",
    [
        "Is a Golf a good first car?",
        "How do we decide between two job offers?",  # "we decide" but not about us before
        "Set a timer for ten minutes",
    ],
)
def test_other_questions_do_not_ask_about_the_past(question: str) -> None:
    assert not asks_about_the_past(question)
