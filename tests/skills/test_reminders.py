"""The reminder service and its scheduler on a fake clock, over the real SQLite store.

Time is a fake clock (nothing waits for real time); the zone is the process's, set with
``TZ=Europe/Berlin`` and ``time.tzset()``; the announcer is a recording fake of the port (the
composed app's tests use the desktop one). Delivery is at least once: told first, then marked.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from aria_desktop.adapters.skills.phrasebook import YamlPhrasebook
from aria_desktop.adapters.skills.reminder_store import SQLiteReminderStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.core.skills.announce import Announcement
from aria_desktop.core.skills.reminders import ReminderService
from aria_desktop.domain.errors import NotFoundError, ReminderError
from aria_desktop.domain.events import Event
from aria_desktop.domain.reminders import NewReminder
from aria_desktop.domain.skill_events import ReminderDue, SkillDataChanged

BERLIN = ZoneInfo("Europe/Berlin")


def _at(year: int, month: int, day: int, hour: int, minute: int, second: int = 0) -> float:
    return dt.datetime(year, month, day, hour, minute, second, tzinfo=BERLIN).timestamp()


class FakeClock:
    """Wall-clock time the test moves."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now


class RecordingAnnouncer:
    """The announcer port, recording what it was asked to tell."""

    def __init__(self) -> None:
        self.told: list[Announcement] = []
        self.ringing = False
        self.during: list[object] = []

    async def announce(self, announcement: Announcement) -> None:
        self.told.append(announcement)
        for action in self.during:
            await action()  # type: ignore[operator]

    async def silence(self) -> bool:
        return False


@pytest.fixture(autouse=True)
def _berlin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    opened = await Database.open(tmp_path / "aria.db")
    try:
        yield opened
    finally:
        await opened.close()


class Rig:
    """A service over the database, with its clock, events and announcer in reach."""

    def __init__(self, database: Database, now: float) -> None:
        self.clock = FakeClock(now)
        self.events: list[Event] = []
        self.announcer = RecordingAnnouncer()
        self.store = SQLiteReminderStore(database)
        self.service = ReminderService(
            self.store,
            clock=self.clock,
            publish=self.events.append,
            phrases=YamlPhrasebook(),
            announcer=self.announcer,
        )

    def due_events(self) -> list[ReminderDue]:
        return [e for e in self.events if isinstance(e, ReminderDue)]


async def test_a_due_reminder_is_told_then_marked_delivered_once(database: Database) -> None:
    rig = Rig(database, _at(2026, 3, 4, 15, 0))
    added = await rig.service.add_reminder(NewReminder(text="call mom", when="at 4 pm"))
    assert added.due_at == _at(2026, 3, 4, 16, 0)
    assert added.timezone == "Europe/Berlin"
    assert await rig.service.deliver_due() == added.due_at  # not yet
    rig.clock.now = added.due_at + 1
    assert await rig.service.deliver_due() is None
    (due,) = rig.due_events()
    assert (due.reminder_id, due.text, due.late) == (added.id, "call mom", False)
    (told,) = rig.announcer.told
    assert (told.kind, told.title, told.text, told.ring) == (
        "reminder",
        "Reminder",
        "Reminder: call mom.",
        False,
    )
    delivered = await rig.store.get(added.id)
    assert delivered is not None
    assert (delivered.state, delivered.delivered_at, delivered.late) == (
        "delivered",
        added.due_at + 1,
        False,
    )
    assert isinstance(rig.events[-1], SkillDataChanged)
    await rig.service.deliver_due()
    assert len(rig.due_events()) == 1  # never twice


async def test_an_alarm_rings_on_time_and_a_long_missed_one_is_told_without_a_ring(
    database: Database,
) -> None:
    rig = Rig(database, _at(2026, 3, 4, 6, 0))
    on_time = await rig.service.add_reminder(NewReminder(when="at 7", kind="alarm"))
    assert on_time.due_at == _at(2026, 3, 4, 7, 0)  # an alarm's bare hour is as said
    missed = await rig.service.add_reminder(NewReminder(when="at 6:30", kind="alarm"))
    rig.clock.now = _at(2026, 3, 4, 7, 0, 5)
    await rig.service.deliver_due()
    told = {a.key: a for a in rig.announcer.told}
    assert told[on_time.id].ring
    assert told[on_time.id].text == "It's 7 AM. This is your alarm."
    assert not told[missed.id].ring  # 30 minutes late: told, not rung
    assert told[missed.id].text == "Missed alarm: it was set for today at 6:30 AM."


