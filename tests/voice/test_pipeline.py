"""The voice pipeline end to end: real models, real orchestrator and SQLite, the Ollama test
server over HTTP, WAV sources and sinks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from aria_desktop.adapters.llm import BreakerPolicy, OllamaBackend, RetryPolicy, Router, Timeouts
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.voice.audio import (
    FRAME_BYTES,
    WavSink,
    WavSource,
    pcm_to_int16,
    read_wav,
    to_pipeline_pcm,
)
from aria_desktop.adapters.voice.devices import MicrophoneSource, SpeakerSink
from aria_desktop.adapters.voice.piper_tts import PiperTTS
from aria_desktop.adapters.voice.wakeword import OpenWakeWordDetector
from aria_desktop.adapters.voice.whisper import SileroVAD, WhisperSTT
from aria_desktop.adapters.voice.wyoming_client import WyomingWakeWord
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.voice.pipeline import VoiceConfig, VoicePipeline, VoiceState
from aria_desktop.core.voice.speech import SpeechService
from aria_desktop.domain.audio import FRAME_SAMPLES, PIPELINE_RATE_HZ
from aria_desktop.domain.commands import (
    PushToTalk,
    SetMicrophoneMuted,
    Speak,
    StopEverything,
    Transcribe,
)
from aria_desktop.domain.errors import VoiceUnavailableError
from aria_desktop.domain.events import Event, LlmThinking, RunEnd, StateChanged
from aria_desktop.domain.voice_events import SttEnd, SttStart, TtsEnd, TtsStart, WakeEnd
from tests.fakes import FakeOllama
from tests.fakes.audit import MemoryAuditStore
from tests.fakes.http_server import Hang, Send
from tests.fakes.ollama_server import chat_line, done_line, ollama_stream, ollama_text, text_steps
from tests.voice.conftest import SpeechMaker
from tests.voice.pulse import PulseServer
from tests.voice.wer import normalize

FAST = Timeouts(connect_s=1.0, first_token_s=5.0, stall_s=5.0, total_s=30.0)
PATIENT = Timeouts(connect_s=1.0, first_token_s=5.0, stall_s=120.0, total_s=120.0)
"""For a reply stream that stays open until the turn is cancelled."""


class LiveSource:
    """A microphone stand-in: real-time frames of silence, plus clips injected on demand.

    The pacing sleep stands for the sound card's clock (frames arrive every 80 ms); tests
    synchronise on what the source delivered (``consumed``, ``frames_later``), never on time.
    """

    def __init__(self) -> None:
        self.pending = bytearray()
        self.closed = False
        self.opened = 0
        self.delivered = 0
        self._progress = asyncio.Event()
        self._consumed = asyncio.Event()

    @property
    def name(self) -> str:
        return "live"

    def inject(self, path: Path) -> None:
        self.pending += to_pipeline_pcm(read_wav(path))
        self._consumed.clear()

    async def consumed(self, timeout_s: float = 30.0) -> None:
        """Wait until every injected frame has been delivered and handled by the pipeline."""
        async with asyncio.timeout(timeout_s):
            await self._consumed.wait()

    async def frames_later(self, count: int, timeout_s: float = 30.0) -> None:
        """Wait until ``count`` more frames have been delivered (``count`` x 80 ms of audio)."""
        target = self.delivered + count
        async with asyncio.timeout(timeout_s):
            while self.delivered < target:
                self._progress.clear()
                await self._progress.wait()

    async def frames(self) -> AsyncGenerator[bytes, None]:
        self.opened += 1
        self.closed = False
        started = time.monotonic()
        index = 0
        try:
            while True:
                due = started + index * FRAME_SAMPLES / PIPELINE_RATE_HZ
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                index += 1
                if self.pending:
                    frame = bytes(self.pending[:FRAME_BYTES]).ljust(FRAME_BYTES, b"\0")
                    del self.pending[:FRAME_BYTES]
                else:
                    # the consumer asks for the next frame only after handling the last one
                    self._consumed.set()
                    frame = b"\0" * FRAME_BYTES
                self.delivered += 1
                self._progress.set()
                yield frame
        finally:
            self.closed = True


class OutputWatch:
    """Counts what a paced sink emits, so a test can wait for an amount of played speech."""

    def __init__(self, sink: Any) -> None:
        self.sink = sink
        self._progress = asyncio.Event()
        emit = sink._emit

        def counted(block: bytes) -> None:
            emit(block)
            self._progress.set()

        sink._emit = counted

    async def played(self, seconds: float, timeout_s: float = 30.0) -> None:
        """Wait until ``seconds`` of speech have been emitted."""
        target = int(seconds * self.sink.rate_hz) * 2
        async with asyncio.timeout(timeout_s):
            while self.sink.emitted_bytes < target:
                self._progress.clear()
                await self._progress.wait()


class Tap:
    """A source that keeps what it delivers, so a test can wait for and inspect frames."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.recorded: list[bytes] = []
        self._progress = asyncio.Event()

    @property
    def name(self) -> str:
        return str(self.source.name)

    async def frames(self) -> AsyncGenerator[bytes, None]:
        frames = self.source.frames()
        try:
            async for frame in frames:
                self.recorded.append(frame)
                self._progress.set()
                yield frame
        finally:
            await frames.aclose()

    async def frames_later(self, count: int, timeout_s: float = 30.0) -> None:
        """Wait until the microphone has delivered ``count`` more frames."""
        target = len(self.recorded) + count
        async with asyncio.timeout(timeout_s):
            while len(self.recorded) < target:
                self._progress.clear()
                await self._progress.wait()


