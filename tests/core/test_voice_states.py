"""Every voice state transition, driven through the real pipeline on in-memory fakes.

No models, no sound devices, no wall clock: frames are fed by the test, the chat model, STT
and the output hold on gates the test opens, and time is a manual clock.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.voice.audio import FRAME_BYTES
from aria_desktop.core.voice.states import (
    IllegalVoiceTransition,
    VoiceState,
    VoiceStateMachine,
    allowed_transitions,
)
from aria_desktop.domain.commands import PushToTalk, SetMicrophoneMuted, StopEverything
from aria_desktop.domain.errors import (
    AriaError,
    SpeechRecognitionError,
    VoiceUnavailableError,
)
from aria_desktop.domain.events import ErrorEvent, RunEnd, RunStart
from aria_desktop.domain.voice_events import (
    SttEnd,
    SttStart,
    SttVadEnd,
    TtsEnd,
    VoiceLoadEnd,
    WakeEnd,
    WakeStart,
)
from tests.core.voice_rig import (
    SILENT,
    SPEECH,
    WAKE,
    Gate,
    Rig,
    ScanningWake,
    command,
    make_rig,
)

STOPPED, WAKING, LISTENING = VoiceState.STOPPED, VoiceState.WAKE, VoiceState.LISTENING
TRANSCRIBING, THINKING, SPEAKING = (
    VoiceState.TRANSCRIBING,
    VoiceState.THINKING,
    VoiceState.SPEAKING,
)
REFRACTORY_FRAMES = 26
"""Frames of audio after which the wake word counts again (2 s refractory time)."""

RigFactory = Callable[..., Awaitable[Rig]]


@pytest.fixture
async def rigs(tmp_path: Path) -> AsyncIterator[RigFactory]:
    made: list[tuple[Rig, Any]] = []

    async def make(**config: Any) -> Rig:
        folder = tmp_path / str(len(made))
        folder.mkdir()
        rig, db = await make_rig(folder, **config)
        made.append((rig, db))
        return rig

    yield make
    for rig, db in made:
        await rig.pipeline.stop()
        await rig.orchestrator.stop()
        await rig.close()
        await db.close()


async def waiting(rigs: RigFactory, **config: Any) -> Rig:
    """A started rig waiting for the wake word."""
    rig = await rigs(**config)
    await rig.pipeline.start()
    await rig.reach(WAKING)
    return rig


async def wake_and_say(rig: Rig, text: str, reply: list[str | Gate]) -> None:
    """The wake word and a command the fake STT hears as ``text``; ``reply`` is scripted."""
    rig.stt.script.append(text)
    rig.chat.script.append(reply)
    rig.source.feed(WAKE, *command())
    await rig.source.drained()


# --- the table ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("before", "after"), list(itertools.product(VoiceState, VoiceState)))
def test_only_listed_transitions_are_allowed(before: VoiceState, after: VoiceState) -> None:
    shown: list[str] = []
    machine = VoiceStateMachine(lambda state, _run_id: shown.append(state))
    machine._state = before
    if after in allowed_transitions(before):
        machine.transition(after)
        assert machine.state is after
        return
    with pytest.raises(IllegalVoiceTransition):
        machine.transition(after)
    assert machine.state is before
    assert shown == []


def test_muted_shows_instead_of_idle() -> None:
    shown: list[str] = []
    machine = VoiceStateMachine(lambda state, _run_id: shown.append(state))
    machine.set_muted(True)
    machine.transition(WAKING)
    machine.transition(STOPPED)
    machine.set_muted(False)
    assert shown == ["muted", "muted", "muted", "idle"]


# --- from stopped ------------------------------------------------------------------------------


async def test_start_opens_the_microphone_and_waits_for_the_wake_word(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    assert rig.transitions == [(STOPPED, WAKING)]
    assert rig.source.opened == 1
    await rig.event(WakeStart)
    assert rig.wake.resets == 1


async def test_a_file_command_runs_the_whole_cycle(rigs: RigFactory) -> None:
    rig = await rigs()
    rig.stt.script.append("What time is it")
    rig.chat.script.append(["It is noon. ", "Have a nice lunch."])
    await rig.pipeline.start(listen_immediately=True)
    rig.source.feed(*command())
    await rig.reach(WAKING)
    rig.source.end()
    await rig.pipeline.wait_source_ended(timeout_s=5)
    assert rig.transitions == [
        (STOPPED, LISTENING),
        (LISTENING, TRANSCRIBING),
        (TRANSCRIBING, THINKING),
        (THINKING, SPEAKING),
        (SPEAKING, SPEAKING),  # the second sentence
        (SPEAKING, SPEAKING),  # the turn ended while speaking: still speaking
        (SPEAKING, WAKING),
        (WAKING, STOPPED),
    ]
    await rig.settled()
    assert rig.visible() == ["listening", "thinking", "speaking", "idle"]
    start = await rig.event(SttStart)
    assert start.trigger == "file"
    assert rig.sink.played == ["It is noon.", "Have a nice lunch."]
    end = await rig.event(TtsEnd)
    assert (end.status, end.sentences) == ("complete", 2)


async def test_load_latency_is_measured_on_the_injected_clock(rigs: RigFactory) -> None:
    rig = await rigs()
    rig.wake.load_s = 1.5
    await rig.pipeline.start()
    await rig.pipeline.wait_ready(timeout_s=5)
    loaded = await rig.event(VoiceLoadEnd, lambda e: e.component == "wake")
    assert loaded.latency_ms == pytest.approx(1500.0)


# --- from waiting for the wake word -----------------------------------------------------------


async def test_the_wake_word_starts_a_command_with_the_whole_wake_phrase(
    rigs: RigFactory,
) -> None:
    rig = await waiting(rigs)
    rig.source.feed(*[SILENT] * 30, WAKE)
    await rig.source.drained()
    assert rig.after(WAKING) == [(WAKING, LISTENING)]
    wake = await rig.event(WakeEnd)
    assert (wake.detected, wake.name) == (True, "fake_wake")
    start = await rig.event(SttStart)
    assert start.trigger == "wake"
    rig.stt.script.append("")
    rig.source.feed(*command())
    await rig.source.drained()
    await rig.reach(WAKING)
    # 19 pre-roll frames (1.5 s, ending with the wake word) + 3 speech + 4 silent: the command
    # ended by silence is transcribed up to its pause (0.32 s), not the whole 9 silent frames
    assert len(rig.stt.heard[0].pcm) == 26 * FRAME_BYTES
    assert rig.stt.starts == ["fake wake"], "the transcription is told the audio's start"
    vad_end = await rig.event(SttVadEnd)
    assert vad_end.reason == "silence"
    assert vad_end.audio_ms == pytest.approx(31 * 80.0)


async def test_push_to_talk_keeps_half_a_second_before_the_press(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    rig.source.feed(*[SILENT] * 30)
    await rig.source.drained()
    await rig.orchestrator.handle(PushToTalk(action="toggle"))
    rig.stt.script.append("")
    rig.source.feed(*command())
    await rig.source.drained()
    await rig.reach(WAKING)
    # 6 pre-roll frames (0.5 s before the press) + 3 speech + 4 silent; no wake phrase
    assert len(rig.stt.heard[0].pcm) == 13 * FRAME_BYTES
    assert rig.stt.starts == [""]


async def test_held_push_to_talk_ends_only_at_the_release(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    await rig.orchestrator.handle(PushToTalk(action="press"))
    assert rig.pipeline.state is LISTENING
    rig.source.feed(SPEECH, *[SILENT] * 20)
    await rig.source.drained()
    assert rig.pipeline.state is LISTENING, "silence does not end a held command"
    rig.stt.script.append("")
    await rig.orchestrator.handle(PushToTalk(action="release"))
    assert rig.after(LISTENING)[0] == (LISTENING, TRANSCRIBING)
    vad_end = await rig.event(SttVadEnd)
    assert vad_end.reason == "released"


async def test_the_source_ending_stops_the_pipeline(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    rig.source.end()
    await rig.pipeline.wait_source_ended(timeout_s=5)
    assert rig.transitions[-1] == (WAKING, STOPPED)
    assert rig.pipeline.source_finished
    assert rig.source.closed
    await rig.settled()
    assert [e.detected for e in rig.events if isinstance(e, WakeEnd)] == [False]


# --- from listening ---------------------------------------------------------------------------


async def test_no_speech_returns_to_the_wake_word(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    rig.source.feed(WAKE, *[SILENT] * 5)  # no_speech_timeout_s = 0.4 s
    await rig.source.drained()
    assert rig.transitions[-2:] == [(WAKING, LISTENING), (LISTENING, WAKING)]
    vad_end = await rig.event(SttVadEnd)
    assert vad_end.reason == "no_speech"
    await rig.event(SttEnd, lambda e: e.text == "")
    assert rig.stt.heard == []
    await rig.settled()
    assert rig.visible() == ["listening", "idle"]


async def test_a_release_without_audio_returns_to_the_wake_word(rigs: RigFactory) -> None:
    rig = await waiting(rigs)  # nothing heard yet: the pre-roll is empty
    await rig.orchestrator.handle(PushToTalk(action="toggle"))
    await rig.orchestrator.handle(PushToTalk(action="toggle"))
    assert rig.transitions[-2:] == [(WAKING, LISTENING), (LISTENING, WAKING)]
    assert rig.stt.heard == []


async def test_the_kill_switch_drops_the_command(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    rig.source.feed(WAKE, SPEECH)
    await rig.source.drained()
    await rig.orchestrator.handle(StopEverything())
    assert rig.transitions[-1] == (LISTENING, WAKING)
    vad_end = await rig.event(SttVadEnd)
    assert vad_end.reason == "cancelled"


async def test_mute_while_listening_closes_the_microphone(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    rig.source.feed(WAKE, SPEECH)
    await rig.source.drained()
    assert await rig.orchestrator.handle(SetMicrophoneMuted(muted=True)) is True
    assert rig.transitions[-1] == (LISTENING, STOPPED)
    assert rig.source.closed
    assert rig.orchestrator.state == "muted"
    assert not {c.name: c for c in rig.orchestrator.capabilities()}["voice"].enabled
    with pytest.raises(VoiceUnavailableError, match="muted"):
        await rig.orchestrator.handle(PushToTalk(action="press"))
    assert await rig.orchestrator.handle(SetMicrophoneMuted(muted=False)) is False
    await rig.reach(WAKING)
    assert rig.transitions[-1] == (STOPPED, WAKING)
    assert rig.source.opened == 2
    await rig.settled()
    assert rig.visible()[-2:] == ["muted", "idle"]


async def test_a_failing_microphone_stops_and_says_why(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    rig.source.feed(WAKE, SPEECH)
    rig.source.fail(AriaError("The microphone was unplugged."))
    await rig.pipeline.wait_source_ended(timeout_s=5)
    assert rig.transitions[-1] == (LISTENING, STOPPED)
    error = await rig.event(ErrorEvent)
    assert "unplugged" in error.message
    status = {c.name: c for c in rig.orchestrator.capabilities()}["voice"]
    assert not status.available
    assert "unplugged" in status.reason
    assert rig.orchestrator.state == "idle"


# --- from transcribing ------------------------------------------------------------------------


async def test_nothing_intelligible_returns_to_the_wake_word(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    rig.stt.script.append("Hey Jarvis.")  # only the wake phrase the pre-roll carried in
    rig.source.feed(WAKE, *command())
    await rig.source.drained()
    await rig.reach(WAKING)
    assert rig.after(TRANSCRIBING) == [(TRANSCRIBING, WAKING)]
    assert rig.chat.requests == []


async def test_a_transcription_failure_is_reported_and_returns(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    rig.stt.script.append(SpeechRecognitionError("Speech-to-text failed."))
    rig.source.feed(WAKE, *command())
    await rig.source.drained()
    await rig.reach(WAKING)
    assert rig.after(TRANSCRIBING) == [(TRANSCRIBING, WAKING)]
    error = await rig.event(ErrorEvent)
    assert error.code == "stt_failed"
    await rig.event(SttEnd, lambda e: e.text == "")


async def test_push_to_talk_interrupts_a_transcription(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    rig.stt.gate.close()
    rig.stt.script.append("Never used")
    rig.source.feed(WAKE, *command())
    await rig.source.drained()
    await rig.reach(TRANSCRIBING)
    await rig.orchestrator.handle(PushToTalk(action="press"))
    assert rig.after(TRANSCRIBING) == [(TRANSCRIBING, LISTENING)]
    await rig.settled()
    starts = [e.trigger for e in rig.events if isinstance(e, SttStart)]
    assert starts[-1] == "push-to-talk"
    rig.stt.gate.open()
    await rig.pipeline.stop()
    assert rig.chat.requests == [], "the interrupted command never became a turn"


async def test_a_file_that_ends_in_a_command_stops_after_it(rigs: RigFactory) -> None:
    rig = await rigs()
    rig.stt.script.append("")
    await rig.pipeline.start(listen_immediately=True)
    rig.source.feed(SPEECH, SPEECH)
    rig.source.end()
    await rig.pipeline.wait_source_ended(timeout_s=5)
    assert rig.transitions == [
        (STOPPED, LISTENING),
        (LISTENING, TRANSCRIBING),
        (TRANSCRIBING, STOPPED),
    ]
    vad_end = await rig.event(SttVadEnd)
    assert vad_end.reason == "end_of_audio"


# --- from thinking ----------------------------------------------------------------------------


async def test_the_wake_word_cancels_a_turn_that_is_still_thinking(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    held = Gate()
    held.close()
    await wake_and_say(rig, "Tell me a story", [held, "Once upon a time."])
    await rig.event(RunStart)
    await rig.reach(THINKING)
    rig.source.feed(*[SILENT] * REFRACTORY_FRAMES, WAKE)
    await rig.source.drained()
    assert rig.after(THINKING) == [(THINKING, LISTENING)]
    end = await rig.event(RunEnd)
    assert end.status == "cancelled"
    await rig.settled()
    assert [e.detected for e in rig.events if isinstance(e, WakeEnd)] == [True, True]
    assert rig.sink.played == []


async def test_the_kill_switch_cancels_a_thinking_turn(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    held = Gate()
    held.close()
    await wake_and_say(rig, "Tell me a story", [held, "Once upon a time."])
    await rig.event(RunStart)
    assert rig.pipeline.state is THINKING
    await rig.orchestrator.handle(StopEverything())
    assert rig.after(THINKING) == [(THINKING, WAKING)]
    end = await rig.event(RunEnd)
    assert end.status == "cancelled"


async def test_stop_while_thinking_stops(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    held = Gate()
    held.close()
    await wake_and_say(rig, "Tell me a story", [held])
    await rig.event(RunStart)
    assert rig.pipeline.state is THINKING
    await rig.pipeline.stop()
    assert rig.after(THINKING) == [(THINKING, STOPPED)]
    assert rig.source.closed
    assert rig.wake.closed


# --- from speaking ----------------------------------------------------------------------------


async def test_a_follow_up_listens_without_the_wake_word(rigs: RigFactory) -> None:
    rig = await waiting(rigs, follow_up_s=0.4)
    await wake_and_say(rig, "Set a timer", ["Done."])
    await rig.reach(LISTENING)
    assert rig.after(SPEAKING) == [(SPEAKING, LISTENING)]
    await rig.settled()
    start = [e for e in rig.events if isinstance(e, SttStart)][-1]
    assert start.trigger == "follow-up"
    rig.source.feed(*[SILENT] * 5)  # the follow-up wait: 0.4 s
    await rig.source.drained()
    assert rig.transitions[-1] == (LISTENING, WAKING)


async def test_a_follow_up_continues_the_conversation_until_it_went_idle(
    rigs: RigFactory,
) -> None:
    rig = await waiting(rigs, follow_up_s=2.0, conversation_idle_s=300.0)
    await wake_and_say(rig, "Set a timer", ["Done."])
    await rig.reach(LISTENING)
    rig.stt.script.append("Thanks")
    rig.chat.script.append(["You are welcome."])
    rig.source.feed(*command())
    await rig.until(lambda: rig.types().count("run-end") == 2)
    await rig.reach(LISTENING)
    rig.clock.now += 301.0  # the injected clock: the conversation went idle
    rig.stt.script.append("New topic")
    rig.chat.script.append(["Sure."])
    rig.source.feed(*command())
    await rig.until(lambda: rig.types().count("run-end") == 3)
    runs = [e for e in rig.events if isinstance(e, RunStart)]
    assert runs[0].conversation_id == runs[1].conversation_id
    assert runs[2].conversation_id != runs[1].conversation_id


async def test_the_wake_word_interrupts_speech_after_the_turn_completed(
    rigs: RigFactory,
) -> None:
    """The reply streamed completely before the user interrupted: the turn's ``run-end`` was
    ``complete`` already, and only the speech ends ``interrupted``."""
    rig = await waiting(rigs)
    rig.sink.playing.close()  # the reply is still being played
    await wake_and_say(rig, "Tell me a story", ["Once upon a time. ", "The end."])
    done = await rig.event(RunEnd)
    await rig.reach(SPEAKING)
    # ARIA's own voice is playing now (this detector cannot scan it): ignored
    rig.source.feed(*[SILENT] * REFRACTORY_FRAMES, WAKE)
    await rig.source.drained()
    assert rig.pipeline.state is SPEAKING
    rig.clock.now += 60.0  # long after the playback ARIA queued
    rig.source.feed(WAKE)
    await rig.source.drained()
    assert rig.after(SPEAKING)[-1] == (SPEAKING, LISTENING)
    spoken = await rig.event(TtsEnd)
    assert spoken.status == "interrupted"
    assert done.status == "complete"
    assert rig.types().count("run-end") == 1
    assert rig.sink.stops >= 1


async def test_mute_while_speaking_lets_the_reply_finish_then_stops(rigs: RigFactory) -> None:
    rig = await waiting(rigs)
    rig.sink.playing.close()
    await wake_and_say(rig, "Tell me a story", ["Once upon a time."])
    await rig.reach(SPEAKING)
    await rig.orchestrator.handle(SetMicrophoneMuted(muted=True))
    assert rig.pipeline.state is SPEAKING, "the answer is still spoken"
    assert rig.source.closed
    rig.sink.playing.open()
    await rig.reach(STOPPED)
    assert rig.after(SPEAKING) == [(SPEAKING, STOPPED)]
    assert rig.orchestrator.state == "muted"
    spoken = await rig.event(TtsEnd)
    assert spoken.status == "complete"


async def test_aria_saying_the_wake_word_does_not_interrupt_it(rigs: RigFactory) -> None:
    rig = await waiting(rigs, scanning=True)
    wake = rig.wake
    assert isinstance(wake, ScanningWake)
    wake.offsets = [0.05]  # ARIA's own reply says the wake word 50 ms into the piece
    rig.sink.playing.close()
    await wake_and_say(rig, "How do I wake you", ["Just say hey Jarvis."])
    await rig.reach(SPEAKING)
    await rig.until(lambda: wake.scanned == ["Just say hey Jarvis."])
    rig.source.feed(*[SILENT] * REFRACTORY_FRAMES, WAKE)  # the room hears ARIA say it
    await rig.source.drained()
    assert rig.pipeline.state is SPEAKING
    rig.clock.now += 10.0  # later: the user says it
    rig.source.feed(WAKE)
    await rig.source.drained()
    assert rig.after(SPEAKING) == [(SPEAKING, LISTENING)]
