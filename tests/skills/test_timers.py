"""Timers by what people say, through the composed ARIA with no model at all.

Each command is a real turn: recognised by hassil over HA's and ARIA's templates, carried out
by the timer skill on the owner's SQLite database, and answered locally (backend ``skills``,
model ``timers``). Sentences that only contain a timer word go to the model, which is not
there, so they fail: a false capture would have answered them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aria_desktop.adapters.skills.hassil_recognizer import HassilRecognizer
from aria_desktop.adapters.skills.phrasebook import YamlPhrasebook
from aria_desktop.compose.app import App, build_app
from aria_desktop.core.skills.timer_words import spoken_duration, spoken_remaining
from aria_desktop.core.skills.timers import TimerService
from tests.skills.conftest import Answered, ask, no_model_settings


def _timers(app: App) -> TimerService:
    assert app.skills is not None
    assert app.skills.timers is not None
    return app.skills.timers


async def _said(app: App, text: str) -> str:
    answered = await ask(app, text)
    assert (answered.backend, answered.model, answered.status) == ("skills", "timers", "complete")
    return answered.text


async def test_a_named_and_an_unnamed_timer_are_set_queried_paused_resumed_and_cancelled(
    app: App,
) -> None:
    assert await _said(app, "set a pasta timer for 10 minutes") == (
        "Pasta timer set for 10 minutes."
    )
    assert await _said(app, "set a timer for five minutes") == "Timer set for 5 minutes."
    timers = {t.name: t for t in _timers(app).active()}
    assert timers["pasta"].duration_s == 600
    assert timers[""].duration_s == 300

    both = await _said(app, "how long is left on my timers")
    assert both.startswith("You have 2 timers: the 5 minute timer has ")
    assert " and the pasta timer has " in both
    assert await _said(app, "pause the pasta timer") == "Your pasta timer is paused."
    paused = await _said(app, "how much time is left on the pasta timer")
    assert paused.startswith("Your pasta timer is paused with ")
    assert await _said(app, "pause the pasta timer") == "Your pasta timer is already paused."
    resumed = await _said(app, "resume the pasta timer")
    assert resumed.startswith("Your pasta timer is running again, ")
    added = await _said(app, "add 2 minutes to the pasta timer")
    assert added.startswith("Added 2 minutes to your pasta timer. 12 minutes")
    assert await _said(app, "cancel the 5 minute timer") == "Cancelled your 5 minute timer."
    assert await _said(app, "cancel the pasta timer") == "Cancelled your pasta timer."
    assert await _said(app, "timer status") == "You have no timers running."
    assert _timers(app).active() == []


async def test_two_timers_and_an_unspecific_command_asks_which_one(app: App) -> None:
    await _said(app, "set a timer called tea for 3 minutes")
    await _said(app, "set a 10 minute timer for the pasta")
    asked = await _said(app, "cancel the timer")
    assert asked == ("You have 2 timers: the tea timer and the pasta timer. Which one do you mean?")
    assert len(_timers(app).active()) == 2  # nothing was guessed
    assert await _said(app, "cancel the tea timer") == "Cancelled your tea timer."
    assert await _said(app, "cancel the timer") == "Cancelled your pasta timer."  # the only one


async def test_time_taken_off_past_the_end_ends_the_timer_and_all_can_be_cancelled(
    app: App,
) -> None:
    await _said(app, "set a timer for 1 hour and 30 minutes")
    await _said(app, "set a timer for 90 seconds")
    await _said(app, "set a tea timer for 4 minutes")
    ended = await _said(app, "take 2 minutes off the 90 second timer")
    assert ended == "Took 2 minutes off your 1 minute and 30 second timer: it's done now."
    left = await _said(app, "take 1 minute off the tea timer")
    assert left.startswith("Took 1 minute off your tea timer. ")
    assert await _said(app, "cancel all timers") == "Cancelled all 2 timers."
    assert await _said(app, "cancel all timers") == "You have no timers running."


async def test_a_timer_that_is_not_there_is_said_plainly(app: App) -> None:
    assert await _said(app, "cancel the timer") == "You have no timers running."
    await _said(app, "set a timer for 2 minutes")
    assert await _said(app, "cancel the pasta timer") == "You have no timer called pasta."
    assert await _said(app, "pause the 7 minute timer") == "You have no 7 minute timer."


async def test_german_timers_are_set_and_read_in_german(tmp_path: Path) -> None:
    app = await build_app(no_model_settings(tmp_path, ARIA_ASSIST__LANGUAGES="de,en"))  # type: ignore[arg-type]
    try:
        said = await _said(app, "Stelle einen Nudel-Timer auf 1 Stunde und 30 Minuten")
        assert said == "Timer „Nudel“ für eine Stunde und 30 Minuten gestellt."
        status = await _said(app, "Wie lange läuft der Nudel Timer noch")
        assert status.startswith("Der Timer „Nudel“ läuft noch ")
        assert await _said(app, "Timer für eine Minute") == "Timer für eine Minute gestellt."
        assert await _said(app, "Lösche alle Timer") == "Alle 2 Timer sind gelöscht."
    finally:
        await app.aclose()


@pytest.mark.parametrize(
    ("sentence", "slots"),
    [
        ("set a pasta timer for 10 minutes", {"name": "pasta", "minutes": 10}),
        ("set a 10 minute timer for the pasta", {"name": "the pasta", "minutes": 10}),
        ("start a timer called tea for 3 minutes", {"name": "tea", "minutes": 3}),
        ("set a timer for 10 minutes for the pasta", {"name": "pasta", "minutes": 10}),
        ("set the kitchen timer for half an hour", {"name": "kitchen", "seconds": 1800}),
        (
            "set a pasta timer for 1 hour and 30 minutes",
            {"name": "pasta", "hours": 1, "minutes": 30},
        ),
    ],
)
def test_named_timers_as_people_say_them_are_recognised(
    recognizer: HassilRecognizer, sentence: str, slots: dict[str, object]
) -> None:
    found = recognizer.recognize(sentence, "en", accept=lambda m: "name" in m.slots)
    assert found is not None
    assert found.intent == "HassStartTimer"
    assert dict(found.slots) == slots


TIMER_WORDS_BUT_NOT_COMMANDS = [
    "Which timer app is best for cooking?",
    "How long should I boil pasta?",
    "Is a 5 minute timer enough for soft eggs?",
    "What is a timer interrupt?",
    "set a 10 minute timer for the pasta and then remind me to call my mother",
    "How do I cancel a timer on my phone?",
    "My kitchen timer is broken, what should I buy?",
    "Wie lange dauert ein Flug nach Tokio?",
    "Welcher Timer ist der beste zum Kochen?",
]


@pytest.mark.parametrize("sentence", TIMER_WORDS_BUT_NOT_COMMANDS)
async def test_a_sentence_with_timer_words_goes_to_the_model(app: App, sentence: str) -> None:
    answered: Answered = await ask(app, sentence)
    assert answered.backend != "skills", answered.text
    assert answered.status == "error"  # no model here: nothing local answered it
    assert _timers(app).active() == []


def test_durations_read_well_aloud_in_english_and_german() -> None:
    phrases = YamlPhrasebook()
    assert spoken_duration(300, phrases, "en") == "5 minutes"
    assert spoken_duration(5400, phrases, "en") == "1 hour and 30 minutes"
    assert spoken_duration(3725, phrases, "en") == "1 hour, 2 minutes and 5 seconds"
    assert spoken_duration(300, phrases, "en", adjective=True) == "5 minute"
    assert spoken_duration(61, phrases, "de") == "eine Minute und eine Sekunde"
    assert spoken_duration(7200, phrases, "de") == "2 Stunden"
    # what is left: exact seconds under ten minutes, whole minutes above
    assert spoken_remaining(271.3, phrases, "en") == "4 minutes and 32 seconds"
    assert spoken_remaining(1234, phrases, "en") == "21 minutes"
    assert spoken_remaining(0.4, phrases, "en") == "1 second"


async def test_how_long_is_left_is_a_timer_question_only_while_a_timer_runs(app: App) -> None:
    idle = await ask(app, "how long is left?")
    assert idle.backend != "skills"  # no timer: a question for the model
    await _said(app, "set a pasta timer for 10 minutes")
    left = await _said(app, "How long is left?")
    assert left.startswith("Your pasta timer has ")
