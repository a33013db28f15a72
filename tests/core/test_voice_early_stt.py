"""A command's transcription begins in the pause that may end it (core/voice/early_stt.py).

Driven through the real pipeline on the in-memory fakes of ``voice_rig``: frames are fed by
the test, and the fake speech-to-text records every clip it was given and can be held.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aria_desktop.adapters.voice.audio import FRAME_BYTES
from aria_desktop.core.voice.states import VoiceState
from aria_desktop.domain.voice_events import SttEnd, SttVadEnd
from tests.core.voice_rig import SILENT, SPEECH, WAKE, Rig, running_rig

PAUSE_FRAMES = 4
"""Quiet frames until the pause (0.32 s >= 0.3 s); 9 end the command (0.72 s >= 0.7 s)."""
PREROLL_FRAMES = 1
"""The command's audio begins with the wake word's frame (nothing was heard before it)."""


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    async with running_rig(tmp_path) as made:
        yield made


async def test_the_transcription_begins_at_the_pause_and_the_endpoint_takes_it(rig: Rig) -> None:
    rig.stt.script.append("what time is it")
    rig.chat.script.append(["Noon."])
    rig.stt.gate.close()  # still transcribing when the endpoint comes
    rig.source.feed(WAKE, *[SPEECH] * 3, *[SILENT] * PAUSE_FRAMES)
    await rig.source.drained()
    await rig.until(lambda: len(rig.stt.heard) == 1)
    assert rig.pipeline.state is VoiceState.LISTENING, "begun before the command is known over"
    rig.source.feed(*[SILENT] * (9 - PAUSE_FRAMES))
    await rig.source.drained()
    await rig.event(SttVadEnd)
    rig.stt.gate.open()
    heard = await rig.event(SttEnd)
    assert heard.text == "what time is it"
    await rig.reach(VoiceState.WAKE)
    assert len(rig.stt.heard) == 1, "the command was transcribed once"
    assert len(rig.stt.heard[0].pcm) == (PREROLL_FRAMES + 3 + PAUSE_FRAMES) * FRAME_BYTES
    assert rig.stt.starts == ["fake wake"]


async def test_speech_after_the_pause_drops_the_early_transcription(rig: Rig) -> None:
    rig.stt.script += ["set a", "set a timer for five minutes"]
    rig.chat.script.append(["Done."])
    rig.source.feed(WAKE, *[SPEECH] * 3, *[SILENT] * PAUSE_FRAMES)
    await rig.source.drained()
    await rig.until(lambda: len(rig.stt.heard) == 1)
    rig.source.feed(*[SPEECH] * 2, *[SILENT] * 9)
    await rig.source.drained()
    heard = await rig.event(SttEnd)
    assert heard.text == "set a timer for five minutes", "the words said after the pause count"
    await rig.reach(VoiceState.WAKE)
    first, second = (len(clip.pcm) // FRAME_BYTES for clip in rig.stt.heard)
    assert (first, second) == (
        PREROLL_FRAMES + 3 + PAUSE_FRAMES,
        PREROLL_FRAMES + 3 + PAUSE_FRAMES + 2 + PAUSE_FRAMES,
    )
    vad_end = await rig.event(SttVadEnd)
    assert vad_end.audio_ms == pytest.approx((PREROLL_FRAMES + 3 + PAUSE_FRAMES + 2 + 9) * 80.0)


async def test_a_held_push_to_talk_is_transcribed_whole_at_its_release(rig: Rig) -> None:
    from aria_desktop.domain.commands import PushToTalk

    rig.stt.script.append("what time is it")
    rig.chat.script.append(["Noon."])
    await rig.orchestrator.handle(PushToTalk(action="press"))
    rig.source.feed(*[SPEECH] * 3, *[SILENT] * 12)
    await rig.source.drained()
    assert rig.stt.heard == [], "no pause is reported while the key is held"
    await rig.orchestrator.handle(PushToTalk(action="release"))
    await rig.event(SttEnd)
    assert len(rig.stt.heard) == 1
    assert len(rig.stt.heard[0].pcm) % FRAME_BYTES == 0
    assert len(rig.stt.heard[0].pcm) // FRAME_BYTES >= 3 + 12


class _StopListener:
    """A hands-free hook (a ringing timer's "stop") that takes the first thing it hears."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def active(self) -> bool:
        return not self.texts

    async def heard(self, text: str) -> bool:
        self.texts.append(text)
        return True


async def test_an_utterance_heard_without_the_wake_word_is_transcribed_once(rig: Rig) -> None:
    hook = _StopListener()
    rig.pipeline.hands_free = hook
    rig.stt.script.append("stop")
    rig.source.feed(SILENT, *[SPEECH] * 3, *[SILENT] * 9)
    await rig.source.drained()
    await rig.until(lambda: hook.texts == ["stop"])
    assert len(rig.stt.heard) == 1, "the transcription begun at the pause was taken"
