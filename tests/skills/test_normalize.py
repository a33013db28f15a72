"""What speech-to-text writes, made the one form the templates read (hassil_recognizer.normalize).

Each row is a form Whisper (or a phone keyboard) really writes for a command, and the form the
recogniser matches; the second table shows the same command recognised either way.
"""

from __future__ import annotations

import pytest

from aria_desktop.adapters.skills.hassil_recognizer import HassilRecognizer, normalize


@pytest.mark.parametrize(
    ("written", "language", "normal"),
    [
        ("Set a timer for 5 minutes.", "en", "Set a timer for 5 minutes"),
        ("Set a timer for 5 minutes...", "en", "Set a timer for 5 minutes"),
        ("What time is it?!", "en", "What time is it"),
        ('"Set a timer for 5 minutes."', "en", "Set a timer for 5 minutes"),
        ("“Pause the music.”", "en", "Pause the music"),
        ("What’s on my shopping list?", "en", "What's on my shopping list"),
        ("Add milk to my to\u2011do list.", "en", "Add milk to my to-do list"),
        ("  Set   a timer\u00a0for 5 minutes ", "en", "Set a timer for 5 minutes"),
        ("Okay, what time is it?", "en", "what time is it"),
        ("Um, uh, set a timer for 5 minutes.", "en", "set a timer for 5 minutes"),
        ("Well water is cold.", "en", "Well water is cold"),
        ("Set a timer for 5 mins.", "en", "Set a timer for 5 minutes"),
        ("Set a timer for 5min", "en", "Set a timer for 5 minutes"),
        ("Set a timer for 30 secs", "en", "Set a timer for 30 seconds"),
        ("Set a timer for 2 hrs", "en", "Set a timer for 2 hours"),
        ("Set the volume to 50 per cent.", "en", "Set the volume to 50 percent"),
        ("Remind me at 4 p.m. to call mom", "en", "Remind me at 4 pm to call mom"),
        ("Remind me at 4PM", "en", "Remind me at 4 PM"),
        ("Wake me up at 5:30 a.m.", "en", "Wake me up at 5:30 am"),
        ("Remind me at 7.30 p.m. to call", "en", "Remind me at 7:30 pm to call"),
        ("Turn off the lights at 11.30pm.", "en", "Turn off the lights at 11:30 pm"),
        ("Remind me at 730pm", "en", "Remind me at 7:30 pm"),
        ("Set a timer for 1.5 hours", "en", "Set a timer for 1.5 hours"),
        ("Call 1230 people", "en", "Call 1230 people"),
        ("Stell einen Timer auf 5 Min.", "de", "Stell einen Timer auf 5 Minuten"),
        ("Ähm, wie spät ist es?", "de", "wie spät ist es"),
        ("Erinnere mich am Freitag", "de", "Erinnere mich am Freitag"),
        ("Erinnere mich um 7.30 Uhr", "de", "Erinnere mich um 7.30 Uhr"),
    ],
)
def test_a_transcript_is_made_the_form_the_templates_read(
    written: str, language: str, normal: str
) -> None:
    assert normalize(written, language) == normal


@pytest.mark.parametrize(
    ("written", "language", "intent"),
    [
        ("Set a timer for 5 mins.", "en", "HassStartTimer"),
        ("Set a timer for fifteen minutes.", "en", "HassStartTimer"),
        ("Set a timer for 15 minutes.", "en", "HassStartTimer"),
        ("Okay, what time is it?", "en", "HassGetCurrentTime"),
        ('"What time is it?"', "en", "HassGetCurrentTime"),
        ("Add milk to my to\u2011do list.", "en", "HassListAddItem"),
        ("Add milk to my to do list.", "en", "HassListAddItem"),
        ("Set the volume to 50 per cent.", "en", "HassSetVolume"),
        ("Ähm, wie spät ist es?", "de", "HassGetCurrentTime"),
    ],
)
def test_each_written_form_is_recognised_as_the_command(
    recognizer: HassilRecognizer, written: str, language: str, intent: str
) -> None:
    found = recognizer.recognize(written, language)
    assert found is not None
    assert found.intent == intent


@pytest.mark.parametrize(
    "written",
    ["Okay, which timer app is best for cooking?", "Well, what time is it in Tokyo?"],
)
def test_dropping_a_leading_okay_does_not_make_a_question_a_command(
    recognizer: HassilRecognizer, written: str
) -> None:
    assert recognizer.recognize(written, "en") is None
