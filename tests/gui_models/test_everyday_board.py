"""The "Reminders & lists" state model: every line a person reads, decided without a display."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from aria_desktop.domain.lists import ListItem, ListSummary
from aria_desktop.domain.reminders import Reminder
from aria_desktop.domain.timers import Timer
from aria_desktop.gui.controllers.everyday_board import (
    EMPTY_LISTS,
    EverydayBoard,
    countdown,
    duration_words,
    empty_list_text,
    list_title,
    moment,
    repeat_words,
)


@pytest.fixture(autouse=True)
def berlin() -> Iterator[None]:
    """Local time is Berlin's (DST included), whatever the machine's zone."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "Europe/Berlin"
    time.tzset()
    yield
    if saved is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = saved
    time.tzset()


def local(text: str) -> float:
    """``2026-03-05 16:00`` in local time, as UNIX seconds."""
    return time.mktime(time.strptime(text, "%Y-%m-%d %H:%M"))


NOW = "2026-03-05 14:30"  # a Thursday


def test_a_countdown_reads_like_a_clock_and_never_shows_zero_while_running() -> None:
    assert countdown(252) == "4:12"
    assert countdown(251.2) == "4:12"
    assert countdown(0.3) == "0:01"
    assert countdown(0) == "0:00"
    assert countdown(3723) == "1:02:03"
    assert countdown(-5) == "0:00"


def test_durations_in_words() -> None:
    assert duration_words(300) == "5 min"
    assert duration_words(5400) == "1 h 30 min"
    assert duration_words(45) == "45 s"
    assert duration_words(90) == "1 min 30 s"
    assert duration_words(3600) == "1 h"


def test_moments_near_now_are_named_by_day() -> None:
    now = local(NOW)
    assert moment(local("2026-03-05 16:00"), now) == "Today 16:00"
    assert moment(local("2026-03-06 09:00"), now) == "Tomorrow 09:00"
    assert moment(local("2026-03-04 18:00"), now) == "Yesterday 18:00"
    assert moment(local("2026-03-09 07:00"), now) == "Mon 07:00"
    assert moment(local("2026-03-20 07:00"), now) == "Fri 20 Mar 07:00"
    assert moment(local("2027-01-04 07:00"), now) == "Mon 4 Jan 2027 07:00"


def test_tomorrow_is_a_calendar_day_across_the_dst_change_and_near_midnight() -> None:
    # Berlin moves to summer time on 2026-03-29: that Sunday has 23 hours.
    assert moment(local("2026-03-30 00:30"), local("2026-03-29 23:50")) == "Tomorrow 00:30"
    assert moment(local("2026-03-29 23:59"), local("2026-03-29 00:01")) == "Today 23:59"
    assert moment(local("2026-03-06 00:00"), local("2026-03-05 23:59")) == "Tomorrow 00:00"


def test_repeats_in_words() -> None:
    assert repeat_words("") == ""
    assert repeat_words("0 7 * * 1-5") == "every weekday"
    assert repeat_words("30 8 * * *") == "every day"
    assert repeat_words("0 9 * * 1") == "every Monday"
    assert repeat_words("0 9 * * 0") == "every Sunday"
    assert repeat_words("0 9 1 * *") == "repeats"
    assert repeat_words("0 7 * * 1,2,3,4,5") == "every weekday"  # as the when-parser writes it
    assert repeat_words("0 10 * * 0,6") == "every weekend day"
    assert repeat_words("0 18 * * 1,3,5") == "every Mon, Wed and Fri"
    assert repeat_words("0 18 * * 0,1") == "every Mon and Sun"
    assert repeat_words("0 18 * * 0,1,2,3,4,5,6") == "every day"
    assert repeat_words("0 18 * * mon") == "repeats"


def test_list_titles_and_empty_states_say_what_to_do() -> None:
    assert list_title("shopping") == "Shopping"
    assert list_title("todo") == "To-do"
    assert list_title("hardware") == "Hardware"
    assert '"add milk to my shopping list"' in empty_list_text("shopping")
    assert '"add call the bank to my to-do list"' in empty_list_text("todo")
    assert '"add something to my hardware list"' in empty_list_text("hardware")


