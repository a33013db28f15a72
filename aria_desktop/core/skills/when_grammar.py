"""The grammar of when-phrases: durations, and the parts a moment is said in.

A when-phrase is either a duration ("in 20 minutes", "in einer halben Stunde") or a sequence
of parts, each at most once and in any order: a recurrence ("every weekday", "jeden Montag"),
a day ("tomorrow", "on Friday", "übermorgen"), a clock time ("at 4:30 pm", "half past four",
"um halb fünf" = 4:30, "16 Uhr 30") and a part of the day ("in the evening", "abends"). The
whole phrase must be read: anything left over means it is not a time. The text comes in
normalised (lower case, numbers as digits: :func:`.when.normalize_phrase`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from aria_desktop.core.skills.when_words import ENGLISH, GERMAN, Vocabulary

__all__ = ["GRAMMARS", "Grammar", "Parts", "read_parts"]

Day = Literal["today", "tomorrow", "after_tomorrow"]
_ALL_DAYS = frozenset(range(7))
_WORKDAYS = frozenset(range(5))
_WEEKEND = frozenset({5, 6})


@dataclass(frozen=True, kw_only=True)
class Parts:
    """The parts of a moment a phrase said (None: not said)."""

    day: Day | None = None
    weekday: int | None = None
    strictly_next: bool = False
    every: frozenset[int] | None = None
    hour: int | None = None
    minute: int = 0
    special: Literal["noon", "midnight"] | None = None
    meridiem: Literal["am", "pm"] | None = None
    period: str | None = None


def _alternation(words: Iterable[str]) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


@dataclass(frozen=True, kw_only=True)
class Grammar:
    """One language's when-phrases.

    Attributes:
        vocabulary: the language's words (numbers, units, weekdays).
        relative: full-phrase patterns of a duration from now (group ``dur``).
        duration_item: one item of a duration ("2 hours", "half an hour").
        components: the part patterns by kind, tried in this order at each position.
        starters: words a trailing when-phrase may start with ("call mom *at* 4").
        periods: part-of-day words to morning, noon, afternoon, evening, night.
        every_units: "every <word>" words to their days and part of the day.
        strict: weekday prefixes that exclude today ("next Friday").
        past_words: "half *past* four", "viertel *nach* vier".
    """

    vocabulary: Vocabulary
    relative: tuple[re.Pattern[str], ...]
    duration_item: re.Pattern[str]
    components: tuple[tuple[str, re.Pattern[str]], ...]
    starters: frozenset[str]
    periods: Mapping[str, str]
    every_units: Mapping[str, tuple[frozenset[int], str | None]]
    strict: frozenset[str]
    past_words: frozenset[str]

    def duration(self, text: str) -> float | None:
        """Seconds of a duration phrase ("in 1 hour and 30 minutes"), None if it is not one."""
        for pattern in self.relative:
            found = pattern.fullmatch(text)
            if found is not None:
                return self._duration_items(found.group("dur"))
        return None

    def _duration_items(self, text: str) -> float | None:
        total, position = 0.0, 0
        while position < len(text):
            item = self.duration_item.match(text, position)
            if item is None:
                return None
            total += self._item_seconds(item)
            position = item.end()
            separator = re.compile(r" (?:and|und) | ").match(text, position)
            if separator is not None and separator.end() < len(text):
                position = separator.end()
            elif position < len(text):
                return None
        return total

    def _item_seconds(self, item: re.Match[str]) -> float:
        units = self.vocabulary.units
        groups = item.groupdict()
        if groups.get("u"):
            number = float(groups["n"].replace(",", "."))
            if groups.get("half1") or groups.get("half2"):
                number += 0.5
            return number * units[groups["u"]]
        if groups.get("hu"):
            return 0.5 * units[groups["hu"]]
        if groups.get("vs"):
            return 2700.0 if groups["vs"].startswith("drei") else 900.0
        if groups.get("vq"):
            return 2700.0 if groups["vq"].startswith("drei") else 900.0
        return 900.0  # a quarter of an hour


def _every_days(text: str, vocabulary: Vocabulary) -> frozenset[int]:
    names = re.findall(vocabulary.weekday_pattern(), text)
    return frozenset(vocabulary.weekdays[name] for name in names)


class _Reading:
    """The parts found so far; a second, different value for one part is a contradiction."""

    def __init__(self) -> None:
        self.values: dict[str, object] = {}
        self.contradiction = False

    def set(self, name: str, value: object) -> None:
        if name in self.values and self.values[name] != value:
            self.contradiction = True
        self.values[name] = value


def _read_time(reading: _Reading, found: re.Match[str], grammar: Grammar) -> None:
    groups = found.groupdict()
    if groups.get("noon"):
        reading.set("special", "noon")
    elif groups.get("midnight"):
        reading.set("special", "midnight")
    elif groups.get("halb"):
        hour = int(groups["halb"])
        reading.set("hour", 12 if hour == 1 else hour - 1)
        reading.set("minute", 30)
    elif groups.get("dv"):
        hour = int(groups["dv"])
        reading.set("hour", 12 if hour == 1 else hour - 1)
        reading.set("minute", 45)
    elif groups.get("fh"):
        frac = groups["frac"]
        minutes = 30 if frac == "half" else 15 if "quarter" in frac or "viertel" in frac else 0
        minutes = minutes or int(frac.split()[0])
        hour = int(groups["fh"])
        if groups["dir"] in grammar.past_words:
            reading.set("hour", hour)
            reading.set("minute", minutes)
        else:
            reading.set("hour", 12 if hour == 1 else (hour - 1) % 24)
            reading.set("minute", 60 - minutes)
        if not 0 < minutes < 60:
            reading.contradiction = True
    else:
        reading.set("hour", int(groups["h"]))
        minute = groups.get("m") or groups.get("m2") or groups.get("m3") or "0"
        reading.set("minute", int(minute))
    if groups.get("ampm"):
        reading.set("meridiem", groups["ampm"])


def _read_day(reading: _Reading, found: re.Match[str], grammar: Grammar) -> None:
    groups = found.groupdict()
    if groups.get("today"):
        reading.set("day", "today")
    elif groups.get("tomorrow"):
        reading.set("day", "tomorrow")
    elif groups.get("after"):
        reading.set("day", "after_tomorrow")
    else:
        reading.set("weekday", grammar.vocabulary.weekdays[groups["wd"]])
        reading.set("strictly_next", (groups.get("wdprefix") or "") in grammar.strict)
    if groups.get("dayperiod"):
        reading.set("period", grammar.periods[groups["dayperiod"]])


def _read_every(reading: _Reading, found: re.Match[str], grammar: Grammar) -> None:
    groups = found.groupdict()
    if groups.get("every_unit"):
        days, period = grammar.every_units[groups["every_unit"]]
        reading.set("every", days)
        if period is not None:
            reading.set("period", period)
    elif groups.get("daily"):
        reading.set("every", _ALL_DAYS)
    elif groups.get("weekdays"):
        reading.set("every", _WORKDAYS)
    elif groups.get("weekends"):
        reading.set("every", _WEEKEND)
    else:
        named = groups.get("every_wd") or groups.get("wd_plural") or ""
        reading.set("every", _every_days(named, grammar.vocabulary))


def _read_period(reading: _Reading, found: re.Match[str], grammar: Grammar) -> None:
    groups = found.groupdict()
    if groups.get("tonight"):
        reading.set("day", "today")
        reading.set("period", "night")
        return
    if groups.get("this"):
        reading.set("day", "today")
    reading.set("period", grammar.periods[groups["period"]])


_READERS = {"time": _read_time, "day": _read_day, "every": _read_every, "period": _read_period}


def read_parts(grammar: Grammar, text: str) -> Parts | None:
    """The parts of ``text``, each said once and all of it read; None when it is not a time."""
    reading, used, position = _Reading(), set[str](), 0
    while position < len(text):
        for kind, pattern in grammar.components:
            if kind in used:
                continue
            found = pattern.match(text, position)
            if found is None or found.end() == position:
                continue
            _READERS[kind](reading, found, grammar)
            used.add(kind)
            position = found.end() + 1
            break
        else:
            return None
    values = reading.values
    if reading.contradiction or not used:
        return None
    if "every" in values and ("day" in values or "weekday" in values):
        return None
    minute = int(values.get("minute", 0))  # type: ignore[call-overload]
    if minute > 59:
        return None
    return Parts(minute=minute, **{k: v for k, v in values.items() if k != "minute"})  # type: ignore[arg-type]


_END = r"(?=\s|$)"
"""Every part ends at a word's end (so "monday" is not read out of "mondays")."""