class Rig:
    def __init__(self, orchestrator: Orchestrator, pipeline: VoicePipeline, sink: Any) -> None:
        self.orchestrator = orchestrator
        self.pipeline = pipeline
        self.sink = sink
        self.events: list[Event] = []
        self._arrived = asyncio.Event()
        self._sub = orchestrator.bus.subscribe()
        self._task = asyncio.create_task(self._collect())

    async def _collect(self) -> None:
        async for event in self._sub:
            if event.type != "audio-level":
                self.events.append(event)
                self._arrived.set()

    async def wait_for(self, predicate: Callable[[Event], bool], timeout_s: float = 30.0) -> Event:
        """The first event (already seen or still to come) that matches ``predicate``."""
        async with asyncio.timeout(timeout_s):
            while True:
                for event in self.events:
                    if predicate(event):
                        return event
                self._arrived.clear()
                await self._arrived.wait()

    def types(self) -> list[str]:
        return [e.type for e in self.events]

    def after(self, earlier: Event, later: Event) -> bool:
        """Whether ``later`` was published after ``earlier``."""
        return self.events.index(later) > self.events.index(earlier)

    async def close(self) -> None:
        self._sub.close()
        await self._task


@pytest.fixture
async def rig_factory(
    tmp_path: Path, piper: PiperTTS, whisper: WhisperSTT
) -> AsyncIterator[Callable[..., Any]]:
    made: list[tuple[Rig, Router, Database]] = []
    ollama = FakeOllama()
    ollama.__enter__()

    async def make(
        source_factory: Any,
        *,
        realtime_sink: bool = False,
        sink: Any = None,
        wake: Any = None,
        timeouts: Timeouts = FAST,
        **config: Any,
    ) -> tuple[Rig, FakeOllama]:
        db = await Database.open(tmp_path / f"aria{len(made)}.db")
        router = Router(
            {"ollama": OllamaBackend(base_url=ollama.url, model="llama3.2", timeouts=timeouts)},
            {"chat": ("ollama",)},
            retry=RetryPolicy(max_attempts=1, base_delay_s=0.0, max_delay_s=0.0),
            breaker=BreakerPolicy(failure_threshold=5, reset_s=30.0),
        )
        orchestrator = Orchestrator(
            model=router,
            store=SQLiteConversationStore(db),
            audit=AuditLog(MemoryAuditStore()),
            config=AgentConfig(flush_interval_s=0.05),
        )
        if sink is None:
            sink = WavSink(tmp_path / f"reply{len(made)}.wav", realtime=realtime_sink)
        speech = SpeechService(bus=orchestrator.bus, tts=piper, stt=whisper, sink=sink)
        if wake is None:
            wake = OpenWakeWordDetector(("hey_jarvis",), threshold=0.5)
        pipeline = VoicePipeline(
            orchestrator=orchestrator,
            speech=speech,
            wake=wake,
            vad=SileroVAD(),
            source_factory=source_factory,
            config=VoiceConfig(**{"follow_up_s": 0.0, **config}),
        )
        pipeline.install()
        rig = Rig(orchestrator, pipeline, sink)
        made.append((rig, router, db))
        return rig, ollama

    yield make
    for rig, router, db in made:
        rig.pipeline.speech.tts = None  # shared session models stay loaded
        rig.pipeline.speech.stt = None
        await rig.pipeline.stop()
        await rig.orchestrator.stop()
        await rig.close()
        await router.aclose()
        await db.close()
    ollama.__exit__(None, None, None)