def test_the_board_tells_observers_which_part_changed_and_orders_entries() -> None:
    board = EverydayBoard()
    told: list[str] = []
    board.observe(told.append)
    assert board.items_empty_text() == EMPTY_LISTS
    board.set_lists(
        [
            ListSummary(name="shopping", open_items=2, done_items=1),
            ListSummary(name="todo", open_items=0, done_items=0),
        ]
    )
    assert [row.label for row in board.list_rows()] == ["Shopping (2)", "To-do"]
    board.set_items(
        "shopping",
        [
            ListItem(id="1", list="shopping", text="milk", done=True),
            ListItem(id="2", list="shopping", text="eggs"),
            ListItem(id="3", list="shopping", text="bread", pending=True),
        ],
    )
    rows = board.item_rows()
    assert [(row.text, row.done) for row in rows] == [
        ("eggs", False),
        ("bread", False),
        ("milk", True),
    ]
    assert rows[1].note == "not yet in Home Assistant"
    assert board.done_count == 1
    assert board.select("todo")
    assert board.items == []
    assert "to-do list is empty" in board.items_empty_text()
    board.set_items("shopping", [ListItem(id="9", list="shopping", text="late answer")])
    assert board.items == []  # an answer for the list shown before is dropped
    assert told == ["lists", "items", "items"]


def test_a_selected_list_that_went_away_gives_way_to_the_first() -> None:
    board = EverydayBoard(selected="hardware")
    board.set_lists([ListSummary(name="shopping", open_items=0, done_items=0)])
    assert board.selected == "shopping"


def test_timers_count_down_from_their_end_soonest_first() -> None:
    now = local(NOW)
    board = EverydayBoard()
    board.set_timers(
        [
            Timer(id="a", name="pasta", duration_s=600, ends_at=now + 252, created_at=now - 348),
            Timer(id="b", duration_s=300, state="paused", remaining_s=90.0),
            Timer(id="c", name="old", duration_s=60, state="finished"),
        ]
    )
    rows = board.timer_rows(now)
    assert [(r.title, r.left, r.state) for r in rows] == [
        ("5 min timer", "1:30", "Paused"),
        ("Pasta", "4:12", "Running"),
    ]
    assert board.tray_lines(now) == ["5 min timer — paused, 1:30 left", "Pasta — 4:12 left"]
    assert board.tray_lines(now + 60)[1] == "Pasta — 3:12 left"  # the tick only re-renders
    assert board.counting
    board.set_timers([Timer(id="b", duration_s=300, state="paused", remaining_s=90.0)])
    assert not board.counting


def test_reminders_pending_first_then_delivered_with_the_late_marker() -> None:
    now = local(NOW)
    board = EverydayBoard()
    board.set_reminders(
        [
            Reminder(
                id="r1",
                text="water the plants",
                due_at=local("2026-03-04 09:00"),
                state="delivered",
                delivered_at=local("2026-03-04 09:00"),
            ),
            Reminder(
                id="r2",
                text="call mom",
                due_at=local("2026-03-05 08:00"),
                state="delivered",
                delivered_at=local("2026-03-05 08:10"),
                late=True,
            ),
            Reminder(id="r3", kind="alarm", due_at=local("2026-03-06 07:00"), recurrence=""),
            Reminder(
                id="r4", text="bins", due_at=local("2026-03-05 14:50"), recurrence="0 7 * * 1-5"
            ),
        ]
    )
    rows = board.reminder_rows(now)
    assert [r.id for r in rows] == ["r4", "r3", "r2", "r1"]
    bins, alarm, mom, plants = rows
    assert bins.when == "Today 14:50 · every weekday"
    assert bins.state == "Pending · in 20 min"
    assert bins.pending
    assert (alarm.kind, alarm.text, alarm.when) == ("Alarm", "Wake-up alarm", "Tomorrow 07:00")
    assert alarm.state == "Pending · in 16 h 30 min"
    far = Reminder(id="r5", text="dentist", due_at=local("2026-03-06 22:30"))
    later = Reminder(id="r6", text="taxes", due_at=local("2026-03-09 14:30"))
    board.set_reminders([far, later])
    assert [r.state for r in board.reminder_rows(now)] == [
        "Pending · in 1 day 8 h",
        "Pending · in 4 days",
    ]
    assert mom.state == "Delivered late · Today 08:10"
    assert mom.late
    assert not mom.pending
    assert plants.state == "Delivered · Yesterday 09:00"
    assert not plants.late
