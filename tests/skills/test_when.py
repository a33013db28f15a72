"""When-phrases to moments (``core/skills/when.py``): English and German, as speech-to-text
writes them, seen from a fixed present in Europe/Berlin (no real clock anywhere)."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from aria_desktop.core.skills.when import (
    clock_times,
    next_occurrence,
    normalize_phrase,
    parse_when,
    split_trailing_when,
)

BERLIN = ZoneInfo("Europe/Berlin")
WEDNESDAY_10 = dt.datetime(2026, 3, 4, 10, 0, tzinfo=BERLIN)
"""The present of the table tests: Wednesday, 4 March 2026, 10:00 in Berlin."""


def _at(phrase: str, language: str = "en", now: dt.datetime = WEDNESDAY_10, **kw: str) -> str:
    found = parse_when(phrase, language, now, **kw)  # type: ignore[arg-type]
    assert found is not None, phrase
    return dt.datetime.fromtimestamp(found.due_at, BERLIN).strftime("%a %d %H:%M")


ENGLISH = [
    ("at 4 pm", "Wed 04 16:00"),
    ("4 p.m.", "Wed 04 16:00"),
    ("4pm", "Wed 04 16:00"),
    ("at 4 P.M.", "Wed 04 16:00"),
    ("at four pm", "Wed 04 16:00"),
    ("at 4:30", "Wed 04 16:30"),
    ("16:30", "Wed 04 16:30"),
    ("at half past four", "Wed 04 16:30"),
    ("at a quarter past 4 pm", "Wed 04 16:15"),
    ("at quarter to five", "Wed 04 16:45"),
    ("at ten past eleven", "Wed 04 11:10"),
    ("at seven fifteen pm", "Wed 04 19:15"),
    ("at 7 oh 5 am", "Thu 05 07:05"),
    ("at 6 o'clock", "Wed 04 18:00"),
    ("noon", "Wed 04 12:00"),
    ("at midnight", "Thu 05 00:00"),
    ("in an hour", "Wed 04 11:00"),
    ("in twenty minutes", "Wed 04 10:20"),
    ("in 20 minutes", "Wed 04 10:20"),
    ("in twenty-five minutes", "Wed 04 10:25"),
    ("in half an hour", "Wed 04 10:30"),
    ("in an hour and a half", "Wed 04 11:30"),
    ("in 1 hour and 30 minutes", "Wed 04 11:30"),
    ("in a quarter of an hour", "Wed 04 10:15"),
    ("in 2 days", "Fri 06 10:00"),
    ("20 minutes from now", "Wed 04 10:20"),
    ("tomorrow at 9 am", "Thu 05 09:00"),
    ("at 9 am tomorrow", "Thu 05 09:00"),
    ("tomorrow", "Thu 05 09:00"),
    ("tomorrow evening", "Thu 05 18:00"),
    ("tomorrow morning at 7", "Thu 05 07:00"),
    ("the day after tomorrow at noon", "Fri 06 12:00"),
    ("on Friday at 6 pm", "Fri 06 18:00"),
    ("friday at 6pm", "Fri 06 18:00"),
    ("at 6 pm on friday", "Fri 06 18:00"),
    ("on wednesday at 11", "Wed 04 11:00"),
    ("on wednesday at 9", "Wed 11 09:00"),
    ("next wednesday", "Wed 11 09:00"),
    ("tonight at 8", "Wed 04 20:00"),
    ("this evening", "Wed 04 18:00"),
    ("at 7 in the evening", "Wed 04 19:00"),
    ("at 11 at night", "Wed 04 23:00"),
]

GERMAN = [
    ("um 16 Uhr", "Wed 04 16:00"),
    ("um 16:30 Uhr", "Wed 04 16:30"),
    ("um 16.30 Uhr", "Wed 04 16:30"),
    ("um 16 Uhr 30", "Wed 04 16:30"),
    ("um halb fünf", "Wed 04 16:30"),
    ("um viertel nach vier", "Wed 04 16:15"),
    ("um viertel vor fünf", "Wed 04 16:45"),
    ("um sieben", "Wed 04 19:00"),
    ("um 7 Uhr morgens", "Thu 05 07:00"),
    ("um Mitternacht", "Thu 05 00:00"),
    ("in 20 Minuten", "Wed 04 10:20"),
    ("in zwanzig Minuten", "Wed 04 10:20"),
    ("in fünfundzwanzig Minuten", "Wed 04 10:25"),
    ("in einer Stunde", "Wed 04 11:00"),
    ("in einer halben Stunde", "Wed 04 10:30"),
    ("in eineinhalb Stunden", "Wed 04 11:30"),
    ("in anderthalb Stunden", "Wed 04 11:30"),
    ("in einer Viertelstunde", "Wed 04 10:15"),
    ("in 1 Stunde und 30 Minuten", "Wed 04 11:30"),
    ("morgen um 9", "Thu 05 09:00"),
    ("morgen früh um 7", "Thu 05 07:00"),
    ("morgen Abend", "Thu 05 18:00"),
    ("übermorgen", "Fri 06 09:00"),
    ("am Freitag um 18 Uhr", "Fri 06 18:00"),
    ("nächsten Mittwoch", "Wed 11 09:00"),
    ("heute Abend um 8", "Wed 04 20:00"),
    ("heute morgen", None),
]


@pytest.mark.parametrize(("phrase", "expected"), ENGLISH)
def test_english_when_phrases_name_the_moment_people_mean(phrase: str, expected: str) -> None:
    assert _at(phrase) == expected


@pytest.mark.parametrize(("phrase", "expected"), GERMAN)
def test_german_when_phrases_name_the_moment_people_mean(phrase: str, expected: str | None) -> None:
    if expected is None:
        assert parse_when(phrase, "de", WEDNESDAY_10) is None  # 9:00 this morning has passed
    else:
        assert _at(phrase, "de") == expected


@pytest.mark.parametrize(
    ("phrase", "language", "rule", "first"),
    [
        ("every weekday at 7", "en", "0 7 * * 1,2,3,4,5", "Thu 05 07:00"),
        ("every day at 8 pm", "en", "0 20 * * *", "Wed 04 20:00"),
        ("daily at 8", "en", "0 8 * * *", "Thu 05 08:00"),
        ("every Monday at 9", "en", "0 9 * * 1", "Mon 09 09:00"),
        ("on mondays at 9", "en", "0 9 * * 1", "Mon 09 09:00"),
        ("every monday and friday at 9 am", "en", "0 9 * * 1,5", "Fri 06 09:00"),
        ("on weekends at 10", "en", "0 10 * * 0,6", "Sat 07 10:00"),
        ("at 7 on weekdays", "en", "0 7 * * 1,2,3,4,5", "Thu 05 07:00"),
        ("every morning at 6:30", "en", "30 6 * * *", "Thu 05 06:30"),
        ("jeden Werktag um 7", "de", "0 7 * * 1,2,3,4,5", "Thu 05 07:00"),
        ("werktags um 7", "de", "0 7 * * 1,2,3,4,5", "Thu 05 07:00"),
        ("täglich um 20 Uhr", "de", "0 20 * * *", "Wed 04 20:00"),
        ("jeden Tag um 8", "de", "0 8 * * *", "Thu 05 08:00"),
        ("jeden Montag um 9", "de", "0 9 * * 1", "Mon 09 09:00"),
        ("montags um 9", "de", "0 9 * * 1", "Mon 09 09:00"),
    ],
)
def test_recurring_phrases_become_a_cron_rule_and_its_next_occurrence(
    phrase: str, language: str, rule: str, first: str
) -> None:
    found = parse_when(phrase, language, WEDNESDAY_10)
    assert found is not None
    assert found.recurrence == rule
    assert _at(phrase, language) == first


def test_a_bare_hour_is_the_nearer_reading_for_a_reminder_and_as_said_for_an_alarm() -> None:
    eight_am = WEDNESDAY_10.replace(hour=8)
    assert _at("at 7", now=eight_am) == "Wed 04 19:00"
    assert _at("at 7", now=eight_am, bare_hour="as_said") == "Thu 05 07:00"  # wake me up at 7
    assert _at("at 4", now=eight_am.replace(hour=20)) == "Thu 05 04:00"
    assert _at("tomorrow at 7", now=eight_am) == "Thu 05 07:00"


def test_tomorrow_near_midnight_is_the_next_calendar_day() -> None:
    late = dt.datetime(2026, 3, 4, 23, 59, tzinfo=BERLIN)
    assert _at("tomorrow at 9", now=late) == "Thu 05 09:00"
    just_after = dt.datetime(2026, 3, 5, 0, 1, tzinfo=BERLIN)
    assert _at("tomorrow at 9", now=just_after) == "Fri 06 09:00"
    assert _at("at 9 am", now=just_after) == "Thu 05 09:00"
    assert _at("at midnight", now=late) == "Thu 05 00:00"
    assert _at("in 2 minutes", now=late) == "Thu 05 00:01"
    assert _at("morgen um 9", "de", now=late) == "Thu 05 09:00"


def test_times_past_today_roll_to_tomorrow_and_weekdays_to_the_next_such_day() -> None:
    assert _at("at 9:30") == "Wed 04 21:30"
    assert _at("at 9:30 am") == "Thu 05 09:30"
    assert _at("on wednesday at 9 am") == "Wed 11 09:00"
    assert _at("on tuesday") == "Tue 10 09:00"
    assert parse_when("today at 9 am", "en", WEDNESDAY_10) is None  # said "today": no roll


def test_spring_forward_day_in_berlin() -> None:
    """29 March 2026: 2:00 CET becomes 3:00 CEST; the day has 23 hours."""
    evening = dt.datetime(2026, 3, 28, 22, 0, tzinfo=BERLIN)
    nine = parse_when("tomorrow at 9 am", "en", evening)
    assert nine is not None
    assert dt.datetime.fromtimestamp(nine.due_at, BERLIN).strftime("%H:%M %Z") == "09:00 CEST"
    assert nine.due_at - evening.timestamp() == 10 * 3600  # 11 wall-clock hours, 10 real ones
    gap = parse_when("tomorrow at 2:30 am", "en", evening)  # 2:30 does not exist that night
    assert gap is not None
    assert dt.datetime.fromtimestamp(gap.due_at, BERLIN).strftime("%H:%M %Z") == "03:30 CEST"
    before = dt.datetime(2026, 3, 29, 1, 30, tzinfo=BERLIN)
    two_hours = parse_when("in 2 hours", "en", before)
    assert two_hours is not None
    assert two_hours.due_at - before.timestamp() == 7200  # real time: 4:30 CEST on the clock
    assert dt.datetime.fromtimestamp(two_hours.due_at, BERLIN).strftime("%H:%M") == "04:30"


def test_fall_back_day_in_berlin() -> None:
    """25 October 2026: 3:00 CEST becomes 2:00 CET; the day has 25 hours."""
    evening = dt.datetime(2026, 10, 24, 22, 0, tzinfo=BERLIN)
    nine = parse_when("tomorrow at 9 am", "en", evening)
    assert nine is not None
    assert dt.datetime.fromtimestamp(nine.due_at, BERLIN).strftime("%H:%M %Z") == "09:00 CET"
    assert nine.due_at - evening.timestamp() == 12 * 3600
    twice = parse_when("tomorrow at 2:30", "en", evening, bare_hour="as_said")
    assert twice is not None  # 2:30 happens twice: the first one
    assert dt.datetime.fromtimestamp(twice.due_at, BERLIN).strftime("%H:%M %Z") == "02:30 CEST"


def test_a_daily_rule_stays_at_its_wall_clock_time_across_both_dst_changes() -> None:
    rule = "0 7 * * *"
    start = dt.datetime(2026, 3, 27, 12, 0, tzinfo=BERLIN).timestamp()
    moments = []
    for _ in range(4):
        found = next_occurrence(rule, start, BERLIN)
        assert found is not None
        moments.append(found)
        start = found
    shown = [dt.datetime.fromtimestamp(m, BERLIN).strftime("%d %H:%M %Z") for m in moments]
    assert shown == ["28 07:00 CET", "29 07:00 CEST", "30 07:00 CEST", "31 07:00 CEST"]
    assert moments[1] - moments[0] == 23 * 3600
    autumn = dt.datetime(2026, 10, 23, 12, 0, tzinfo=BERLIN).timestamp()
    first = next_occurrence("0 7 * * *", autumn, BERLIN)
    assert first is not None
    second = next_occurrence("0 7 * * *", first, BERLIN)
    assert second is not None
    assert second - first == 25 * 3600


def test_a_weekday_rule_skips_the_weekend_across_the_dst_change() -> None:
    friday = dt.datetime(2026, 3, 27, 8, 0, tzinfo=BERLIN).timestamp()
    found = next_occurrence("0 7 * * 1,2,3,4,5", friday, BERLIN)
    assert found is not None
    assert dt.datetime.fromtimestamp(found, BERLIN).strftime("%a %d %H:%M %Z") == (
        "Mon 30 07:00 CEST"
    )


def test_a_rule_at_a_time_the_fall_back_hour_repeats_fires_once() -> None:
    """2:30 comes twice on 25 October: after the first, the next is the next day's."""
    before = dt.datetime(2026, 10, 25, 1, 0, tzinfo=BERLIN).timestamp()
    first = next_occurrence("30 2 * * *", before, BERLIN)
    assert first is not None
    second = next_occurrence("30 2 * * *", first, BERLIN)
    assert second is not None
    assert second - first == 25 * 3600  # the next day's 2:30 CET, not the repeat an hour on


