"""When-phrases to moments: "tomorrow at 9 am", "in twenty minutes", "every weekday at 7".

Pure: the phrase, its language and the present moment (an aware ``datetime`` in the local
zone) in, a due time (UNIX seconds) and maybe a recurrence rule out, or None when the phrase is
not a time. A reminder whose when-phrase does not parse is not a reminder: the skill's
``accepts`` says no and the sentence goes to its next reading, or to the model ("remind me
what you said about the budget").

The rules people expect:

- A time already past today is tomorrow ("at 7" said at 8 am); a weekday is the next such
  day (today if the time is still ahead; "next Friday" is never today); "tomorrow" is the
  next calendar day, also at 23:59.
- A bare hour ("at 4") of a reminder said with no day is the nearer of 4:00 and 16:00 still
  ahead; of an alarm (``bare_hour="as_said"``) and with a day it is 4:00. ``4 pm``, ``16:30``,
  "in the evening", "abends" decide it.
- A day with no time is 9:00 (or the part of the day said: "tomorrow evening" is 18:00).
- "midnight" with a day is the end of that day ("Friday at midnight" is Saturday 0:00).
- Moments are local wall-clock times in the given zone, DST included: a time that does not
  exist on the spring-forward day (2:30) is the same instant as 2:30 standard time (3:30
  summer time); an ambiguous one on the fall-back day is its first occurrence. "in 2 hours"
  counts real time.
- Recurring rules ("every weekday at 7", "jeden Montag um 9") are cron expressions in local
  time (``domain/cron.py``, shared with the automations); :func:`next_occurrence` finds the
  next one across DST.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from typing import Literal

from aria_desktop.core.skills.when_grammar import GRAMMARS, Parts, read_parts
from aria_desktop.core.skills.when_words import VOCABULARIES, digits
from aria_desktop.domain.cron import CronSchedule

__all__ = [
    "BareHour",
    "When",
    "clock_times",
    "next_occurrence",
    "normalize_phrase",
    "parse_when",
    "split_trailing_when",
]

BareHour = Literal["nearest", "as_said"]

DEFAULT_HOUR = 9
_PERIOD_HOURS = {"morning": 9, "noon": 12, "afternoon": 15, "evening": 18, "night": 21}
_MAX_AHEAD_S = 400 * 86400.0
"""The furthest ahead a when-phrase may reach (a bit over a year)."""


@dataclass(frozen=True, kw_only=True)
class When:
    """What a when-phrase means.

    Attributes:
        due_at: the (first) moment, UNIX seconds.
        recurrence: a cron rule in local wall-clock time ("" for a one-off).
        has_time: a clock time or a duration was said (not only a day: "tomorrow").
    """

    due_at: float
    recurrence: str = ""
    has_time: bool = True


def normalize_phrase(phrase: str, language: str) -> str:
    """The forms speech-to-text and typing vary in made one: "4 P.M." -> "4 pm", words -> digits."""
    vocabulary = VOCABULARIES.get(language)
    text = phrase.lower().replace("’", "'")
    if vocabulary is not None and vocabulary.meridiem:
        text = re.sub(r"\b([ap])\.?\s?m\b\.?", r"\1m", text)
        text = re.sub(r"(\d)([ap]m)\b", r"\1 \2", text)
        text = re.sub(r"\bo'?\s?clock\b", "oclock", text)
    text = re.sub(r"(\d)\s?uhr\b", r"\1 uhr", text)
    text = re.sub(r"(?<!\d)\.|\.(?!\d)|[,;:!?\"()](?!\d)", " ", text)
    text = re.sub(r"(?<=[^\W\d])-(?=[^\W\d])", " ", text)
    text = " ".join(text.split())
    return digits(text, vocabulary) if vocabulary is not None else text


def parse_when(
    phrase: str, language: str, now: dt.datetime, *, bare_hour: BareHour = "nearest"
) -> When | None:
    """The moment ``phrase`` names, seen from ``now`` (aware, in the local zone); None if none.

    Args:
        phrase: the when-phrase as said ("tomorrow at 9 am", "in zwanzig Minuten").
        language: ``en`` or ``de`` (any other: None).
        now: the present moment; its ``tzinfo`` is the zone the phrase is meant in.
        bare_hour: how an hour without am/pm is read (see the module's rules).
    """
    grammar = GRAMMARS.get(language)
    if grammar is None or now.tzinfo is None:
        return None
    text = normalize_phrase(phrase, language)
    if not text:
        return None
    seconds = grammar.duration(text)
    if seconds is not None:
        if not 0 < seconds <= _MAX_AHEAD_S:
            return None
        return When(due_at=now.timestamp() + seconds)
    parts = read_parts(grammar, text)
    if parts is None:
        return None
    return _resolve(parts, now, bare_hour)


def split_trailing_when(
    text: str, language: str, now: dt.datetime, *, bare_hour: BareHour = "nearest"
) -> tuple[str, When] | None:
    """``call mom at 4 pm`` -> (``call mom``, 4 pm): what to do, then when.

    The when-phrase is the longest ending of ``text`` that starts with a when-word ("at",
    "in", "tomorrow", "um", "morgen"…) and parses as a whole; what comes before it must not be
    empty. None when no ending is a time ("remind me to read chapter 7" has none: "7" alone
    does not start with a when-word).
    """
    grammar = GRAMMARS.get(language)
    if grammar is None:
        return None
    words = text.split()
    for index in range(1, len(words)):
        if words[index].lower().strip(",.") not in grammar.starters:
            continue
        found = parse_when(" ".join(words[index:]), language, now, bare_hour=bare_hour)
        if found is not None:
            message = " ".join(words[:index]).strip(" ,.;:-")
            if message:
                return message, found
    return None


def clock_times(phrase: str, language: str) -> tuple[tuple[int, int], ...]:
    """The clock times a phrase may name, for finding an alarm ("7" -> 7:00 and 19:00).

    An empty tuple when ``phrase`` names no time of day ("tomorrow" alone, or nothing).
    """
    grammar = GRAMMARS.get(language)
    if grammar is None:
        return ()
    parts = read_parts(grammar, normalize_phrase(phrase, language))
    if parts is None or parts.hour is None:
        return ()
    hours = _hours(replace(parts, day=None, weekday=None, every=None), "nearest")
    return tuple((hour, parts.minute) for hour in hours or ())


def next_occurrence(recurrence: str, after: float, zone: dt.tzinfo) -> float | None:
    """The first moment strictly after ``after`` (UNIX seconds) that ``recurrence`` names.

    The rule is read in ``zone``'s wall-clock time, so "every day at 7" stays at 7:00 across
    a DST change (23 or 25 hours apart). None when the rule never fires (or does not parse).
    """
    try:
        schedule = CronSchedule.parse(recurrence)
    except ValueError:
        return None
    moment = dt.datetime.fromtimestamp(after, zone).replace(tzinfo=None)
    for _ in range(4):  # a fall-back hour can put a wall time before ``after``
        found = schedule.next_after(moment)
        if found is None:
            return None
        due = found.replace(tzinfo=zone).timestamp()
        if due > after:
            return due
        moment = found
    return None


def _hours(parts: Parts, bare_hour: BareHour) -> list[int] | None:
    """The 24-hour readings of the said hour, preferred first (None: no valid reading)."""
    if parts.special == "noon":
        return [12]
    if parts.special == "midnight":
        return [0]
    hour = parts.hour
    if hour is None:
        return [_PERIOD_HOURS.get(parts.period or "", DEFAULT_HOUR)]
    if hour > 23 or (hour > 12 and (parts.meridiem == "am" or parts.period == "morning")):
        return None
    if parts.meridiem == "am":
        return [hour % 12]
    if parts.meridiem == "pm":
        return [hour % 12 + 12] if hour <= 12 else None
    if parts.period is not None:
        return [_by_period(hour, parts.period)]
    day_given = parts.day is not None or parts.weekday is not None or parts.every is not None
    if bare_hour == "nearest" and not day_given and 1 <= hour <= 11:
        return [hour, hour + 12]
    return [hour]


def _by_period(hour: int, period: str) -> int:
    if hour > 12:
        return hour
    if period == "morning":
        return hour % 12
    if period == "noon":
        return hour if hour >= 11 else hour + 12
    if period == "night":
        return hour % 12 if hour < 6 or hour == 12 else hour + 12
    return hour % 12 + 12  # afternoon, evening


def _dates(parts: Parts, today: dt.date) -> list[dt.date]:
    """The days the moment may fall on, preferred first (the next is the roll-over)."""
    if parts.day == "today":
        return [today]
    if parts.day == "tomorrow":
        return [today + dt.timedelta(days=1)]
    if parts.day == "after_tomorrow":
        return [today + dt.timedelta(days=2)]
    if parts.weekday is not None:
        ahead = (parts.weekday - today.weekday()) % 7
        if ahead == 0 and parts.strictly_next:
            ahead = 7
        first = today + dt.timedelta(days=ahead)
        return [first, first + dt.timedelta(days=7)] if ahead == 0 else [first]
    return [today, today + dt.timedelta(days=1)]


def _resolve(parts: Parts, now: dt.datetime, bare_hour: BareHour) -> When | None:
    hours = _hours(parts, bare_hour)
    if hours is None:
        return None
    zone = now.tzinfo
    assert zone is not None
    has_time = parts.hour is not None or parts.special is not None
    if parts.every is not None:
        weekdays = ",".join(str(day) for day in sorted((day + 1) % 7 for day in parts.every))
        rule = f"{parts.minute} {hours[0]} * * {'*' if len(parts.every) == 7 else weekdays}"
        due = next_occurrence(rule, now.timestamp(), zone)
        return None if due is None else When(due_at=due, recurrence=rule, has_time=has_time)
    dates = _dates(parts, now.date())
    if parts.special == "midnight" and parts.day != "today" and (parts.day or parts.weekday):
        dates = [day + dt.timedelta(days=1) for day in dates]  # the end of that day
    if parts.special == "midnight" and parts.day == "today":
        dates = [dates[0] + dt.timedelta(days=1)]
    present = now.timestamp()
    for day in dates:
        for hour in hours:
            due = dt.datetime.combine(day, dt.time(hour, parts.minute), tzinfo=zone).timestamp()
            if present < due <= present + _MAX_AHEAD_S:
                return When(due_at=due, has_time=has_time)
    return None