def in_order(types: Sequence[str], expected: Sequence[str]) -> bool:
    it = iter(types)
    return all(any(t == want for t in it) for want in expected)


@pytest.mark.slow
async def test_full_voice_turn_from_a_wav(
    rig_factory: Any, say_piper: SpeechMaker, whisper: WhisperSTT, tmp_path: Path
) -> None:
    # Steady speech: the pre-roll carries the wake word's tail into the command, and one
    # random Piper draw in CI made Whisper write it as "service" (not a wake phrase to strip).
    wav = say_piper("Hey Jarvis.", "What is the weather like today?", pause_s=0.4, steady=True)
    rig, ollama = await rig_factory(lambda: WavSource(wav, trailing_silence_s=1.5))
    reply = "It is sunny and warm today. Enjoy the nice weather!"
    ollama.script("/api/chat", ollama_text(reply, chunks=6))
    await rig.pipeline.start()
    await rig.pipeline.wait_source_ended(timeout_s=60)
    await rig.sink.aclose()

    types = rig.types()
    assert in_order(
        types,
        [
            "voice-load-start",
            "voice-load-end",
            "wake-start",
            "wake-end",
            "stt-start",
            "stt-vad-start",
            "stt-vad-end",
            "stt-end",
            "run-start",
            "llm-delta",
            "tts-start",
            "tts-end",
        ],
    ), types
    assert types.count("run-start") == 1
    wake_end = next(e for e in rig.events if isinstance(e, WakeEnd) and e.detected)
    assert wake_end.name == "hey_jarvis"
    assert wake_end.score >= 0.5
    stt_end = next(e for e in rig.events if isinstance(e, SttEnd))
    assert "weather like today" in " ".join(normalize(stt_end.text))
    run_start = next(e for e in rig.events if e.type == "run-start")
    assert run_start.source == "voice"
    assert normalize(run_start.text)[:2] == ["what", "is"]
    sent = ollama.requests[-1].json()["messages"][-1]["content"]
    assert "jarvis" not in sent.lower()
    run_end = next(e for e in rig.events if isinstance(e, RunEnd))
    assert run_end.status == "complete"
    tts_end = next(e for e in rig.events if isinstance(e, TtsEnd))
    assert tts_end.status == "complete"
    assert tts_end.sentences == 2
    assert tts_end.first_audio_ms is not None
    # per-stage timestamps are all there and in order
    stamps = [e.ts for e in rig.events if e.type in ("stt-vad-end", "stt-end", "tts-start")]
    assert stamps == sorted(stamps)
    states = [e.state for e in rig.events if isinstance(e, StateChanged)]
    assert in_order(states, ["listening", "thinking", "speaking", "idle"]), states

    # the reply WAV, transcribed back, says the reply
    heard = await whisper.transcribe(read_wav(rig.sink.path))
    words = normalize(heard.text)  # Piper varies its voice run to run: check the key words
    assert "sunny" in words, heard.text
    assert "warm" in words, heard.text
    assert "weather" in words, heard.text


