"""Reminders said aloud: "tomorrow at 9 AM", "every weekday at 7 AM", "Late reminder: …".

The sentences are the phrasebook's (``reminders.*`` and ``alarm.*`` in
``resources/skills/replies/<lang>.yaml``); this module picks which one and fills it in, so the
skill, the scheduler's announcements and the CLI say a moment the same way.
"""

from __future__ import annotations

import datetime as dt

from aria_desktop.core.skills.ports import Phrasebook
from aria_desktop.core.skills.wording import join_spoken, names
from aria_desktop.domain.reminders import Reminder

__all__ = [
    "announcement_text",
    "spoken_clock",
    "spoken_list",
    "spoken_moment",
    "spoken_rule",
    "spoken_when",
]

_WORKDAYS = frozenset({1, 2, 3, 4, 5})  # cron: Sunday is 0
_WEEKEND = frozenset({0, 6})


def spoken_clock(moment: dt.datetime, language: str, phrases: Phrasebook) -> str:
    """``4 PM``, ``4:30 PM``; ``16 Uhr``, ``16:30 Uhr``."""
    key = "reminders.clock_whole" if moment.minute == 0 else "reminders.clock"
    return phrases.say(
        key,
        language,
        h12=moment.hour % 12 or 12,
        h24=moment.hour,
        mm=f"{moment.minute:02d}",
        ampm="AM" if moment.hour < 12 else "PM",
    )


def spoken_moment(due_at: float, now: dt.datetime, language: str, phrases: Phrasebook) -> str:
    """A moment as seen from ``now``: today, tomorrow, yesterday, a weekday, or a date."""
    zone = now.tzinfo
    moment = dt.datetime.fromtimestamp(due_at, zone)
    time = spoken_clock(moment, language, phrases)
    days = (moment.date() - now.date()).days
    weekday = names("names.weekdays", phrases, language)[moment.weekday()]
    if days == 0:
        return phrases.say("reminders.today", language, time=time)
    if days == 1:
        return phrases.say("reminders.tomorrow", language, time=time)
    if days == -1:
        return phrases.say("reminders.yesterday", language, time=time)
    if -6 <= days <= 6:
        return phrases.say("reminders.weekday", language, weekday=weekday, time=time)
    month = names("names.months", phrases, language)[moment.month - 1]
    return phrases.say(
        "reminders.date", language, weekday=weekday, month=month, day=moment.day, time=time
    )


def spoken_rule(rule: str, language: str, phrases: Phrasebook) -> str | None:
    """``every weekday at 7 AM`` for ``0 7 * * 1,2,3,4,5``; None for a rule not said so simply."""
    fields = rule.split()
    if len(fields) != 5 or fields[2:4] != ["*", "*"]:
        return None
    try:
        minute, hour = int(fields[0]), int(fields[1])
        days = (
            frozenset(range(7))
            if fields[4] == "*"
            else frozenset(int(day) % 7 for day in fields[4].split(","))
        )
    except ValueError:
        return None
    time = spoken_clock(dt.datetime(2000, 1, 1, hour, minute), language, phrases)
    if len(days) == 7:
        return phrases.say("reminders.every_day", language, time=time)
    if days == _WORKDAYS:
        return phrases.say("reminders.every_weekday", language, time=time)
    if days == _WEEKEND:
        return phrases.say("reminders.every_weekend", language, time=time)
    weekdays = names("names.weekdays", phrases, language)
    said = [weekdays[(day - 1) % 7] for day in sorted(days, key=lambda d: (d - 1) % 7)]
    return phrases.say(
        "reminders.every", language, days=join_spoken(said, phrases, language), time=time
    )


def spoken_when(reminder: Reminder, now: dt.datetime, phrases: Phrasebook) -> str:
    """When a reminder is: its rule when it recurs, else its (next) moment."""
    language = reminder.language
    if reminder.recurrence:
        rule = spoken_rule(reminder.recurrence, language, phrases)
        if rule is not None:
            return rule
    return spoken_moment(reminder.due_at, now, language, phrases)


def spoken_list(reminders: list[Reminder], now: dt.datetime, phrases: Phrasebook) -> str:
    """The items of a spoken list: "call mom tomorrow at 4 PM, …" or, for alarms, the times."""
    items = []
    for reminder in reminders:
        when = spoken_when(reminder, now, phrases)
        if reminder.kind == "alarm" and not reminder.text:
            items.append(when)
        else:
            items.append(
                phrases.say("reminders.item", reminder.language, message=reminder.text, when=when)
            )
    language = reminders[0].language if reminders else "en"
    return join_spoken(items, phrases, language)


def announcement_text(
    reminder: Reminder, now: dt.datetime, phrases: Phrasebook, *, late: bool
) -> tuple[str, str]:
    """The title and the sentence that deliver ``reminder`` at ``now`` (late: said so)."""
    language = reminder.language
    family = "alarm" if reminder.kind == "alarm" else "reminders"
    title = phrases.say(f"{family}.title", language)
    if late:
        when = spoken_moment(reminder.due_at, now, language, phrases)
        key = f"{family}.due_late"
    else:
        when = spoken_clock(
            dt.datetime.fromtimestamp(reminder.due_at, now.tzinfo), language, phrases
        )
        key = (
            f"{family}.due_with" if reminder.kind == "alarm" and reminder.text else f"{family}.due"
        )
    text = phrases.say(key, language, message=reminder.text, when=when, time=when)
    return title, text