_EN_PERIODS = {p: p for p in ("morning", "afternoon", "evening", "night")}
_DE_PERIODS = {
    "morgen": "morning",
    "früh": "morning",
    "frueh": "morning",
    "morgens": "morning",
    "vormittag": "morning",
    "vormittags": "morning",
    "mittag": "noon",
    "mittags": "noon",
    "nachmittag": "afternoon",
    "nachmittags": "afternoon",
    "abend": "evening",
    "abends": "evening",
    "nacht": "night",
    "nachts": "night",
}


def _english_components(v: Vocabulary) -> tuple[tuple[str, re.Pattern[str]], ...]:
    wd = v.weekday_pattern()
    time = (
        r"(?:(?:at|by|for|around|about|from) )?(?:(?P<noon>12 noon|noon|midday)"
        r"|(?P<midnight>12 midnight|midnight)"
        r"|(?P<frac>half|(?:1 )?quarter|\d{1,2}(?: minutes?)?)"
        r" (?P<dir>past|after|to|before|till|of) (?P<fh>\d{1,2})"
        r"|(?P<h>\d{1,2})(?:[:.](?P<m>\d{2})| (?P<m2>\d{2})| oh (?P<m3>\d))?(?: oclock)?)"
        r"(?: (?P<ampm>am|pm))?"
    )
    day = (
        r"(?:(?P<after>(?:the )?day after tomorrow)|(?P<today>today)|(?P<tomorrow>tomorrow)"
        rf"|(?:(?P<wdprefix>on the next|on next|this coming|on|this|next|coming) )?(?P<wd>{wd}))"
        r"(?: (?P<dayperiod>morning|afternoon|evening|night))?"
    )
    every = (
        r"(?:(?:every|each) (?P<every_unit>day|morning|afternoon|evening|night)"
        r"|(?P<daily>daily|nightly)"
        r"|(?:(?:every|each) (?P<weekdays>weekday|work day|workday|working day|business day))"
        r"|(?:(?:every|on) )?(?P<weekends>weekends|weekend)"
        rf"|(?:every|each) (?P<every_wd>(?:{wd})(?:(?: and | )(?:{wd}))*)"
        rf"|(?:on )?(?P<wd_plural>(?:{wd})s(?:(?: and | )(?:{wd})s)*))"
    )
    workdays = (
        r"(?:(?:every|on) )?(?P<weekdays>weekdays|workdays|work days|working days|business days)"
    )
    period = (
        r"(?:(?P<tonight>tonight)|(?:(?P<this>this )|(?:in the|at|during the) )?"
        r"(?P<period>morning|afternoon|evening|night))"
    )
    return _compiled(workdays, every, day, time, period)


