"""Cron expressions (the classic five fields) for scheduled automations, stdlib only.

``minute hour day-of-month month day-of-week`` with ``*``, lists (``1,15``), ranges
(``mon-fri``), steps (``*/15``, ``8-18/2``), month and weekday names, ``0`` or ``7`` for Sunday,
and the macros ``@hourly @daily @midnight @weekly @monthly @yearly @annually``. As in Vixie
cron, when both day fields are restricted a day matching either one counts. Times are naive
local datetimes: a schedule follows the wall clock of the machine, DST included.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

__all__ = ["CronSchedule"]

_MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
_FIELDS: tuple[tuple[str, int, int, dict[str, int]], ...] = (
    ("minute", 0, 59, {}),
    ("hour", 0, 23, {}),
    ("day of month", 1, 31, {}),
    ("month", 1, 12, {name: i + 1 for i, name in enumerate(_MONTHS)}),
    ("day of week", 0, 7, {name: i for i, name in enumerate(_DAYS)}),
)
_SEARCH_DAYS = 366 * 8
"""How far ahead ``next_after`` looks (Feb 29 on a Monday can be 28 years away: beyond
this, the schedule is treated as never firing)."""


def _value(token: str, name: str, low: int, high: int, names: dict[str, int]) -> int:
    text = token.strip().lower()
    if text in names:
        return names[text]
    if not text.isdigit():
        raise ValueError(f"{name}: {token!r} is not a number or a known name")
    number = int(text)
    if not low <= number <= high:
        raise ValueError(f"{name}: {number} is outside {low}-{high}")
    return number


def _parse_field(
    text: str, name: str, low: int, high: int, names: dict[str, int]
) -> frozenset[int]:
    values: set[int] = set()
    for part in text.split(","):
        if not part:
            raise ValueError(f"{name}: empty list item in {text!r}")
        base, slash, step_text = part.partition("/")
        step = 1
        if slash:
            if not step_text.isdigit() or int(step_text) == 0:
                raise ValueError(f"{name}: step {step_text!r} must be a positive number")
            step = int(step_text)
        if base == "*":
            start, end = low, high
        elif "-" in base:
            first, _, last = base.partition("-")
            start = _value(first, name, low, high, names)
            end = _value(last, name, low, high, names)
            if end < start:
                raise ValueError(f"{name}: range {base!r} runs backwards")
        else:
            start = _value(base, name, low, high, names)
            end = high if slash else start
        values.update(range(start, end + 1, step))
    return frozenset(values)


@dataclass(frozen=True)
class CronSchedule:
    """A parsed cron expression; build with :meth:`parse`."""

    expression: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday
    day_restricted: bool
    weekday_restricted: bool

    @classmethod
    def parse(cls, expression: str) -> CronSchedule:
        """Parse ``expression``; ValueError says which field is wrong and why."""
        text = " ".join(expression.split())
        fields = _MACROS.get(text.lower(), text).split(" ")
        if len(fields) != 5:
            raise ValueError(
                f"expected 5 fields (minute hour day month weekday) or a macro like @daily, "
                f"got {len(fields) if text else 0}"
            )
        parsed = [
            _parse_field(field.lower(), name, low, high, names)
            for field, (name, low, high, names) in zip(fields, _FIELDS, strict=True)
        ]
        weekdays = frozenset(d % 7 for d in parsed[4])
        return cls(
            expression=text,
            minutes=parsed[0],
            hours=parsed[1],
            days=parsed[2],
            months=parsed[3],
            weekdays=weekdays,
            day_restricted=not fields[2].startswith("*"),
            weekday_restricted=not fields[4].startswith("*"),
        )

    def _day_matches(self, day: dt.date) -> bool:
        if day.month not in self.months:
            return False
        by_day = day.day in self.days
        by_weekday = (day.isoweekday() % 7) in self.weekdays
        if self.day_restricted and self.weekday_restricted:
            return by_day or by_weekday
        return by_day and by_weekday

    def matches(self, moment: dt.datetime) -> bool:
        """Whether the schedule fires in ``moment``'s minute."""
        return (
            moment.minute in self.minutes
            and moment.hour in self.hours
            and self._day_matches(moment.date())
        )

    def next_after(self, moment: dt.datetime) -> dt.datetime | None:
        """The first minute strictly after ``moment`` at which it fires (None: never)."""
        start = moment.replace(second=0, microsecond=0) + dt.timedelta(minutes=1)
        hours = sorted(self.hours)
        minutes = sorted(self.minutes)
        day = start.date()
        for offset in range(_SEARCH_DAYS):
            current = day + dt.timedelta(days=offset)
            if not self._day_matches(current):
                continue
            for hour in hours:
                if offset == 0 and hour < start.hour:
                    continue
                for minute in minutes:
                    if offset == 0 and hour == start.hour and minute < start.minute:
                        continue
                    return dt.datetime.combine(current, dt.time(hour, minute), moment.tzinfo)
        return None
