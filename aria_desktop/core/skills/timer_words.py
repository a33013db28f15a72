"""How timers are said: durations that read well aloud, and which timer is meant.

"5 minutes", "1 hour and 30 minutes", "eine Minute und 5 Sekunden": whole units joined the
way people say them. What is left is rounded the way a person would read a kitchen timer (no
seconds once it is more than ten minutes). Every word comes from the phrasebook, so German
reads as German.
"""

from __future__ import annotations

import math
import re

from aria_desktop.core.skills.ports import Phrasebook
from aria_desktop.core.skills.wording import join_spoken
from aria_desktop.domain.timers import Timer

__all__ = [
    "clean_name",
    "duration_fields",
    "same_name",
    "spoken_duration",
    "spoken_remaining",
    "timer_item",
    "timer_label",
]

_ARTICLES = {
    "en": ("the", "my", "a", "an", "our"),
    "de": ("der", "die", "das", "den", "dem", "des", "mein", "meine", "meinen", "unser", "unseren"),
}


def _parts(seconds: float) -> tuple[int, int, int]:
    total = max(0, round(seconds))
    return total // 3600, total % 3600 // 60, total % 60


def _unit(unit: str, count: int, phrases: Phrasebook, language: str, *, adjective: bool) -> str:
    form = "adj" if adjective else ("one" if count == 1 else "other")
    return phrases.say(f"timers.{unit}.{form}", language, n=count)


def spoken_duration(
    seconds: float, phrases: Phrasebook, language: str, *, adjective: bool = False
) -> str:
    """Whole hours, minutes and seconds as said: ``1 hour and 30 minutes``.

    ``adjective``: the form before "timer" ("your 5 minute timer").
    """
    hours, minutes, secs = _parts(seconds)
    words = [
        _unit(unit, count, phrases, language, adjective=adjective)
        for unit, count in (("hours", hours), ("minutes", minutes), ("seconds", secs))
        if count
    ]
    if not words:
        words = [_unit("seconds", 0, phrases, language, adjective=adjective)]
    return join_spoken(words, phrases, language)


def spoken_remaining(seconds: float, phrases: Phrasebook, language: str) -> str:
    """What is left, rounded as a person reads it: seconds only under ten minutes."""
    seconds = round(seconds / 60) * 60 if seconds >= 600 else math.ceil(seconds)
    return spoken_duration(seconds, phrases, language)


def timer_label(timer: Timer, phrases: Phrasebook, language: str) -> str:
    """The timer as the subject of a sentence: ``your pasta timer``, ``your 5 minute timer``."""
    return _named(timer, "label", phrases, language)


def timer_item(timer: Timer, phrases: Phrasebook, language: str) -> str:
    """The timer as one of several: ``the pasta timer``, ``the 5 minute timer``."""
    return _named(timer, "item", phrases, language)


def _named(timer: Timer, form: str, phrases: Phrasebook, language: str) -> str:
    if timer.name:
        return phrases.say(f"timers.{form}_named", language, name=timer.name)
    return phrases.say(
        f"timers.{form}_unnamed", language, **duration_fields(timer.duration_s, phrases, language)
    )


def duration_fields(seconds: float, phrases: Phrasebook, language: str) -> dict[str, str]:
    """``duration`` ("5 minutes") and ``duration_adj`` ("5 minute"): a sentence takes either."""
    return {
        "duration": spoken_duration(seconds, phrases, language),
        "duration_adj": spoken_duration(seconds, phrases, language, adjective=True),
    }


def clean_name(name: str, language: str) -> str:
    """A timer's name as said, without the article ("the pasta" -> ``pasta``)."""
    words = re.sub(r"[„“\"'.,!?]|-(?=\s|$)|(?<=\s)-|^-", " ", name).split()
    articles = _ARTICLES.get(language.split("-")[0], ())
    while words and words[0].lower() in articles:
        words = words[1:]
    return " ".join(words)


def same_name(stored: str, said: str, language: str) -> bool:
    """Whether ``said`` names the timer called ``stored`` (case, article and plural aside)."""
    a = clean_name(stored, language).lower()
    b = clean_name(said, language).lower()
    if not a or not b:
        return False
    return a == b or _stem(a) == _stem(b)


def _stem(name: str) -> str:
    """The name without a plural ending on its last word ("nudeln" and "nudel" agree)."""
    for suffix in ("es", "en", "s", "n", "e"):
        if name.endswith(suffix) and len(name.rsplit(" ", 1)[-1]) > len(suffix) + 2:
            return name[: -len(suffix)]
    return name