def _german_components(v: Vocabulary) -> tuple[tuple[str, re.Pattern[str]], ...]:
    wd = v.weekday_pattern()
    time = (
        r"(?:(?:um|für|fuer|auf|gegen|ab|zu|bis) )?(?:(?P<noon>mittag)|(?P<midnight>mitternacht)"
        r"|halb (?P<halb>\d{1,2})|dreiviertel (?P<dv>\d{1,2})"
        r"|(?P<frac>viertel|\d{1,2}(?: minuten?)?) (?P<dir>nach|vor) (?P<fh>\d{1,2})"
        r"|(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?(?: uhr(?: (?P<m2>\d{1,2}))?)?)"
    )
    day = (
        r"(?:(?P<after>übermorgen|uebermorgen)|(?P<today>heute)|(?P<tomorrow>morgen)"
        r"|(?:(?P<wdprefix>am nächsten|am naechsten|am kommenden|nächsten|naechsten|nächste"
        rf"|kommenden|diesen|am) )?(?P<wd>{wd}))"
    )
    every = (
        r"(?:(?:jeden|jede|jedes|an jedem|immer) (?P<every_unit>tag|morgen|vormittag|mittag"
        r"|nachmittag|abend|nacht)"
        r"|(?P<daily>täglich|taeglich)"
        r"|(?:(?:jeden|an jedem) (?P<weekdays>werktag|wochentag|arbeitstag))"
        r"|(?P<weekends>jedes wochenende|an wochenenden|wochenends)"
        rf"|(?:jeden|immer|an jedem) (?P<every_wd>(?:{wd})(?: und (?:{wd}))*)"
        rf"|(?:immer )?(?P<wd_plural>(?:{wd})s(?: und (?:{wd})s)*))"
    )
    workdays = (
        r"(?P<weekdays>werktags|wochentags|an werktagen|an wochentagen|montags bis freitags"
        r"|von montag bis freitag)"
    )
    period = rf"(?:(?:am|in der|gegen) )?(?P<period>{_alternation(_DE_PERIODS)})"
    return _compiled(workdays, every, day, time, period)


