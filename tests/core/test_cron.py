from __future__ import annotations

import datetime as dt

import pytest

from aria_desktop.domain.cron import CronSchedule


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


@pytest.mark.parametrize(
    ("expression", "after", "expected"),
    [
        ("0 8 * * mon-fri", "2026-11-20 08:00", "2026-11-23 08:00"),  # Fri 08:00 -> Mon
        ("0 8 * * mon-fri", "2026-11-23 07:59:30", "2026-11-23 08:00"),
        ("*/15 * * * *", "2026-01-01 10:07", "2026-01-01 10:15"),
        ("30 9-17/4 * * *", "2026-01-01 13:31", "2026-01-01 17:30"),
        ("@daily", "2026-12-31 23:59", "2027-01-01 00:00"),
        ("@hourly", "2026-01-01 00:00", "2026-01-01 01:00"),
        ("0 0 29 feb *", "2026-03-01 00:00", "2028-02-29 00:00"),
        ("0 12 1 * sun", "2026-11-02 00:00", "2026-11-08 12:00"),  # day 1 OR a Sunday
        ("0 0 * * 7", "2026-11-20 00:00", "2026-11-22 00:00"),  # 7 is Sunday too
        ("5,10 0 * jan,jul *", "2026-01-31 23:00", "2026-07-01 00:05"),
    ],
)
def test_next_after(expression: str, after: str, expected: str) -> None:
    assert CronSchedule.parse(expression).next_after(at(after)) == at(expected)


def test_matches() -> None:
    schedule = CronSchedule.parse("0 8 * * mon-fri")
    assert schedule.matches(at("2026-11-23 08:00:59"))
    assert not schedule.matches(at("2026-11-22 08:00"))  # Sunday


def test_never_firing_schedule() -> None:
    assert CronSchedule.parse("0 0 31 feb *").next_after(at("2026-01-01 00:00")) is None


@pytest.mark.parametrize(
    ("expression", "problem"),
    [
        ("", "expected 5 fields"),
        ("* * * *", "expected 5 fields"),
        ("60 * * * *", "minute: 60 is outside 0-59"),
        ("* 24 * * *", "hour: 24"),
        ("* * 0 * *", "day of month: 0"),
        ("* * * 13 *", "month: 13"),
        ("* * * * funday", "day of week: 'funday'"),
        ("*/0 * * * *", "step '0'"),
        ("5-1 * * * *", "runs backwards"),
        ("1,,2 * * * *", "empty list item"),
    ],
)
def test_parse_errors_name_the_field(expression: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        CronSchedule.parse(expression)
