"""In-memory fakes of the voice ports and a rig that runs the real pipeline on them.

The wake detector, VAD, STT, TTS, audio source and sink are fakes at the port level; the
orchestrator, agent loop and bus are real (with a scripted chat model and a real SQLite file
for the conversations). Frames are fed by the test: the wake detector fires on ``WAKE``, the
VAD hears speech in ``SPEECH``, everything else is silence. Each fake can hold (on an
``asyncio.Event``) so a test can keep the pipeline in a state while it acts.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.voice.pipeline import VoiceConfig, VoicePipeline
from aria_desktop.core.voice.speech import SpeechService
from aria_desktop.core.voice.states import VoiceState
from aria_desktop.domain.audio import FRAME_SAMPLES, AudioClip, SpeechAudio, Transcript
from aria_desktop.domain.audio import WakeDetection as Detection
from aria_desktop.domain.chat import ChatRequest, LLMChunk, StreamEnd, TextDelta
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.events import Event, StateChanged

SILENT = b"\0\0" * FRAME_SAMPLES
SPEECH = b"\x10\x10" * FRAME_SAMPLES
WAKE = b"\x20\x20" * FRAME_SAMPLES
E = TypeVar("E", bound=Event)
WAIT_S = 5.0
"""Bound of every wait in these tests (they finish in milliseconds when all is well)."""


@dataclass(frozen=True, kw_only=True)
class Mark(Event):
    """Published by the test itself: seen once every event published before it was seen."""

    type: ClassVar[str] = "test-mark"
    number: int


class ManualClock:
    """A ``Clock`` that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return 1_700_000_000.0 + self.now


class Gate:
    """Where a fake waits; open by default."""

    def __init__(self) -> None:
        self._open = asyncio.Event()
        self._open.set()

    def close(self) -> None:
        self._open.clear()

    def open(self) -> None:
        self._open.set()

    async def passed(self) -> None:
        await self._open.wait()


class FakeWake:
    """Fires on ``WAKE`` frames; can scan ARIA's speech (``offsets``) or not (None)."""

    name = "fake_wake"

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.resets = 0
        self.load_s = 0.0
        self.closed = False

    async def load(self) -> None:
        self.clock.now += self.load_s  # a load that takes this long on the injected clock

    async def process(self, frame: bytes) -> Detection | None:
        return Detection(name="fake_wake", score=0.9) if frame == WAKE else None

    def reset(self) -> None:
        self.resets += 1

    async def aclose(self) -> None:
        self.closed = True


class ScanningWake(FakeWake):
    """A detector that also scans ARIA's speech: the wake word is ``offsets`` into each piece."""

    def __init__(self, clock: ManualClock) -> None:
        super().__init__(clock)
        self.offsets: list[float] = []
        self.scanned: list[str] = []

    async def scan_speech(self, audio: SpeechAudio) -> list[float] | None:
        self.scanned.append(audio.text)
        return list(self.offsets)


class FakeVad:
    async def load(self) -> None:
        return None

    async def speech_probability(self, frame: bytes) -> float:
        return 1.0 if frame == SPEECH else 0.0

    def reset(self) -> None:
        return None


class FakeStt:
    """Returns the scripted texts in order (an ``AriaError`` in the script is raised)."""

    name = "fake-stt"

    def __init__(self) -> None:
        self.script: list[str | AriaError] = []
        self.heard: list[AudioClip] = []
        self.starts: list[str] = []
        """The ``starts_with`` of each transcription, in order."""
        self.prompts: list[str] = []
        """The ``prompt`` of each transcription, in order."""
        self.gate = Gate()

    async def load(self) -> None:
        return None

    async def transcribe(
        self,
        clip: AudioClip,
        *,
        language: str | None = None,
        starts_with: str = "",
        prompt: str = "",
    ) -> Transcript:
        self.heard.append(clip)
        self.starts.append(starts_with)
        self.prompts.append(prompt)
        await self.gate.passed()
        result = self.script.pop(0)
        if isinstance(result, AriaError):
            raise result
        return Transcript(text=result, engine=self.name)

    async def aclose(self) -> None:
        return None