@pytest.mark.slow
@pytest.mark.parametrize("voice", ["piper", "espeak-ng"])
async def test_a_command_said_in_one_breath_after_the_wake_word_reaches_the_model_as_said(
    voice: str, rig_factory: Any, say_piper: SpeechMaker, say_espeak: Callable[[str], Path]
) -> None:
    # With only the wake phrase's tail in its audio, these commands reached the model as
    # "service, set a timer …" (Piper) and "of its lock in the screen …" (espeak-ng): the
    # command now keeps the whole phrase, and the decoding is told it begins with it.
    if voice == "piper":
        command = "Set a timer for twenty five minutes."
        wav = say_piper("Hey Jarvis, set a timer for twenty five minutes.", steady=True)
    else:
        command = "Lock the screen in five minutes."
        wav = say_espeak("Hey Jarvis, lock the screen in five minutes.")
    rig, ollama = await rig_factory(lambda: WavSource(wav, trailing_silence_s=1.5))
    ollama.script("/api/chat", ollama_text("Done.", chunks=1))
    await rig.pipeline.start()
    await rig.pipeline.wait_source_ended(timeout_s=60)
    await rig.sink.aclose()

    run_start = next(e for e in rig.events if e.type == "run-start")
    # nothing before the command's first word (how the rest is heard is the benchmark's part)
    assert normalize(run_start.text)[0] == normalize(command)[0], run_start.text


@pytest.mark.slow
async def test_wake_word_cuts_speech_mid_sentence_cancels_the_turn_and_listens(
    rig_factory: Any, say_piper: SpeechMaker
) -> None:
    """How fast the output falls silent is a figure of ``aria bench voice`` (interruption);
    this test proves what happens, on any machine load."""
    source = LiveSource()
    # The model is still writing when the user interrupts: the reply's text has streamed, but
    # the stream stays open (as a slow model's would), so the wake word must cancel the turn.
    # (A turn whose reply had streamed completely ends "complete" and only its speech is
    # interrupted: tests/core/test_voice_states.py covers that.)
    rig, ollama = await rig_factory(lambda: source, realtime_sink=True, timeouts=PATIENT)
    long_reply = " ".join(
        f"This is sentence number {n} of a long answer that goes on and on." for n in range(12)
    )
    ollama.script("/api/chat", ollama_stream([*text_steps(long_reply, chunks=24), Hang()]))
    ollama.script("/api/chat", ollama_text("Stopped.", chunks=1))
    output = OutputWatch(rig.sink)
    await rig.pipeline.start()
    await rig.pipeline.wait_ready(timeout_s=60)
    await rig.wait_for(lambda e: e.type == "wake-start")
    source.inject(say_piper("Hey Jarvis.", "Tell me a long story.", pause_s=0.3))
    await rig.wait_for(lambda e: isinstance(e, TtsStart))
    await output.played(1.5)  # ARIA is mid-sentence now
    assert rig.pipeline.state is VoiceState.SPEAKING
    assert not any(isinstance(e, TtsEnd | RunEnd) for e in rig.events), "still answering"
    source.inject(say_piper("Hey Jarvis."))
    wake = await rig.wait_for(
        lambda e: (
            isinstance(e, WakeEnd)
            and e.detected
            and e.ts > rig.events[0].ts + 0.1
            and any(isinstance(x, TtsStart) for x in rig.events[: rig.events.index(e)])
        ),
        timeout_s=10,
    )
    interrupted = await rig.wait_for(lambda e: isinstance(e, TtsEnd), timeout_s=5)
    assert isinstance(interrupted, TtsEnd)
    assert interrupted.status == "interrupted"
    assert rig.after(wake, interrupted), "the wake word is what ended the speech"
    # mid-sentence: speech handed to the output was dropped, not played to its end
    played_ms = rig.sink.emitted_bytes / 2 / rig.sink.rate_hz * 1000
    assert 1500 <= played_ms < interrupted.audio_ms, (played_ms, interrupted.audio_ms)
    emitted = rig.sink.emitted_bytes
    await source.frames_later(4)  # 0.32 s more of the microphone's audio
    assert rig.sink.emitted_bytes == emitted, "output must stay silent"
    # listening again, and the interrupted turn was cancelled
    after = rig.events[rig.events.index(wake) :]
    assert any(isinstance(e, SttStart) and e.trigger == "wake" for e in after)
    first_run_end = await rig.wait_for(lambda e: isinstance(e, RunEnd), timeout_s=10)
    assert isinstance(first_run_end, RunEnd)
    assert first_run_end.status == "cancelled"


