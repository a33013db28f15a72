"""Reminders and alarms through the composed ARIA with no model at all.

Each command is a real turn (hassil over HA's and ARIA's templates, the reminder skill, the
owner's SQLite database), answered locally: backend ``skills``, model ``reminders``. The
scheduler is the real one, on the real clock: a reminder due in a second is waited for on the
bus (``reminder-due``), never slept for. Sentences that only contain "remind" go to the model,
which is not there, so they fail: a false capture would have answered them.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from aria_desktop.compose.app import App, build_app
from aria_desktop.core.skills.reminders import ReminderService
from aria_desktop.core.skills.when import When
from aria_desktop.domain.reminders import NewReminder, Reminder
from aria_desktop.domain.skill_events import ReminderDue, SkillDataChanged
from tests.skills.conftest import ask, no_model_settings


def _reminders(app: App) -> ReminderService:
    assert app.skills is not None
    assert app.skills.reminders is not None
    return app.skills.reminders


async def _said(app: App, text: str) -> str:
    answered = await ask(app, text)
    assert (answered.backend, answered.model, answered.status) == (
        "skills",
        "reminders",
        "complete",
    ), (text, answered)
    return answered.text


async def test_a_reminder_said_in_words_is_set_listed_and_cancelled(app: App) -> None:
    said = await _said(app, "remind me in 20 minutes to call mom")
    assert said.startswith("Okay, I'll remind you today at ") or said.startswith(
        "Okay, I'll remind you tomorrow at "
    )
    assert said.endswith(" to call mom.")
    pending = await _reminders(app).pending()
    assert [(r.kind, r.text) for r in pending] == [("reminder", "call mom")]
    assert 19 * 60 < pending[0].due_at - time.time() <= 20 * 60
    listed = await _said(app, "what are my reminders")
    assert listed.startswith("You have one reminder: call mom ")
    assert await _said(app, "cancel the reminder to call mom") == (
        "Okay, I cancelled the reminder: call mom."
    )
    assert await _said(app, "what are my reminders") == "You have no reminders."


async def test_an_alarm_is_set_listed_and_cancelled_by_its_time(app: App) -> None:
    assert await _said(app, "set an alarm for 6:30 am tomorrow") == (
        "Okay, your alarm will ring tomorrow at 6:30 AM."
    )
    said = await _said(app, "wake me up at 7")
    assert said.startswith("Okay, your alarm will ring ")
    assert said.endswith(" at 7 AM.")
    alarms = await _said(app, "what alarms do I have")
    assert alarms.startswith("You have 2 alarms: ")
    cancelled = await _said(app, "cancel my 7 am alarm")
    assert cancelled.startswith("Okay, I cancelled your alarm ")
    assert cancelled.endswith("7 AM.")
    assert await _said(app, "cancel my 9 am alarm") == "You have no alarm at 9 am."
    assert await _said(app, "cancel all alarms") == "Okay, I cancelled your alarm."
    assert await _said(app, "what alarms do I have") == "You have no alarms set."


async def test_a_recurring_reminder_is_said_by_its_rule(app: App) -> None:
    said = await _said(app, "remind me every weekday at 7 am to take my pills")
    assert said == "Okay, I'll remind you every weekday at 7 AM to take my pills."
    (reminder,) = await _reminders(app).pending()
    assert reminder.recurrence == "0 7 * * 1,2,3,4,5"


async def test_german_reminders_and_alarms(tmp_path: Path) -> None:
    app = await build_app(no_model_settings(tmp_path, ARIA_ASSIST__LANGUAGES="de,en"))  # type: ignore[arg-type]
    try:
        said = await _said(app, "erinnere mich in 20 Minuten an den Kuchen")
        assert said.startswith("Okay, ich erinnere dich ")
        assert said.endswith(" an den Kuchen.")
        said = await _said(app, "erinnere mich morgen um 16 Uhr daran, die Mutter anzurufen")
        assert said == "Okay, ich erinnere dich morgen um 16 Uhr daran: die Mutter anzurufen."
        assert await _said(app, "stell einen Wecker auf morgen um 6:30") == (
            "Okay, dein Wecker klingelt morgen um 6:30 Uhr."
        )
        assert (await _said(app, "weck mich um 7")).startswith("Okay, dein Wecker klingelt ")
        listed = await _said(app, "welche Wecker habe ich")
        assert listed.startswith("Du hast 2 Wecker: ")
        assert await _said(app, "lösche alle Wecker") == "Okay, ich habe alle 2 Wecker gelöscht."
        assert (
            await ask(app, "Erinnere mich daran, was du über das Budget gesagt hast")
        ).backend != ("skills")
    finally:
        await app.aclose()


@pytest.mark.parametrize(
    "sentence",
    [
        "Remind me what you said about the budget",
        "remind me why we chose Postgres",
        "Next time, remind me to be more concise",
        "remind me to be more concise next time",
        "remind me to call mom",
        "remind me to read chapter 7",
        "Set an alarm for my nap",
        "Should I set an alarm for tomorrow?",
        "What is a good time to set an alarm?",
        "Erinnere mich daran, was du über das Budget gesagt hast",
    ],
)
async def test_sentences_that_only_contain_remind_go_to_the_model(app: App, sentence: str) -> None:
    answered = await ask(app, sentence)
    assert answered.backend != "skills", answered
    assert await _reminders(app).pending() == []


async def test_a_due_reminder_is_told_on_the_bus_and_marked_delivered(app: App) -> None:
    reminders = _reminders(app)
    async with app.orchestrator.bus.subscribe() as events:
        added = await reminders.add_reminder(NewReminder(text="stretch", when="2030-01-01T00:00"))
        due_soon = await reminders.set(
            _soon(1.0), text="drink water", kind="reminder", language="en"
        )
        due: ReminderDue | None = None
        async with asyncio.timeout(10):
            async for event in events:
                if isinstance(event, ReminderDue):
                    due = event
                elif due is not None and isinstance(event, SkillDataChanged):
                    break  # told, then marked delivered
    assert due is not None
    assert (due.reminder_id, due.text, due.late) == (due_soon.id, "drink water", False)
    listed = {r.id: r for r in await reminders.list_reminders()}
    assert listed[added.id].state == "pending"
    assert listed[due_soon.id].state == "delivered"
    assert listed[due_soon.id].delivered_at is not None


async def test_a_reminder_due_while_aria_was_off_is_delivered_late_at_the_start(
    tmp_path: Path,
) -> None:
    settings = no_model_settings(tmp_path)
    first = await build_app(settings)  # type: ignore[arg-type]
    try:
        missed = await _reminders(first).set(
            _soon(3600.0), text="call mom", kind="reminder", language="en"
        )
    finally:
        await first.aclose()
    await _move_due(settings, missed.id, time.time() - 3600)  # due an hour ago, while stopped
    second = await build_app(settings)  # type: ignore[arg-type]
    try:
        reminders = _reminders(second)
        async with second.orchestrator.bus.subscribe() as events, asyncio.timeout(10):
            # The start's scheduler may have delivered it already; else its change comes next.
            while (state := await _state(reminders, missed.id)).state != "delivered":
                await anext(aiter(events))
        assert state.late
        assert state.delivered_at is not None
        assert await reminders.pending() == []
    finally:
        await second.aclose()


async def _state(reminders: ReminderService, reminder_id: str) -> Reminder:
    return {r.id: r for r in await reminders.list_reminders()}[reminder_id]


def _soon(seconds: float) -> When:
    return When(due_at=time.time() + seconds)


async def _move_due(settings: object, reminder_id: str, due_at: float) -> None:
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.compose.app import database_path

    database = await Database.open(database_path(settings))  # type: ignore[arg-type]
    try:
        await database.write(
            lambda conn: conn.execute(
                "UPDATE reminders SET due_at = ? WHERE id = ?", (due_at, reminder_id)
            )
        )
    finally:
        await database.close()