class FakeTts:
    """Speech of 10 ms per character at 16 kHz (silence; only its length matters)."""

    name = "fake-tts"
    sample_rate_hz = 16_000

    async def load(self) -> None:
        return None

    async def synthesize(self, text: str) -> AsyncGenerator[SpeechAudio, None]:
        yield SpeechAudio(pcm=b"\0\0" * 160 * len(text), sample_rate_hz=16_000, text=text)

    async def aclose(self) -> None:
        return None


class FakeSink:
    """Keeps what it is given; ``drain`` waits on ``playing`` (held: still playing)."""

    name = "fake-sink"

    def __init__(self) -> None:
        self.played: list[str] = []
        self.playing = Gate()
        self.stops = 0

    async def write(self, audio: SpeechAudio) -> None:
        self.played.append(audio.text)

    async def drain(self) -> None:
        await self.playing.passed()

    def stop(self) -> None:
        self.stops += 1

    async def aclose(self) -> None:
        return None


class FakeSource:
    """A microphone fed by the test; ``drained`` returns once every frame fed was handled."""

    name = "fake-mic"

    def __init__(self) -> None:
        self._queue: asyncio.Queue[bytes | AriaError | None] = asyncio.Queue()
        self._idle = asyncio.Event()
        self.opened = 0
        self.closed = False

    def feed(self, *frames: bytes) -> None:
        self._idle.clear()
        for frame in frames:
            self._queue.put_nowait(frame)

    def end(self) -> None:
        """The source runs out (end of a WAV file)."""
        self._idle.clear()
        self._queue.put_nowait(None)

    def fail(self, error: AriaError) -> None:
        """The device fails (unplugged)."""
        self._idle.clear()
        self._queue.put_nowait(error)

    async def drained(self) -> None:
        async with asyncio.timeout(WAIT_S):
            await self._idle.wait()

    async def frames(self) -> AsyncGenerator[bytes, None]:
        self.opened += 1
        self.closed = False
        try:
            while True:
                if self._queue.empty():
                    self._idle.set()
                item = await self._queue.get()
                if item is None:
                    self._idle.set()
                    return
                if isinstance(item, AriaError):
                    self._idle.set()
                    raise item
                yield item
        finally:
            self.closed = True


class FakeChat:
    """A chat model that streams scripted replies; a ``Gate`` in a script holds the stream."""

    def __init__(self) -> None:
        self.script: list[list[str | Gate]] = []
        self.requests: list[ChatRequest] = []

    async def stream(
        self, request: ChatRequest, *, agent: str = "chat", backend: str | None = None
    ) -> AsyncGenerator[LLMChunk, None]:
        self.requests.append(request)
        for step in self.script.pop(0):
            if isinstance(step, Gate):
                await step.passed()
            else:
                yield TextDelta(text=step)
        yield StreamEnd(backend="fake", model="fake-model")


class FakeAudit:
    def __init__(self) -> None:
        self.records: list[tuple[str, Mapping[str, Any]]] = []

    async def append(self, kind: str, data: Mapping[str, Any]) -> int:
        self.records.append((kind, data))
        return len(self.records)


