"""Episodes: what happened in one conversation, kept apart from the beliefs it produced.

A memory is a durable fact ("I am vegetarian"); an episode is what a conversation was about
("Planned the dinner party for Saturday; decided on a risotto"). Each conversation has at most
one episode, written when it goes idle or is closed, with the span of time it covers. The
memories learned in it (or confirmed in it) are its provenance, both ways: an episode lists
the memories it produced, a memory lists the conversations it came from.

Pure values and rules: the fallback text of an episode no model has summarised yet, and the
time span a question names ("what did we talk about yesterday").
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "Episode",
    "EpisodeDraft",
    "EpisodeHit",
    "MemorySource",
    "SourceRelation",
    "asks_about_the_past",
    "fallback_summary",
    "named_time_span",
]

SourceRelation = Literal["extracted", "reinforced"]
"""How a conversation supports a memory: it taught it, or it said it again."""

FALLBACK_LINES = 3
"""User lines kept in an episode no model has summarised yet."""
FALLBACK_CHARS = 600
"""At most this much text in such an episode."""


@dataclass(frozen=True, kw_only=True)
class EpisodeDraft:
    """An episode about to be written; the store picks its id (fields: :class:`Episode`)."""

    conversation_id: str
    title: str
    summary: str
    started_at: float
    ended_at: float
    turns: int
    summarised: bool


@dataclass(frozen=True, kw_only=True)
class Episode(EpisodeDraft):
    """One conversation's episode: the draft's fields as written, and what the store adds.

    Attributes:
        conversation_id: the conversation it tells.
        title: the conversation's title when written.
        summary: what happened, in a few sentences (or, until a model summarises it, the
            title and the first user lines: nothing is lost).
        started_at, ended_at: the time span of the conversation, UNIX seconds.
        turns: how many user messages it had.
        summarised: a model wrote ``summary`` (False: the fallback text).
        id: public id (``ep_`` + hex).
        memory_ids: the memories it produced or confirmed, oldest first.
        created_at, updated_at: UNIX seconds.
    """

    id: str
    memory_ids: tuple[str, ...] = ()
    created_at: float = 0.0
    updated_at: float = 0.0


@dataclass(frozen=True, kw_only=True)
class EpisodeHit:
    """An episode found by a search; higher ``score`` is better (within one search)."""

    episode: Episode
    score: float


@dataclass(frozen=True, kw_only=True)
class MemorySource:
    """A conversation that supports a memory, and its episode when one is written."""

    conversation_id: str
    relation: SourceRelation
    at: float
    episode_id: str | None = None


def fallback_summary(title: str, user_lines: Sequence[str]) -> str:
    """An episode's text before a model summarised it: the title, then the first user lines."""
    lines = [" ".join(line.split()) for line in user_lines if line.strip()][:FALLBACK_LINES]
    head = " ".join(title.split()) or "Conversation"
    text = head + (": " + " / ".join(lines) if lines else "")
    return text if len(text) <= FALLBACK_CHARS else text[: FALLBACK_CHARS - 1].rstrip() + "…"


_PAST = re.compile(
    r"\b(we|you and i|you and me)\s+(talked|discussed|decided|agreed|said|chatted|planned"
    r"|spoke|figured|settled)\b"
    r"|\bdid (we|i|you) (talk|discuss|decide|agree|say|tell|mention|plan)\b"
    r"|\b(last time|the other day|remind me what|what did (i|you) (say|tell|mention))\b"
    r"|\b(our|the) (last |previous |earlier )?(conversation|chat|talk|discussion)s?\b"
    r"|\b(i|you) (told|mentioned) (you|me)\b",
    re.IGNORECASE,
)


def asks_about_the_past(text: str) -> bool:
    """Whether ``text`` asks about an earlier conversation ("what did we decide about …").

    Only such questions (or ones naming a time, :func:`named_time_span`) bring an episode
    into a turn: an episode that merely shares words with a question is noise there.
    """
    return _PAST.search(text) is not None


_DAYS_AGO = re.compile(r"\b(\d{1,2}|two|three|four|five|six) days ago\b")
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _midnight(at: float) -> float:
    """Local midnight at the start of the day of ``at``."""
    day = time.localtime(at)
    return time.mktime((day.tm_year, day.tm_mon, day.tm_mday, 0, 0, 0, 0, 0, -1))


def _day_start(now: float, days_back: int) -> float:
    """Local midnight ``days_back`` days before today (DST-safe: via noon of each day)."""
    return _midnight(_midnight(now) + 43_200 - days_back * 86_400)


def named_time_span(text: str, now: float) -> tuple[float, float] | None:
    """The span of time ``text`` names ("yesterday", "last week", "on Monday"), or None.

    Local days; a span ends at ``now`` at the latest. Only spans said outright count: a
    question naming none searches every episode.
    """
    lowered = text.casefold()
    today = _day_start(now, 0)
    if "yesterday" in lowered:
        return _day_start(now, 1), today
    if re.search(r"\b(today|this morning|earlier today)\b", lowered):
        return today, now
    if match := _DAYS_AGO.search(lowered):
        days = _NUMBERS.get(match.group(1)) or int(match.group(1))
        return _day_start(now, days), _day_start(now, days - 1)
    weekday = time.localtime(now).tm_wday
    if "last week" in lowered:
        this_monday = _day_start(now, weekday)
        return _day_start(now, weekday + 7), this_monday
    if "this week" in lowered:
        return _day_start(now, weekday), now
    if "last month" in lowered:
        return _day_start(now, 30), now
    for number, name in enumerate(_WEEKDAYS):
        if re.search(rf"\b(on |last )?{name}\b", lowered):
            back = (weekday - number) % 7 or 7
            return _day_start(now, back), _day_start(now, back - 1)
    return None
