"""Voice settings changed while the pipeline runs (``VoicePipeline.replace_parts``): the new
parts load in the background and take over before the next utterance, an utterance in flight
finishes on the old ones, replaced engines are closed, a new microphone is opened, and the
pipeline never stops (real pipeline and orchestrator on the in-memory voice fakes)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aria_desktop.core.voice.parts import VoiceParts
from aria_desktop.core.voice.pipeline import VoiceState
from aria_desktop.core.voice.speech import SpeechService
from aria_desktop.domain.errors import VoiceModelError
from aria_desktop.domain.voice_events import SttEnd, VoiceLoadEnd
from tests.core.voice_rig import SILENT, WAKE, FakeSource, FakeStt, FakeTts, Rig, command, make_rig


class NamedStt(FakeStt):
    """A second speech-to-text engine that says whether it was loaded and closed."""

    def __init__(self, name: str, *, fail: bool = False) -> None:
        super().__init__()
        self.name = name
        self.loaded = self.closed = False
        self.fail = fail

    async def load(self) -> None:
        if self.fail:
            raise VoiceModelError("the model file is missing", hint="Run `aria doctor`.")
        self.loaded = True

    async def aclose(self) -> None:
        self.closed = True


class ClosingStt(FakeStt):
    """The rig's first engine, counting closes."""

    closed = False

    async def aclose(self) -> None:
        self.closed = True


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    made, db = await make_rig(tmp_path)
    old_stt = ClosingStt()
    made.pipeline.speech.stt = made.stt = old_stt
    await made.pipeline.start()
    await made.reach(VoiceState.WAKE)
    yield made
    await made.pipeline.stop()
    await made.orchestrator.stop()
    await made.close()
    await db.close()


def _with_stt(rig: Rig, stt: FakeStt, **parts: object) -> VoiceParts:
    current = rig.pipeline.parts
    speech = SpeechService(
        bus=rig.orchestrator.bus, tts=FakeTts(), stt=stt, sink=rig.sink, clock=rig.clock
    )
    return dataclasses.replace(current, speech=speech, **parts)  # type: ignore[arg-type]


async def _say(rig: Rig, stt: FakeStt, text: str) -> None:
    stt.script.append(text)
    rig.chat.script.append(["Fine."])
    # After the 2 s refractory time of the previous wake word (26 frames).
    rig.source.feed(*[SILENT] * 26, WAKE, *command())
    await rig.source.drained()


async def test_the_next_utterance_uses_the_new_speech_to_text(rig: Rig) -> None:
    new_stt = NamedStt("whisper-small-beam-1")
    await rig.pipeline.replace_parts(_with_stt(rig, new_stt))
    assert new_stt.loaded
    loaded = await rig.event(VoiceLoadEnd, lambda e: e.model == "whisper-small-beam-1")
    assert loaded.ok
    await _say(rig, new_stt, "What time is it")
    heard = await rig.event(SttEnd, lambda e: e.text == "What time is it")
    assert heard.engine == "whisper-small-beam-1"
    assert rig.stt.heard == []  # the old engine heard nothing
    await rig.until(lambda: rig.stt.closed)  # type: ignore[attr-defined]
    await rig.until(lambda: rig.sink.played == ["Fine."])  # spoken through the new service
    await rig.reach(VoiceState.WAKE)  # the pipeline went on listening


async def test_an_utterance_in_flight_finishes_on_the_old_engine(rig: Rig) -> None:
    new_stt = NamedStt("new-stt")
    rig.stt.gate.close()  # the old engine holds the first command in transcription
    await _say(rig, rig.stt, "first command")
    await rig.reach(VoiceState.TRANSCRIBING)
    await rig.pipeline.replace_parts(_with_stt(rig, new_stt))
    assert rig.pipeline.speech.stt is rig.stt  # not swapped mid-utterance
    rig.stt.gate.open()
    first = await rig.event(SttEnd, lambda e: e.text == "first command")
    assert first.engine == "fake-stt"
    await rig.reach(VoiceState.WAKE)
    await _say(rig, new_stt, "second command")
    second = await rig.event(SttEnd, lambda e: e.text == "second command")
    assert second.engine == "new-stt"


async def test_a_new_microphone_is_opened_without_stopping_the_pipeline(rig: Rig) -> None:
    old_source, new_source = rig.source, FakeSource()
    await rig.pipeline.replace_parts(
        _with_stt(rig, NamedStt("stt"), source_factory=lambda: new_source)
    )
    old_source.feed(b"\0\0" * 1280)  # the next frame: the change is taken over
    await rig.until(lambda: new_source.opened == 1)
    assert old_source.closed
    rig.source = new_source
    await rig.reach(VoiceState.WAKE)


async def test_a_part_that_fails_to_load_leaves_the_running_parts(rig: Rig) -> None:
    broken = NamedStt("broken", fail=True)
    await rig.pipeline.replace_parts(_with_stt(rig, broken))
    failed = await rig.event(VoiceLoadEnd, lambda e: e.model == "broken")
    assert not failed.ok
    await _say(rig, rig.stt, "still here")
    heard = await rig.event(SttEnd, lambda e: e.text == "still here")
    assert heard.engine == "fake-stt"