@pytest.mark.slow
async def test_aria_saying_the_wake_word_does_not_wake_it(
    rig_factory: Any, say_piper: SpeechMaker, tmp_path: Path
) -> None:
    """The speaker's sound reaches the microphone (loopback): ARIA's own "Hey Jarvis" in a
    reply must not interrupt it."""
    source = LiveSource()
    rig, ollama = await rig_factory(lambda: source, realtime_sink=True)
    sink = rig.sink
    original_emit = sink._emit

    def loopback(block: bytes) -> None:  # the room: what the speaker plays, the mic hears
        from aria_desktop.adapters.voice.audio import resample_pcm

        original_emit(block)
        source.pending += resample_pcm(block, sink.rate_hz, PIPELINE_RATE_HZ)

    sink._emit = loopback
    ollama.script(
        "/api/chat",
        ollama_text("Sure. Just say hey Jarvis whenever you need me. I am always here.", chunks=5),
    )
    await rig.pipeline.start()
    await rig.pipeline.wait_ready(timeout_s=60)
    await rig.wait_for(lambda e: e.type == "wake-start")
    source.inject(say_piper("Hey Jarvis.", "How do I wake you?", pause_s=0.3))
    end = await rig.wait_for(lambda e: isinstance(e, TtsEnd), timeout_s=30)
    assert isinstance(end, TtsEnd)
    assert end.status == "complete", rig.types()
    detections = [e for e in rig.events if isinstance(e, WakeEnd) and e.detected]
    assert len(detections) == 1, "only the user's wake word counts"


@pytest.mark.slow
async def test_mute_push_to_talk_and_follow_up(rig_factory: Any, say_piper: SpeechMaker) -> None:
    source = LiveSource()
    rig, ollama = await rig_factory(lambda: source, follow_up_s=3.0)
    orch = rig.orchestrator
    ollama.script("/api/chat", ollama_text("Ten minutes, starting now.", chunks=2))
    ollama.script("/api/chat", ollama_text("You are welcome.", chunks=2))
    await rig.pipeline.start()
    await rig.pipeline.wait_ready(timeout_s=60)
    await rig.wait_for(lambda e: e.type == "wake-start")
    status = {c.name: c for c in orch.capabilities()}["voice"]
    assert status.available
    assert status.enabled

    # mute closes the capture stream; push-to-talk then refuses clearly
    assert await orch.handle(SetMicrophoneMuted(muted=True)) is True
    assert source.closed
    assert orch.state == "muted"
    muted = await rig.wait_for(lambda e: isinstance(e, StateChanged) and e.state == "muted")
    assert not {c.name: c for c in orch.capabilities()}["voice"].enabled
    with pytest.raises(VoiceUnavailableError, match="muted"):
        await orch.handle(PushToTalk(action="press"))
    await orch.handle(SetMicrophoneMuted(muted=False))
    await rig.wait_for(lambda e: isinstance(e, StateChanged) and e.state == "idle")
    await rig.wait_for(lambda e: e.type == "wake-start" and rig.after(muted, e))  # reopened
    assert source.opened == 2
    closed_now: bool = source.closed  # a new read (mypy keeps the narrowing from above)
    assert not closed_now

    # hold-to-talk: press, speak, release
    await orch.handle(PushToTalk(action="press"))
    source.inject(say_piper("Set a timer for ten minutes.", lead_s=0.1))
    await source.consumed()  # the whole command was heard while the button was held
    await orch.handle(PushToTalk(action="release"))
    first = await rig.wait_for(lambda e: isinstance(e, SttEnd) and bool(e.text), timeout_s=20)
    assert "timer" in first.text.lower()
    ptt = next(e for e in rig.events if isinstance(e, SttStart))
    assert ptt.trigger == "push-to-talk"
    # after the answer, ARIA listens for a follow-up without the wake word
    await rig.wait_for(lambda e: isinstance(e, SttStart) and e.trigger == "follow-up", 30)
    source.inject(say_piper("Thank you.", lead_s=0.2))
    await rig.wait_for(lambda e: isinstance(e, RunEnd) and rig.types().count("run-end") == 2, 30)
    runs = [e for e in rig.events if e.type == "run-start"]
    assert len(runs) == 2
    assert runs[0].conversation_id == runs[1].conversation_id


