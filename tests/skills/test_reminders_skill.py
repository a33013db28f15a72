"""The reminder skill by what people say, on a fake clock in Europe/Berlin: the real
recogniser (HA's and ARIA's templates), the real store, the skill's replies."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from aria_desktop.adapters.skills.hassil_recognizer import HassilRecognizer
from aria_desktop.adapters.skills.phrasebook import YamlPhrasebook
from aria_desktop.adapters.skills.reminder_store import SQLiteReminderStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.core.skills.reminder_skill import ReminderSkill
from aria_desktop.core.skills.reminders import ReminderService
from aria_desktop.core.skills.router import SkillRouter, SkillTurn

BERLIN = ZoneInfo("Europe/Berlin")


class FakeClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def _berlin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


class Rig:
    def __init__(self, database: Database, recognizer: HassilRecognizer) -> None:
        self.clock = FakeClock(dt.datetime(2026, 3, 4, 8, 0, tzinfo=BERLIN).timestamp())
        self.service = ReminderService(
            SQLiteReminderStore(database),
            clock=self.clock,
            publish=lambda _event: None,
            phrases=YamlPhrasebook(),
        )
        skill = ReminderSkill(self.service, YamlPhrasebook())
        self.router = SkillRouter(recognizer, [skill], languages=("en", "de"))

    def at(self, year: int, month: int, day: int, hour: int, minute: int) -> None:
        self.clock.now = dt.datetime(year, month, day, hour, minute, tzinfo=BERLIN).timestamp()

    async def say(self, text: str) -> str | None:
        reply = await self.router.answer(text, SkillTurn())
        return None if reply is None else reply.text


@pytest.fixture
async def rig(tmp_path: Path, recognizer: HassilRecognizer) -> AsyncIterator[Rig]:
    database = await Database.open(tmp_path / "aria.db")
    try:
        yield Rig(database, recognizer)
    finally:
        await database.close()


@pytest.mark.parametrize(
    ("sentence", "reply"),
    [
        ("remind me at 4 to call mom", "Okay, I'll remind you today at 4 PM to call mom."),
        ("Remind me at 4 p.m. to call mom.", "Okay, I'll remind you today at 4 PM to call mom."),
        ("remind me at 4pm to call mom", "Okay, I'll remind you today at 4 PM to call mom."),
        (
            "remind me in twenty minutes to check the oven",
            "Okay, I'll remind you today at 8:20 AM to check the oven.",
        ),
        (
            "remind me to call mom tomorrow at 9 am",
            "Okay, I'll remind you tomorrow at 9 AM to call mom.",
        ),
        ("remind me to call mom tomorrow", "Okay, I'll remind you tomorrow at 9 AM to call mom."),
        (
            "remind me on Friday at 6 pm to buy flowers",
            "Okay, I'll remind you on Friday at 6 PM to buy flowers.",
        ),
        (
            "remind me at half past four to go to the store",
            "Okay, I'll remind you today at 4:30 PM to go to the store.",
        ),
        (
            "can you remind me at noon about the meeting",
            "Okay, I'll remind you today at 12 PM about the meeting.",
        ),
        (
            "remind me every day at 8 pm to take my pills",
            "Okay, I'll remind you every day at 8 PM to take my pills.",
        ),
        (
            "remind me every Monday at 9 to water the plants",
            "Okay, I'll remind you every Monday at 9 AM to water the plants.",
        ),
        ("wake me up at 7", "Okay, your alarm will ring tomorrow at 7 AM."),
        ("wake me up in an hour", "Okay, your alarm will ring today at 9 AM."),
        ("set an alarm for 6:30", "Okay, your alarm will ring tomorrow at 6:30 AM."),
        ("set an alarm for 6:30 am tomorrow", "Okay, your alarm will ring tomorrow at 6:30 AM."),
        (
            "set an alarm for every weekday at 7",
            "Okay, your alarm will ring every weekday at 7 AM.",
        ),
        (
            "erinnere mich um 16 Uhr daran, die Mutter anzurufen",
            "Okay, ich erinnere dich heute um 16 Uhr daran: die Mutter anzurufen.",
        ),
        (
            "erinnere mich in 20 Minuten an den Kuchen",
            "Okay, ich erinnere dich heute um 8:20 Uhr an den Kuchen.",
        ),
        (
            "erinnere mich an den Zahnarzt morgen um 9",
            "Okay, ich erinnere dich morgen um 9 Uhr an den Zahnarzt.",
        ),
        ("weck mich um 7", "Okay, dein Wecker klingelt morgen um 7 Uhr."),
        ("stell einen Wecker auf 6:30", "Okay, dein Wecker klingelt morgen um 6:30 Uhr."),
        ("weck mich jeden Werktag um 7", "Okay, dein Wecker klingelt werktags um 7 Uhr."),
    ],
)
async def test_reminders_and_alarms_as_people_say_them(rig: Rig, sentence: str, reply: str) -> None:
    assert await rig.say(sentence) == reply


@pytest.mark.parametrize(
    "sentence",
    [
        "Remind me what you said about the budget",
        "remind me why we chose Postgres",
        "Next time, remind me to be more concise",
        "remind me to be more concise next time",
        "remind me to call mom",
        "remind me about the meeting",
        "remind me to read chapter 7",
        "remind me to look at the budget",
        "Set an alarm for my nap",
        "wake me up when it's over",
        "set an alarm for tomorrow",
        "Erinnere mich daran, was du über das Budget gesagt hast",
        "erinnere mich an den Zahnarzt",
        "weck mich, wenn es vorbei ist",
    ],
)
async def test_what_has_no_time_is_not_a_reminder(rig: Rig, sentence: str) -> None:
    assert await rig.say(sentence) is None
    assert await rig.service.pending() == []


async def test_near_midnight_tomorrow_is_the_next_calendar_day(rig: Rig) -> None:
    rig.at(2026, 3, 4, 23, 59)
    said = await rig.say("remind me tomorrow at 9 am to call the bank")
    assert said == "Okay, I'll remind you tomorrow at 9 AM to call the bank."
    (reminder,) = await rig.service.pending()
    assert reminder.due_at == dt.datetime(2026, 3, 5, 9, 0, tzinfo=BERLIN).timestamp()


async def test_listing_reads_the_next_five_and_counts_all(rig: Rig) -> None:
    for minutes in range(10, 80, 10):
        await rig.say(f"remind me in {minutes} minutes to stretch")
    listed = await rig.say("what are my reminders")
    assert listed is not None
    assert listed.startswith("You have 7 reminders. The next 5: stretch today at 8:10 AM, ")
    assert listed.endswith(" and stretch today at 8:50 AM.")
    assert await rig.say("what alarms do I have") == "You have no alarms set."


async def test_an_unspecific_cancel_asks_which_and_cancels_the_only_one(rig: Rig) -> None:
    await rig.say("wake me up at 7")
    await rig.say("set an alarm for 6:30")
    asked = await rig.say("cancel my alarm")
    assert asked == (
        "You have 2 alarms: tomorrow at 6:30 AM and tomorrow at 7 AM. Which one should I cancel?"
    )
    assert len(await rig.service.pending("alarm")) == 2  # nothing was guessed
    assert await rig.say("cancel my 6:30 alarm") == (
        "Okay, I cancelled your alarm tomorrow at 6:30 AM."
    )
    assert await rig.say("cancel the alarm") == "Okay, I cancelled your alarm tomorrow at 7 AM."
    assert await rig.say("cancel the alarm") == "You have no alarms set."


async def test_a_reminder_is_cancelled_by_what_it_is_about(rig: Rig) -> None:
    await rig.say("remind me at 4 pm to call mom")
    await rig.say("remind me at 5 pm to buy milk")
    assert await rig.say("cancel the reminder about milk") == (
        "Okay, I cancelled the reminder: buy milk."
    )
    assert await rig.say("cancel the reminder to call dad") == (
        "I couldn't find a reminder about call dad."
    )
    assert await rig.say("don't remind me to call mom") == (
        "Okay, I cancelled the reminder: call mom."
    )
    assert await rig.service.pending() == []


async def test_german_list_and_cancel(rig: Rig) -> None:
    await rig.say("weck mich um 7")
    await rig.say("erinnere mich morgen um 9 an den Zahnarzt")
    assert await rig.say("welche Wecker habe ich") == "Du hast einen Wecker: morgen um 7 Uhr."
    assert await rig.say("welche Erinnerungen habe ich") == (
        "Du hast eine Erinnerung: den Zahnarzt morgen um 9 Uhr."
    )
    assert await rig.say("lösche den Wecker um 7") == (
        "Okay, ich habe deinen Wecker morgen um 7 Uhr gelöscht."
    )
    assert await rig.say("lösche alle Erinnerungen") == (
        "Okay, ich habe deine Erinnerung gelöscht."
    )