@pytest.mark.parametrize(
    "phrase",
    [
        "what you said about the budget",
        "why we chose postgres",
        "the budget",
        "to be more concise",
        "next time",
        "at 25",
        "at 4 pm to go",
        "at 13 pm",
        "sometime",
        "",
        "in a while",
        "tomorrow every day",
    ],
)
def test_what_is_not_a_time_does_not_parse(phrase: str) -> None:
    assert parse_when(phrase, "en", WEDNESDAY_10) is None


def test_an_unknown_language_has_no_when_phrases() -> None:
    assert parse_when("à 16 heures", "fr", WEDNESDAY_10) is None


def test_the_trailing_when_phrase_is_split_from_what_to_do() -> None:
    def split(text: str, language: str = "en") -> tuple[str, str] | None:
        found = split_trailing_when(text, language, WEDNESDAY_10)
        if found is None:
            return None
        moment = dt.datetime.fromtimestamp(found[1].due_at, BERLIN).strftime("%a %d %H:%M")
        return found[0], moment

    assert split("call mom at 4 pm") == ("call mom", "Wed 04 16:00")
    assert split("go to the store at 4") == ("go to the store", "Wed 04 16:00")
    assert split("put the cake in the oven at 5") == ("put the cake in the oven", "Wed 04 17:00")
    assert split("check in on friday") == ("check in", "Fri 06 09:00")
    assert split("water the plants every day at 8 pm") == ("water the plants", "Wed 04 20:00")
    assert split("call in sick tomorrow") == ("call in sick", "Thu 05 09:00")
    assert split("read chapter 7") is None  # "7" alone is no when-phrase here
    assert split("be more concise") is None
    assert split("look at the budget") is None
    assert split("den Zahnarzt morgen um 9", "de") == ("den Zahnarzt", "Thu 05 09:00")