@pytest.mark.slow
async def test_speak_transcribe_and_kill_switch_commands(
    rig_factory: Any, tmp_path: Path, say_piper: SpeechMaker
) -> None:
    rig, _ = await rig_factory(None)
    orch = rig.orchestrator
    await rig.pipeline.start()
    status = {c.name: c for c in orch.capabilities()}["voice"]
    assert not status.available
    assert "no microphone" in status.reason
    audio = await orch.handle(Speak(text="Hello from ARIA.", play=False))
    assert audio.sample_rate_hz == 22_050
    assert audio.duration_s > 0.5
    transcript = await orch.handle(Transcribe(wav=say_piper("Open the calendar.").read_bytes()))
    assert "calendar" in transcript.text.lower()
    with pytest.raises(VoiceUnavailableError):
        await orch.handle(PushToTalk(action="toggle"))

    # the kill switch stops speech that is playing
    realtime = WavSink(tmp_path / "long.wav", realtime=True)
    output = OutputWatch(realtime)
    rig.pipeline.speech.sink = realtime
    speaking = asyncio.create_task(
        orch.handle(Speak(text="This is a long sentence that takes a while to say. " * 4))
    )
    await rig.wait_for(lambda e: isinstance(e, TtsStart), timeout_s=20)
    await output.played(0.3)
    await orch.handle(StopEverything())
    played = await asyncio.wait_for(speaking, 5)
    assert played.duration_s > 0.2, "what was handed to the output comes back"
    end = await rig.wait_for(lambda e: isinstance(e, TtsEnd))
    assert isinstance(end, TtsEnd)
    assert end.status == "interrupted"
    # cut, not played out: speech handed to the output was dropped
    played_ms = realtime.emitted_bytes / 2 / realtime.rate_hz * 1000
    assert played_ms < end.audio_ms, (played_ms, end.audio_ms)
    await realtime.aclose()


@pytest.mark.slow
async def test_states_do_not_flicker_when_the_turn_ends_while_speaking(
    rig_factory: Any, say_piper: SpeechMaker
) -> None:
    """The reply is still playing when the turn ends: clients see speaking once, then idle
    (never speaking -> idle -> speaking)."""
    source = LiveSource()
    rig, ollama = await rig_factory(lambda: source, realtime_sink=True)
    ollama.script(
        "/api/chat",
        ollama_text("The meeting is at three. I will remind you ten minutes before.", chunks=4),
    )
    await rig.pipeline.start()
    await rig.pipeline.wait_ready(timeout_s=60)
    await rig.wait_for(lambda e: e.type == "wake-start")
    await rig.orchestrator.handle(PushToTalk(action="press"))
    source.inject(say_piper("When is my meeting?", lead_s=0.1))
    await source.consumed()
    await rig.orchestrator.handle(PushToTalk(action="release"))
    await rig.wait_for(lambda e: isinstance(e, TtsEnd), timeout_s=30)
    start = next(i for i, e in enumerate(rig.events) if isinstance(e, SttStart))
    later = rig.events[start:]
    run_end = next(i for i, e in enumerate(later) if isinstance(e, RunEnd))
    tts_end = next(i for i, e in enumerate(later) if isinstance(e, TtsEnd))
    assert run_end < tts_end, "the turn must end while ARIA still speaks"
    # the pipeline returns to idle after the last sentence
    await rig.wait_for(
        lambda e: isinstance(e, StateChanged) and e.state == "idle" and rig.after(later[tts_end], e)
    )
    states = [e.state for e in rig.events[start:] if isinstance(e, StateChanged)]
    assert states == ["listening", "thinking", "speaking", "idle"], states


