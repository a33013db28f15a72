"""The words of when-phrases per language: numbers 0-59, units, days, times of day.

Speech-to-text writes numbers as words as often as digits ("in twenty minutes", "um halb
fünf"), and the when-phrase of a reminder is a wildcard the templates cannot spell out, so
the parser (:mod:`.when`) turns number words into digits itself with these small tables.
English and German; another language has no when-phrases (its reminders go to the model).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ENGLISH_NUMBER_WORDS", "VOCABULARIES", "Vocabulary", "digits"]

ENGLISH_NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
"""English 0-19 as words (index = value); the WER scorer says numbers with the same table."""
_EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}

_DE_UNITS = [
    "null",
    "eins",
    "zwei",
    "drei",
    "vier",
    "fünf",
    "sechs",
    "sieben",
    "acht",
    "neun",
    "zehn",
    "elf",
    "zwölf",
    "dreizehn",
    "vierzehn",
    "fünfzehn",
    "sechzehn",
    "siebzehn",
    "achtzehn",
    "neunzehn",
]
_DE_TENS = {"zwanzig": 20, "dreißig": 30, "vierzig": 40, "fünfzig": 50}
_DE_COMPOUND_UNITS = ("ein", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun")


def _english_numbers() -> dict[str, str]:
    table = {word: str(n) for n, word in enumerate(ENGLISH_NUMBER_WORDS)}
    for tens, value in _EN_TENS.items():
        table[tens] = str(value)
        for unit in range(1, 10):
            table[f"{tens} {ENGLISH_NUMBER_WORDS[unit]}"] = str(value + unit)
    return table


def _german_numbers() -> dict[str, str]:
    table = {word: str(n) for n, word in enumerate(_DE_UNITS)}
    table.update({"zwo": "2", "zwoelf": "12", "fuenf": "5", "dreissig": "30", "fuenfzig": "50"})
    for tens, value in _DE_TENS.items():
        table[tens] = str(value)
        for unit, word in enumerate(_DE_COMPOUND_UNITS, start=1):
            table[f"{word}und{tens}"] = str(value + unit)
            table[f"{word}und{tens}".replace("ß", "ss").replace("ü", "ue")] = str(value + unit)
    for n, word in enumerate(_DE_UNITS[1:13], start=1):  # zweieinhalb Stunden = 2.5
        stem = "ein" if n == 1 else word
        table[f"{stem}einhalb"] = f"{n}.5"
    table["anderthalb"] = "1.5"
    return table


@dataclass(frozen=True, kw_only=True)
class Vocabulary:
    """One language's when-words (regular-expression pieces over lower-case text).

    Attributes:
        numbers: number words (and word pairs) to digits.
        one: the indefinite articles that mean 1 before a unit ("an hour", "einer Stunde").
        units: duration unit words to seconds.
        weekdays: weekday words to Python weekday numbers (Monday 0).
        plural_weekday: how "on Mondays" is written: the weekday word + this suffix.
        meridiem: whether ``am``/``pm`` are words of the language (not German: "am Freitag").
    """

    numbers: dict[str, str]
    one: frozenset[str]
    units: dict[str, float]
    weekdays: dict[str, int]
    plural_weekday: str
    meridiem: bool

    def weekday_pattern(self) -> str:
        """An alternation of the weekday words, longest first."""
        return "|".join(sorted(map(re.escape, self.weekdays), key=len, reverse=True))

    def unit_pattern(self) -> str:
        """An alternation of the unit words, longest first."""
        return "|".join(sorted(map(re.escape, self.units), key=len, reverse=True))


_MINUTE, _HOUR, _DAY = 60.0, 3600.0, 86400.0

ENGLISH = Vocabulary(
    numbers={**_english_numbers(), "a couple of": "2", "couple of": "2"},
    one=frozenset({"a", "an"}),
    units={
        "second": 1.0,
        "seconds": 1.0,
        "sec": 1.0,
        "secs": 1.0,
        "minute": _MINUTE,
        "minutes": _MINUTE,
        "min": _MINUTE,
        "mins": _MINUTE,
        "hour": _HOUR,
        "hours": _HOUR,
        "hr": _HOUR,
        "hrs": _HOUR,
        "day": _DAY,
        "days": _DAY,
        "week": 7 * _DAY,
        "weeks": 7 * _DAY,
    },
    weekdays={
        "monday": 0,
        "tuesday": 1,
        "wednesday": 2,
        "thursday": 3,
        "friday": 4,
        "saturday": 5,
        "sunday": 6,
    },
    plural_weekday="s",
    meridiem=True,
)

GERMAN = Vocabulary(
    numbers=_german_numbers(),
    one=frozenset({"ein", "eine", "einer", "einem", "einen"}),
    units={
        "sekunde": 1.0,
        "sekunden": 1.0,
        "minute": _MINUTE,
        "minuten": _MINUTE,
        "min": _MINUTE,
        "stunde": _HOUR,
        "stunden": _HOUR,
        "std": _HOUR,
        "tag": _DAY,
        "tagen": _DAY,
        "tage": _DAY,
        "woche": 7 * _DAY,
        "wochen": 7 * _DAY,
    },
    weekdays={
        "montag": 0,
        "dienstag": 1,
        "mittwoch": 2,
        "donnerstag": 3,
        "freitag": 4,
        "samstag": 5,
        "sonnabend": 5,
        "sonntag": 6,
    },
    plural_weekday="s",
    meridiem=False,
)

VOCABULARIES = {"en": ENGLISH, "de": GERMAN}
"""The languages when-phrases are understood in."""

_FRACTION_AFTER_ONE = frozenset(
    {
        "half",
        "quarter",
        "halben",
        "halbe",
        "viertel",
        "viertelstunde",
        "dreiviertel",
        "dreiviertelstunde",
    }
)


def digits(text: str, vocabulary: Vocabulary) -> str:
    """``in twenty five minutes`` -> ``in 25 minutes``; ``in einer Stunde`` -> ``in 1 stunde``.

    Word pairs ("twenty five") are tried before single words; an article counts as 1 only
    before a unit or a fraction ("an hour", "einer halben Stunde"), so "a" stays a word
    elsewhere.
    """
    words = text.split()
    out: list[str] = []
    index = 0
    while index < len(words):
        pair = " ".join(words[index : index + 3])
        if len(words) - index >= 3 and pair in vocabulary.numbers:
            out.append(vocabulary.numbers[pair])
            index += 3
            continue
        pair = " ".join(words[index : index + 2])
        if len(words) - index >= 2 and pair in vocabulary.numbers:
            out.append(vocabulary.numbers[pair])
            index += 2
            continue
        word = words[index]
        following = words[index + 1] if index + 1 < len(words) else ""
        if word in vocabulary.one and (
            following in vocabulary.units or following in _FRACTION_AFTER_ONE
        ):
            out.append("1")
        elif word in vocabulary.one:
            out.append(word)
        else:
            out.append(vocabulary.numbers.get(word, word))
        index += 1
    return " ".join(out)