def test_clock_times_name_the_readings_of_a_said_time() -> None:
    assert clock_times("7 am", "en") == ((7, 0),)
    assert clock_times("7", "en") == ((7, 0), (19, 0))
    assert clock_times("6:30", "en") == ((6, 30), (18, 30))
    assert clock_times("um 18 Uhr", "de") == ((18, 0),)
    assert clock_times("tomorrow", "en") == ()


def test_normalising_makes_speech_to_text_forms_one() -> None:
    assert normalize_phrase("At 4 P.M.", "en") == "at 4 pm"
    assert normalize_phrase("in Twenty-Five minutes!", "en") == "in 25 minutes"
    assert normalize_phrase("um 16Uhr", "de") == "um 16 uhr"
    assert normalize_phrase("am Freitag", "de") == "am freitag"  # "am" is not a.m. in German


def test_the_local_zone_is_the_process_tz(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from aria_desktop.core.skills.local_zone import local_zone, zone_name

    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        zone = local_zone()
        assert zone_name(zone) == "Europe/Berlin"
        evening = dt.datetime(2026, 3, 28, 22, 0, tzinfo=zone)
        nine = parse_when("tomorrow at 9 am", "en", evening)
        assert nine is not None
        assert time.strftime("%H:%M %Z", time.localtime(nine.due_at)) == "09:00 CEST"
        monkeypatch.setenv("TZ", "America/New_York")
        time.tzset()
        assert zone_name(local_zone()) == "America/New_York"
    finally:
        monkeypatch.undo()
        time.tzset()
