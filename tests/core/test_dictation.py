"""Dictation through the real voice pipeline (core/voice/dictation.py) on the rig's fakes.

The typing end is the computer capability's ``TypeText`` command; here a recorder stands in
for it (the real one, with the real policy and input, is tested under Xvfb and sway in
tests/computer/test_dictation_desktop.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aria_desktop.core.voice.states import VoiceState
from aria_desktop.domain.commands import PushToTalk, TypeText
from aria_desktop.domain.computer import ComputerActionOutcome
from aria_desktop.domain.dictation import DICTATION_PROMPT
from aria_desktop.domain.events import RunStart
from aria_desktop.domain.voice_events import DictationEnd, SttStart
from tests.core.voice_rig import SILENT, SPEECH, WAKE, Rig, command, running_rig


class Typist:
    """Records what would be typed; answers with the outcome the test sets."""

    def __init__(self) -> None:
        self.typed: list[TypeText] = []
        self.outcome = ComputerActionOutcome(status="ok", action={"kind": "type"}, detail="typed")

    async def __call__(self, command: TypeText) -> ComputerActionOutcome:
        self.typed.append(command)
        return self.outcome


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    async with running_rig(tmp_path) as made:
        yield made


@pytest.fixture
def typist(rig: Rig) -> Typist:
    typing = Typist()
    rig.orchestrator.register_command(TypeText, typing)
    return typing


async def dictate(rig: Rig, heard: str) -> DictationEnd:
    """Hold the dictation key over some speech; the outcome of the dictation."""
    rig.stt.script.append(heard)
    seen = len(rig.events)
    await rig.orchestrator.handle(PushToTalk(action="press", purpose="dictate"))
    rig.source.feed(*[SPEECH] * 3, *[SILENT] * 12)
    await rig.source.drained()
    await rig.orchestrator.handle(PushToTalk(action="release", purpose="dictate"))
    ended = await rig.event(DictationEnd, lambda e: rig.events.index(e) >= seen)
    await rig.reach(VoiceState.WAKE)
    return ended


async def test_held_dictation_types_the_words_with_spoken_punctuation_and_asks_nothing(
    rig: Rig, typist: Typist
) -> None:
    ended = await dictate(rig, "Dear Anna comma new line see you soon full stop")
    assert ended.status == "typed"
    assert [c.text for c in typist.typed] == ["Dear Anna,\nSee you soon."]
    assert typist.typed[0].source == "dictation"
    assert rig.stt.prompts == [DICTATION_PROMPT], "Whisper is told to expect spoken marks"
    assert not any(isinstance(e, RunStart) for e in rig.events), "no turn: nothing asked"
    started = await rig.event(SttStart)
    assert started.trigger == "dictation"


async def test_a_second_dictation_continues_the_first(rig: Rig, typist: Typist) -> None:
    await dictate(rig, "It works.")
    rig.clock.now += 5
    await dictate(rig, "really")
    assert [c.text for c in typist.typed] == ["It works.", " Really"]
    rig.clock.now += 600
    await dictate(rig, "later")
    assert typist.typed[-1].text == "later", "a minute on, it starts afresh"


async def test_a_refused_field_gets_nothing_and_the_person_is_told_why(
    rig: Rig, typist: Typist
) -> None:
    typist.outcome = ComputerActionOutcome(
        status="denied", action={"kind": "type"}, rule="password-field", detail="refused"
    )
    ended = await dictate(rig, "hunter2")
    assert ended.status == "refused"
    assert ended.text == ""
    assert ended.detail == "Nothing was typed: the focused field is a password field."


async def test_a_refusal_names_no_rule(rig: Rig, typist: Typist) -> None:
    typist.outcome = ComputerActionOutcome(
        status="denied",
        action={"kind": "type"},
        rule="context:display_unavailable",
        detail="Refused by the safety policy (rule context:display_unavailable): "
        "There is no desktop display to type into.",
    )
    ended = await dictate(rig, "hello")
    assert ended.detail == "Nothing was typed: There is no desktop display to type into."


async def test_silence_types_nothing(rig: Rig, typist: Typist) -> None:
    ended = await dictate(rig, "")
    assert ended.status == "nothing-heard"
    assert typist.typed == []


async def test_without_a_keyboard_path_dictation_says_so_in_plain_words(rig: Rig) -> None:
    ended = await dictate(rig, "hello")
    assert ended.status == "failed"
    assert "keyboard" in ended.detail
    assert "`" not in ended.detail
    assert "computer." not in ended.detail


async def test_saying_dictate_after_the_wake_word_types_the_next_words(
    rig: Rig, typist: Typist
) -> None:
    rig.stt.script += ["Dictate.", "Back in ten minutes."]
    rig.source.feed(WAKE, *command())
    started = await rig.event(SttStart, lambda e: e.trigger == "dictation")
    assert started.trigger == "dictation"
    rig.source.feed(*command())
    ended = await rig.event(DictationEnd)
    assert ended.text == "Back in ten minutes."
    assert [c.text for c in typist.typed] == ["Back in ten minutes."]
    assert not any(isinstance(e, RunStart) for e in rig.events), "no turn for either"
    await rig.reach(VoiceState.WAKE)


async def test_a_question_about_dictating_goes_to_the_model(rig: Rig, typist: Typist) -> None:
    rig.stt.script.append("Hey Jarvis, how do I dictate in Word?")
    rig.chat.script.append(["Use the Dictate button on the Home tab."])
    rig.source.feed(WAKE, *command())
    await rig.event(RunStart)
    await rig.reach(VoiceState.WAKE)
    assert typist.typed == []
    assert not any(isinstance(e, SttStart) and e.trigger == "dictation" for e in rig.events)