@pytest.mark.slow
async def test_wake_word_silences_the_real_speaker_mid_sentence_and_it_stays_silent(
    rig_factory: Any, say_piper: SpeechMaker, pulse: PulseServer
) -> None:
    """The interruption scenario on real devices: ARIA speaks through SpeakerSink into the
    PulseAudio virtual speaker; the microphone (MicrophoneSource on the speaker's monitor)
    hears the room — ARIA's voice plus a user talking over it (paplay). The speaker itself,
    in the microphone recording, falls silent and stays so. How fast is a figure of
    ``aria bench voice`` (interruption), not an assertion here."""
    tap = Tap(MicrophoneSource("pulse"))
    speaker = SpeakerSink("default")
    rig, ollama = await rig_factory(lambda: tap, sink=speaker)
    long_reply = " ".join(
        f"This is sentence number {n} of a long answer that goes on and on." for n in range(12)
    )
    ollama.script("/api/chat", ollama_text(long_reply, chunks=24))
    ollama.script("/api/chat", ollama_text("Stopped.", chunks=1))
    output = OutputWatch(speaker)
    await rig.pipeline.start()
    await rig.pipeline.wait_ready(timeout_s=60)
    await rig.wait_for(lambda e: e.type == "wake-start")
    await tap.frames_later(12)  # the microphone has been running for a second
    pulse.play(say_piper("Hey Jarvis.", "Tell me a long story.", pause_s=0.3))
    await rig.wait_for(lambda e: isinstance(e, TtsStart), timeout_s=60)
    await output.played(2.0)  # ARIA is mid-sentence now
    assert rig.pipeline.state is VoiceState.SPEAKING
    assert not any(isinstance(e, TtsEnd) for e in rig.events), "still speaking"
    pulse.set_playback_volume(50)  # -18 dB: the speaker is farther from the mic than the user
    pulse.play(say_piper("Hey Jarvis.", lead_s=0.0))
    wake = await rig.wait_for(
        lambda e: (
            isinstance(e, WakeEnd)
            and e.detected
            and any(isinstance(x, TtsStart) for x in rig.events[: rig.events.index(e)])
        ),
        timeout_s=10,
    )
    interrupted = await rig.wait_for(lambda e: isinstance(e, TtsEnd), timeout_s=5)
    assert isinstance(interrupted, TtsEnd)
    assert interrupted.status == "interrupted"
    assert rig.after(wake, interrupted), "the wake word is what ended the speech"
    # mid-sentence: speech handed to the speaker was dropped, not played to its end
    played_ms = speaker.emitted_bytes / 2 / speaker.rate_hz * 1000
    assert 2000 <= played_ms < interrupted.audio_ms, (played_ms, interrupted.audio_ms)
    emitted = speaker.emitted_bytes
    # The room after the interruption, as the microphone hears it, until ARIA queues its next
    # reply (if the room's audio made a command). Frames are counted, not timed: the cut is
    # where the pipeline handed the next reply to the speaker, or the end of the recording.
    stopped_at_frame = len(tap.recorded)
    next_reply_frame: list[int] = []
    write = speaker.write

    async def noted_write(audio: Any) -> None:
        if not next_reply_frame:
            next_reply_frame.append(len(tap.recorded))
        await write(audio)

    speaker.write = noted_write  # type: ignore[method-assign]
    await tap.frames_later(12)  # ~1 s of the room after the interruption
    if not next_reply_frame:
        assert speaker.emitted_bytes == emitted, "nothing more was handed to the speaker"
    end = next_reply_frame[0] if next_reply_frame else None
    after = pcm_to_int16(b"".join(tap.recorded[stopped_at_frame:end]))
    sound = np.flatnonzero(np.abs(after.astype(np.int32)) > 0.01 * 32768)
    last_sound = int(sound[-1]) + 1 if len(sound) else 0
    assert len(after) - last_sound > 0.3 * PIPELINE_RATE_HZ, "the speaker must stay silent"
    # listening again for the user's command
    assert any(
        isinstance(e, SttStart) and e.trigger == "wake" and rig.after(wake, e) for e in rig.events
    )