async def test_a_reminder_due_while_off_is_delivered_late_at_the_next_start(
    database: Database,
) -> None:
    before = Rig(database, _at(2026, 3, 4, 15, 0))
    added = await before.service.add_reminder(NewReminder(text="call mom", when="at 4 pm"))
    after = Rig(database, _at(2026, 3, 4, 18, 30))  # ARIA starts again at 18:30
    await after.service.deliver_due()
    (due,) = after.due_events()
    assert (due.reminder_id, due.late) == (added.id, True)
    assert after.announcer.told[0].text == ("Late reminder: call mom (was due today at 4 PM).")
    stored = await after.store.get(added.id)
    assert stored is not None
    assert (stored.state, stored.late) == ("delivered", True)


async def test_a_late_one_from_yesterday_says_so(database: Database) -> None:
    before = Rig(database, _at(2026, 3, 4, 15, 0))
    await before.service.add_reminder(NewReminder(text="water the plants", when="at 4 pm"))
    after = Rig(database, _at(2026, 3, 5, 8, 0))
    await after.service.deliver_due()
    assert after.announcer.told[0].text == (
        "Late reminder: water the plants (was due yesterday at 4 PM)."
    )


async def test_a_crash_after_telling_delivers_it_again_late_never_loses_it(
    database: Database,
) -> None:
    rig = Rig(database, _at(2026, 3, 4, 15, 0))
    added = await rig.service.add_reminder(NewReminder(text="call mom", when="at 4 pm"))
    rig.clock.now = added.due_at

    async def crash() -> None:
        raise asyncio.CancelledError  # the process dies while the announcement is under way

    rig.announcer.during.append(crash)
    with pytest.raises(asyncio.CancelledError):
        await rig.service.deliver_due()
    stored = await rig.store.get(added.id)
    assert stored is not None
    assert stored.state == "pending"  # not marked: the next start tells it again
    again = Rig(database, added.due_at + 600)
    await again.service.deliver_due()
    assert [(e.reminder_id, e.late) for e in again.due_events()] == [(added.id, True)]


async def test_a_failing_announcer_does_not_keep_it_pending(database: Database) -> None:
    rig = Rig(database, _at(2026, 3, 4, 15, 0))
    added = await rig.service.add_reminder(NewReminder(text="call mom", when="at 4 pm"))
    rig.clock.now = added.due_at

    async def broken() -> None:
        raise RuntimeError("no notification service")

    rig.announcer.during.append(broken)
    await rig.service.deliver_due()
    stored = await rig.store.get(added.id)
    assert stored is not None
    assert stored.state == "delivered"  # the event went out; it is not told again and again


async def test_one_cancelled_while_being_told_stays_cancelled(database: Database) -> None:
    rig = Rig(database, _at(2026, 3, 4, 15, 0))
    added = await rig.service.add_reminder(NewReminder(text="call mom", when="at 4 pm"))
    rig.clock.now = added.due_at

    async def cancel() -> None:
        await rig.service.cancel_reminder(added.id)

    rig.announcer.during.append(cancel)
    await rig.service.deliver_due()
    stored = await rig.store.get(added.id)
    assert stored is not None
    assert stored.state == "cancelled"


async def test_a_recurring_reminder_moves_to_its_next_occurrence_across_dst(
    database: Database,
) -> None:
    rig = Rig(database, _at(2026, 3, 27, 12, 0))  # Friday before the spring change
    added = await rig.service.add_reminder(
        NewReminder(text="take my pills", when="every day at 7 am")
    )
    assert added.recurrence == "0 7 * * *"
    assert added.due_at == _at(2026, 3, 28, 7, 0)
    rig.clock.now = added.due_at
    await rig.service.deliver_due()
    moved = await rig.store.get(added.id)
    assert moved is not None
    assert moved.state == "pending"
    assert moved.delivered_at == added.due_at
    assert dt.datetime.fromtimestamp(moved.due_at, BERLIN).strftime("%d %H:%M %Z") == (
        "29 07:00 CEST"
    )
    assert moved.due_at - added.due_at == 23 * 3600