def _compiled(
    workdays: str, every: str, day: str, time: str, period: str
) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The part patterns in the order they are tried (a recurrence before a day…)."""
    return (
        ("every", re.compile(workdays + _END)),
        ("every", re.compile(every + _END)),
        ("day", re.compile(day + _END)),
        ("time", re.compile(time + _END)),
        ("period", re.compile(period + _END)),
    )


def _starters(words: str, v: Vocabulary) -> frozenset[str]:
    return frozenset(words.split()) | frozenset(v.weekdays) | {d + "s" for d in v.weekdays}


def _english() -> Grammar:
    v = ENGLISH
    units = v.unit_pattern()
    return Grammar(
        vocabulary=v,
        relative=(
            re.compile(r"(?:in|after) (?P<dur>.+?)(?: from now)?"),
            re.compile(r"(?P<dur>.+?) from now"),
        ),
        duration_item=re.compile(
            rf"(?P<n>\d+(?:[.,]\d+)?)(?P<half1> and (?:a|1) half)? (?P<u>{units})"
            r"(?P<half2> and (?:a|1) half)?"
            rf"|half (?:(?:a|an|1) )?(?P<hu>{units})"
            r"|(?:1 )?quarter (?:of )?(?:(?:an|a|1) )?(?P<qu>hour)"
        ),
        components=_english_components(v),
        starters=_starters(
            "at in on by around tomorrow today tonight this next every each daily nightly "
            "weekdays noon midnight the coming",
            v,
        ),
        periods=_EN_PERIODS,
        every_units={"day": (_ALL_DAYS, None)}
        | {p: (_ALL_DAYS, p) for p in ("morning", "afternoon", "evening", "night")},
        strict=frozenset({"next", "on next", "on the next", "coming", "this coming"}),
        past_words=frozenset({"past", "after"}),
    )


def _german() -> Grammar:
    v = GERMAN
    units = v.unit_pattern()
    return Grammar(
        vocabulary=v,
        relative=(re.compile(r"in (?P<dur>.+)"),),
        duration_item=re.compile(
            rf"(?P<n>\d+(?:[.,]\d+)?) (?P<u>{units})"
            rf"|(?:1 )?(?:halben|halbe) (?P<hu>{units})"
            r"|(?:1 )?(?P<vs>viertelstunde|dreiviertelstunde)"
            r"|(?:1 )?(?P<vq>viertel|dreiviertel) (?P<qu>stunde)"
        ),
        components=_german_components(v),
        starters=_starters(
            "um in am ab gegen morgen heute übermorgen uebermorgen jeden jede jedes täglich "
            "taeglich werktags wochentags nächsten naechsten nächste kommenden immer an",
            v,
        ),
        periods=_DE_PERIODS,
        every_units={
            "tag": (_ALL_DAYS, None),
            "morgen": (_ALL_DAYS, "morning"),
            "vormittag": (_ALL_DAYS, "morning"),
            "mittag": (_ALL_DAYS, "noon"),
            "nachmittag": (_ALL_DAYS, "afternoon"),
            "abend": (_ALL_DAYS, "evening"),
            "nacht": (_ALL_DAYS, "night"),
        },
        strict=frozenset(
            {"nächsten", "naechsten", "nächste", "am nächsten", "am naechsten", "kommenden"}
            | {"am kommenden"}
        ),
        past_words=frozenset({"nach"}),
    )


GRAMMARS: dict[str, Grammar] = {"en": _english(), "de": _german()}
"""The languages when-phrases are understood in."""