@pytest.mark.slow
async def test_voice_turn_with_the_wake_word_on_a_wyoming_server(
    rig_factory: Any, say_piper: SpeechMaker, wake_server: str
) -> None:
    """The pipeline with the remote detector: the asynchronous, repeated detections of one
    "Hey Jarvis" wake ARIA once, and the command after it is not clipped."""
    wav = say_piper(  # steady: the check is the remote detector's wiring, not one Piper draw
        "Hey Jarvis.", "What is the weather like today?", pause_s=0.4, lead_s=1.5, steady=True
    )
    rig, ollama = await rig_factory(
        lambda: WavSource(wav, realtime=True, trailing_silence_s=1.5),
        wake=WyomingWakeWord(wake_server),
    )
    ollama.script("/api/chat", ollama_text("Sunny all day.", chunks=2))
    await rig.pipeline.start()
    await rig.pipeline.wait_source_ended(timeout_s=60)
    detections = [e for e in rig.events if isinstance(e, WakeEnd) and e.detected]
    assert [d.name for d in detections] == ["hey_jarvis"], rig.types()
    heard = next(e for e in rig.events if isinstance(e, SttEnd))
    assert "weather like today" in " ".join(normalize(heard.text)), heard.text
    assert any(isinstance(e, TtsEnd) and e.status == "complete" for e in rig.events)


@pytest.mark.slow
async def test_thinking_is_never_spoken_in_a_voice_turn(
    rig_factory: Any, say_piper: SpeechMaker, whisper: WhisperSTT
) -> None:
    wav = say_piper("Hey Jarvis.", "What is the weather like today?", pause_s=0.4)
    rig, ollama = await rig_factory(lambda: WavSource(wav, trailing_silence_s=1.5))
    steps = [
        Send(chat_line("qwen3", thinking="The user wants weather. ")),
        Send(chat_line("qwen3", thinking="Mention bananas and elephants?")),
        *text_steps("It is sunny and warm today.", chunks=3, model="qwen3"),
        Send(done_line("qwen3")),
    ]
    ollama.script("/api/chat", ollama_stream(steps))
    await rig.pipeline.start()
    await rig.pipeline.wait_source_ended(timeout_s=60)
    await rig.sink.aclose()

    thought = "".join(e.text for e in rig.events if isinstance(e, LlmThinking))
    assert thought == "The user wants weather. Mention bananas and elephants?"
    tts_end = next(e for e in rig.events if isinstance(e, TtsEnd))
    assert (tts_end.status, tts_end.sentences) == ("complete", 1)
    heard = " ".join(normalize((await whisper.transcribe(read_wav(rig.sink.path))).text))
    # The answer was spoken (Piper varies its voice run to run: "and" may be heard as "in"),
    # and nothing of the reasoning was.
    assert "sunny" in heard, heard
    assert "warm" in heard, heard
    assert "banana" not in heard, heard
    assert "elephant" not in heard, heard
    stored = await rig.orchestrator.store.list_messages(
        next(e for e in rig.events if isinstance(e, RunEnd)).conversation_id
    )
    assert [m.thinking for m in stored if m.role == "assistant"] == [thought]
    assert "banana" not in stored[-1].content
