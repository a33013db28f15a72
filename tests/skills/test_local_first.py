"""Everyday commands are answered locally before any model, and only those.

Through the composed app with no model reachable: a command the templates state is answered
by its skill (and says so), a sentence that merely contains a command word goes to the model
(and so fails here with no backend), and ``assist.prefer_local = false`` sends everything on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aria_desktop.adapters.skills.hassil_recognizer import HassilRecognizer
from aria_desktop.compose.app import App, build_app
from aria_desktop.compose.live_settings import warm_up_target
from aria_desktop.compose.llm import build_router
from aria_desktop.compose.skills import Skills
from aria_desktop.core.bus import EventBus
from aria_desktop.core.clock import SystemClock
from aria_desktop.core.warmup import ModelWarmUp
from tests.skills.conftest import ask, no_model_settings


def _skills(app: App) -> Skills:
    """The composed app's skills (always built by ``build_app``)."""
    assert app.skills is not None
    return app.skills


CONTAINS_A_COMMAND_WORD = [
    "Can you add something healthy to my shopping list?",
    "Which timer app is best for cooking?",
    "Remind me what you said about the budget",
    "Should I open the window at night?",
    "How do I set a timer in Python?",
    "What's the time in Tokyo?",
    "Can you explain how a shopping list app stores data?",
    "Is it better to pause a download or cancel it?",
    "What do you know about volume in physics?",
    "Tell me about the history of the calendar",
    "Next time, remind me to be more concise",
    "Remember that time we went to Paris?",
    "Remember that movie with the talking dog",
    "Do you remember that?",
]


@pytest.mark.parametrize("sentence", CONTAINS_A_COMMAND_WORD)
def test_a_sentence_that_only_contains_a_command_word_is_not_a_command(
    app: App, sentence: str
) -> None:
    skills = app.orchestrator.skills
    assert skills is not None
    for source in ("text", "voice"):  # voice also tries the near-miss correction
        assert skills.match(sentence, source) is None


@pytest.mark.parametrize(
    ("sentence", "intent", "slots"),
    [
        ("set a timer for five minutes", "HassStartTimer", {"minutes": 5}),
        ("Set a timer for 15 minutes.", "HassStartTimer", {"minutes": 15}),
        ("what time is it?", "HassGetCurrentTime", {}),
        (
            "add milk, eggs and bread to my shopping list",
            "HassListAddItem",
            {"item": "milk, eggs and bread", "name": "shopping"},
        ),
        ("what's on my to-do list", "AriaListRead", {"name": "to-do"}),
        (  # a skip word before the command: the item is still the words as said
            "Can you add milk and eggs to my shopping list?",
            "HassListAddItem",
            {"item": "milk and eggs", "name": "shopping"},
        ),
        ("never mind", "HassNevermind", {}),
        ("what do you remember about my sister", "AriaRecall", {"topic": "my sister"}),
    ],
)
def test_commands_are_recognised_with_their_slots(
    recognizer: HassilRecognizer, sentence: str, intent: str, slots: dict[str, object]
) -> None:
    found = recognizer.recognize(sentence, "en")
    assert found is not None
    assert found.intent == intent
    assert dict(found.slots) == slots


def test_german_commands_are_recognised_with_home_assistants_german_templates(
    recognizer: HassilRecognizer,
) -> None:
    found = recognizer.recognize("Stelle einen Timer auf fünf Minuten", "de")
    assert found is not None
    assert found.intent == "HassStartTimer"
    assert found.number_slot("minutes") == 5
    time = recognizer.recognize("Wie spät ist es?", "de")
    assert time is not None
    assert time.intent == "HassGetCurrentTime"


def test_a_near_miss_transcript_matches_only_when_fuzzy(recognizer: HassilRecognizer) -> None:
    assert recognizer.recognize("set a timmer for five minuets", "en") is None
    found = recognizer.recognize("set a timmer for five minuets", "en", fuzzy=True)
    assert found is not None
    assert found.intent == "HassStartTimer"
    assert found.fuzzy


async def test_the_time_is_answered_with_no_model_and_says_who_answered(app: App) -> None:
    answered = await ask(app, "What time is it?")
    assert answered.status == "complete", answered
    assert answered.text.startswith("It's ")
    assert (answered.backend, answered.model) == ("skills", "clock")


async def test_a_question_with_a_command_word_goes_to_the_model(app: App) -> None:
    answered = await ask(app, "Which timer app is best for cooking?")
    assert answered.status == "error"
    assert answered.backend != "skills"


async def test_list_items_said_in_one_sentence_are_stored_one_by_one_and_read_back(
    app: App,
) -> None:
    added = await ask(app, "add milk, eggs and bread to my shopping list")
    assert added.text == "Added milk, eggs and bread to your shopping list."
    assert [i.text for i in await _skills(app).lists.items("shopping")] == ["milk", "eggs", "bread"]
    await ask(app, "check off eggs from my shopping list")
    read = await ask(app, "what's on my shopping list")
    assert read.text == "On your shopping list: milk and bread."
    assert (read.backend, read.model) == ("skills", "lists")


async def test_never_mind_ends_the_turn_quietly(app: App) -> None:
    answered = await ask(app, "never mind")
    assert (answered.status, answered.text, answered.backend) == ("complete", "", "skills")


async def test_prefer_local_off_sends_commands_to_the_model(tmp_path: Path) -> None:
    settings = no_model_settings(tmp_path, ARIA_ASSIST__PREFER_LOCAL="false")
    app = await build_app(settings)  # type: ignore[arg-type]
    try:
        answered = await ask(app, "what time is it")
        assert answered.status == "error"
        assert answered.backend != "skills"
    finally:
        await app.aclose()


async def test_a_cloud_model_without_its_key_is_no_model_before_the_first_question(
    tmp_path: Path,
) -> None:
    settings = no_model_settings(tmp_path, ARIA_LLM__CHAINS="chat=anthropic")
    target = warm_up_target(settings, build_router(settings))  # type: ignore[arg-type]
    assert target is not None
    model = ModelWarmUp(bus=EventBus(), clock=SystemClock(), target=target).capability()
    assert not model.available
    assert model.reason == "No model is set up yet. The Claude cloud model needs an API key."
    app = await build_app(settings)  # type: ignore[arg-type]
    try:
        answered = await ask(app, "what time is it")  # the everyday skills still answer
        assert answered.backend == "skills"
    finally:
        await app.aclose()


def test_a_question_shaped_like_adding_to_a_list_is_not_an_item(
    recognizer: HassilRecognizer, app: App
) -> None:
    found = recognizer.recognize("Was kommt auf die Einkaufsliste?", "de")
    assert found is not None  # Home Assistant's template takes it…
    skills = app.orchestrator.skills
    assert skills is not None
    assert not skills._skills[found.intent].accepts(found)  # …the list skill does not