async def test_missed_occurrences_of_a_recurring_one_are_told_once(database: Database) -> None:
    rig = Rig(database, _at(2026, 3, 2, 6, 0))  # Monday
    added = await rig.service.add_reminder(NewReminder(when="every weekday at 7", kind="alarm"))
    after = Rig(database, _at(2026, 3, 5, 9, 0))  # off until Thursday 9:00
    await after.service.deliver_due()
    assert len(after.due_events()) == 1
    moved = await after.store.get(added.id)
    assert moved is not None
    assert moved.due_at == _at(2026, 3, 6, 7, 0)  # Friday


async def test_the_scheduler_replans_when_a_reminder_is_added(database: Database) -> None:
    rig = Rig(database, _at(2026, 3, 4, 15, 0))
    told = asyncio.Event()
    rig.announcer.during.append(lambda: _set(told))
    runner = asyncio.create_task(rig.service.run())
    try:
        await asyncio.sleep(0)  # the scheduler's first pass: nothing pending, it waits
        when = f"{dt.datetime.fromtimestamp(rig.clock.now, BERLIN):%Y-%m-%dT%H:%M}:01"
        rig.clock.now += 0.5
        await rig.service.add_reminder(NewReminder(text="now", when=when))
        rig.clock.now += 1  # due; the change woke the scheduler at once
        async with asyncio.timeout(5):
            await told.wait()
    finally:
        runner.cancel()
    assert [e.text for e in rig.due_events()] == ["now"]


async def _set(event: asyncio.Event) -> None:
    event.set()


async def test_list_cancel_and_cancel_all(database: Database) -> None:
    rig = Rig(database, _at(2026, 3, 4, 15, 0))
    first = await rig.service.add_reminder(NewReminder(text="call mom", when="in 10 minutes"))
    second = await rig.service.add_reminder(NewReminder(text="stretch", when="tomorrow"))
    alarm = await rig.service.add_reminder(NewReminder(when="tomorrow at 6:30", kind="alarm"))
    rig.clock.now = first.due_at
    await rig.service.deliver_due()
    listed = await rig.service.list_reminders()
    assert [(r.id, r.state) for r in listed] == [
        (alarm.id, "pending"),
        (second.id, "pending"),
        (first.id, "delivered"),
    ]
    assert [r.id for r in await rig.service.list_reminders(kind="alarm")] == [alarm.id]
    cancelled = await rig.service.cancel_reminder(second.id)
    assert cancelled.state == "cancelled"
    with pytest.raises(NotFoundError):
        await rig.service.cancel_reminder(second.id)
    assert [r.id for r in await rig.service.cancel_all_reminders()] == [alarm.id]
    rig.clock.now += 8 * 86400  # a week on, the delivered one leaves the list
    assert await rig.service.list_reminders() == []


@pytest.mark.parametrize(
    ("new", "problem"),
    [
        (NewReminder(text="", when="at 4 pm"), "needs something to remind you of"),
        (NewReminder(text="call mom", when="whenever"), "is not a time I understand"),
        (NewReminder(text="call mom", when=""), "When should it be?"),
        (NewReminder(text="x" * 501, when="at 4 pm"), "at most 500"),
        (NewReminder(text="call mom", when="2020-01-01T10:00"), "is not a time"),
    ],
)
async def test_what_cannot_be_set_is_said_plainly(
    database: Database, new: NewReminder, problem: str
) -> None:
    rig = Rig(database, _at(2026, 3, 4, 15, 0))
    with pytest.raises(ReminderError, match=problem):
        await rig.service.add_reminder(new)


async def test_iso_times_and_cron_rules_are_taken_too(database: Database) -> None:
    rig = Rig(database, _at(2026, 3, 4, 15, 0))
    iso = await rig.service.add_reminder(NewReminder(text="dentist", when="2026-03-05T16:00"))
    assert iso.due_at == _at(2026, 3, 5, 16, 0)
    cron = await rig.service.add_reminder(NewReminder(text="standup", when="cron: 30 9 * * 1-5"))
    assert cron.recurrence == "30 9 * * 1-5"
    assert cron.due_at == _at(2026, 3, 5, 9, 30)
    german = await rig.service.add_reminder(
        NewReminder(text="Müll rausbringen", when="morgen um 7", language="de")
    )
    assert german.due_at == _at(2026, 3, 5, 7, 0)  # with a day, the hour is as said