class Rig:
    """The real pipeline and orchestrator on the fakes, plus what they did."""

    def __init__(self, orchestrator: Orchestrator, pipeline: VoicePipeline, **fakes: Any) -> None:
        self.orchestrator = orchestrator
        self.pipeline = pipeline
        self.clock: ManualClock = fakes["clock"]
        self.chat: FakeChat = fakes["chat"]
        self.wake: FakeWake = fakes["wake"]
        self.stt: FakeStt = fakes["stt"]
        self.sink: FakeSink = fakes["sink"]
        self.source: FakeSource = fakes["source"]
        self.events: list[Event] = []
        self.transitions: list[tuple[VoiceState, VoiceState]] = []
        self._changed = asyncio.Event()
        self._marks = itertools.count()
        self._seen_mark = -1
        self._sub = orchestrator.bus.subscribe()
        self._task = asyncio.create_task(self._collect())
        pipeline.states.observer = self._on_transition

    def _on_transition(self, before: VoiceState, after: VoiceState) -> None:
        self.transitions.append((before, after))
        self._changed.set()

    async def _collect(self) -> None:
        async for event in self._sub:
            if isinstance(event, Mark):
                self._seen_mark = event.number
            elif event.type != "audio-level":
                self.events.append(event)
            self._changed.set()

    async def until(self, condition: Callable[[], bool]) -> None:
        """Wait until ``condition`` holds, re-checked after every event and transition."""
        async with asyncio.timeout(WAIT_S):
            while not condition():
                self._changed.clear()
                await self._changed.wait()

    async def settled(self) -> None:
        """Wait until every event published so far has been recorded."""
        number = next(self._marks)
        self.orchestrator.bus.publish(Mark(number=number))
        await self.until(lambda: self._seen_mark >= number)

    async def reach(self, state: VoiceState) -> None:
        """Wait until the pipeline is in ``state``."""
        await self.until(lambda: self.pipeline.state is state)

    async def event(self, kind: type[E], where: Callable[[E], bool] = lambda _e: True) -> E:
        """The first event of ``kind`` (seen so far or later) for which ``where`` holds."""

        def found() -> E | None:
            return next((e for e in self.events if isinstance(e, kind) and where(e)), None)

        await self.until(lambda: found() is not None)
        event = found()
        assert event is not None
        return event

    def after(self, state: VoiceState) -> list[tuple[VoiceState, VoiceState]]:
        """The transitions that left ``state`` (re-entering it is not leaving)."""
        return [t for t in self.transitions if t[0] is state and t[1] is not state]

    def visible(self) -> list[str]:
        return [e.state for e in self.events if isinstance(e, StateChanged)]

    def types(self) -> list[str]:
        return [e.type for e in self.events]

    async def close(self) -> None:
        self._sub.close()
        await self._task


async def make_rig(
    tmp_path: Path, *, scanning: bool = False, **config: Any
) -> tuple[Rig, Database]:
    """A rig with ``VoiceConfig`` overrides (follow-ups off unless given).

    Args:
        tmp_path: where the conversations database goes.
        scanning: the wake detector scans ARIA's own speech (``ScanningWake``).
        config: ``VoiceConfig`` fields.
    """
    clock = ManualClock()
    wake = ScanningWake(clock) if scanning else FakeWake(clock)
    chat, stt, sink, source = FakeChat(), FakeStt(), FakeSink(), FakeSource()
    db = await Database.open(tmp_path / "voice.db")
    orchestrator = Orchestrator(
        model=chat, store=SQLiteConversationStore(db), audit=FakeAudit(), clock=clock
    )
    speech = SpeechService(bus=orchestrator.bus, tts=FakeTts(), stt=stt, sink=sink, clock=clock)
    pipeline = VoicePipeline(
        orchestrator=orchestrator,
        speech=speech,
        wake=wake,
        vad=FakeVad(),
        source_factory=lambda: source,
        config=VoiceConfig(**{"follow_up_s": 0.0, "no_speech_timeout_s": 0.4, **config}),
    )
    pipeline.install()
    rig = Rig(
        orchestrator, pipeline, clock=clock, chat=chat, wake=wake, stt=stt, sink=sink, source=source
    )
    return rig, db


@contextlib.asynccontextmanager
async def running_rig(tmp_path: Path) -> AsyncIterator[Rig]:
    """A rig whose pipeline has started and waits for the wake word; all stopped after."""
    made, db = await make_rig(tmp_path)
    await made.pipeline.start()
    await made.reach(VoiceState.WAKE)
    try:
        yield made
    finally:
        await made.pipeline.stop()
        await made.orchestrator.stop()
        await made.close()
        await db.close()


def command(speech_frames: int = 3) -> Iterator[bytes]:
    """A spoken command: speech, then the 0.7 s of silence (9 frames) that ends it."""
    yield from [SPEECH] * speech_frames
    yield from [SILENT] * 9
