"""Voice turns: near-miss transcripts matched to a template, and what must stay the model's.

Fuzzy matching runs only for voice and only after the exact attempt failed: misspelt words
("timmer") are replaced by the templates' own, and the few real-word mishearings measured on
the tuning half of ``aria bench skills --accuracy`` are tried as sound-alike readings.
"""

from __future__ import annotations

import pytest

from aria_desktop.adapters.skills.fuzzy_words import WordCorrector
from aria_desktop.compose.app import App


@pytest.mark.parametrize(
    ("heard", "intent", "slots"),
    [
        ("and milk to my shopping list.", "HassListAddItem", {"item": "milk"}),
        ("And five minutes to the timer.", "HassIncreaseTimer", {"minutes": 5}),
        ("Start at 15-minute timer.", "HassStartTimer", {"minutes": 15}),
        ("Set a timmer for 5 minuets.", "HassStartTimer", {"minutes": 5}),
    ],
)
async def test_a_voice_transcript_that_nearly_states_a_command_is_matched(
    app: App, heard: str, intent: str, slots: dict[str, object]
) -> None:
    assert app.skills is not None
    assert app.skills.router.match(heard, "text") is None  # typed, it is for the model
    found = app.skills.router.match(heard, "voice")
    assert found is not None
    assert (found.intent, found.fuzzy) == (intent, True)
    for name, value in slots.items():
        assert found.slots[name] == value


@pytest.mark.parametrize(
    "heard",
    [
        "And then add it to the list.",
        "And what's on TV tonight?",
        "And what time does the bakery open?",
        "Which timmer app is best for cooking?",
        "Start at the beginning.",
        "Set at ease, the timer of a heart.",
    ],
)
async def test_a_sentence_that_only_sounds_like_a_command_is_not_matched(
    app: App, heard: str
) -> None:
    assert app.skills is not None
    assert app.skills.router.match(heard, "voice") is None


def test_readings_never_include_the_sentence_itself() -> None:
    corrector = WordCorrector(["add", "to", "my", "shopping", "list", "milk"])
    assert corrector.readings("add milk to my shopping list") == []
    assert WordCorrector.from_templates(["add"], "en").readings("and milk") == ["add milk"]


def test_a_known_word_is_never_replaced() -> None:
    corrector = WordCorrector(["timer", "time", "set", "a", "for"])
    assert corrector.correct("set a time for") == "set a time for"
    assert corrector.correct("set a timmer for") == "set a timer for"
