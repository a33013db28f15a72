"""Dictation rigs for the desktop tests: the real voice pipeline (Whisper, Silero VAD) on a
computer-use rig's orchestrator, fed with Piper's voice while the dictation key is held."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.voice.audio import WavSink
from aria_desktop.adapters.voice.whisper import SileroVAD, WhisperSTT
from aria_desktop.core.voice.pipeline import VoiceConfig, VoicePipeline
from aria_desktop.core.voice.speech import SpeechService
from aria_desktop.domain.commands import PushToTalk
from aria_desktop.domain.computer import ComputerAction, Point
from aria_desktop.domain.events import Event
from aria_desktop.domain.voice_events import DictationEnd
from tests.computer.conftest import Rig
from tests.computer.test_desktop import field_point
from tests.voice.test_pipeline import LiveSource

SAID = ("Thanks for the tea, see you on Sunday.",)
"""What is dictated. The spoken marks ("comma") are checked on text (tests/domain): tiny.en
hears a lone "comma" in Piper's voice as "comment" too often to be what this checks."""


class Dictating:
    """The real voice pipeline on the computer rig's orchestrator, fed by a live source."""

    def __init__(self, rig: Rig, pipeline: VoicePipeline, source: LiveSource) -> None:
        self.rig = rig
        self.pipeline = pipeline
        self.source = source
        self.events: list[Event] = []
        self._arrived = asyncio.Event()
        self._sub = rig.orchestrator.bus.subscribe()
        self._task = asyncio.create_task(self._collect())

    async def _collect(self) -> None:
        async for event in self._sub:
            self.events.append(event)
            self._arrived.set()

    async def ended(self, after: int, timeout_s: float = 60.0) -> DictationEnd:
        async with asyncio.timeout(timeout_s):
            while True:
                for event in self.events[after:]:
                    if isinstance(event, DictationEnd):
                        return event
                self._arrived.clear()
                await self._arrived.wait()

    async def say_held(self, clip: Path, press: Any, release: Any) -> DictationEnd:
        """Hold the key (``press``), say ``clip``, let go (``release``): how it ended."""
        mark = len(self.events)
        await press()
        self.source.inject(clip)
        await self.source.consumed()
        await release()
        return await self.ended(mark)

    async def close(self) -> None:
        self._sub.close()
        await self._task


@pytest.fixture
async def dictating(rig_factory: Any, whisper: WhisperSTT, tmp_path: Path) -> AsyncIterator[Any]:
    async def make() -> Dictating:
        rig: Rig = await rig_factory()
        source = LiveSource()
        speech = SpeechService(
            bus=rig.orchestrator.bus, tts=None, stt=whisper, sink=WavSink(tmp_path / "out.wav")
        )
        pipeline = VoicePipeline(
            orchestrator=rig.orchestrator,
            speech=speech,
            wake=None,
            vad=SileroVAD(),
            source_factory=lambda: source,
            config=VoiceConfig(follow_up_s=0.0, wake_enabled=False),
        )
        pipeline.install()
        await pipeline.start()
        await pipeline.wait_ready(timeout_s=60)
        made.append(Dictating(rig, pipeline, source))
        return made[-1]

    made: list[Dictating] = []
    yield make
    for one in made:
        one.pipeline.speech.stt = None  # the session's Whisper stays loaded
        await one.pipeline.stop()
        await one.close()


async def focus(rig: Rig, label: str) -> Point:
    """Click into the field right of ``label`` (it takes the keyboard focus)."""
    point = await field_point(rig, label)
    click = await rig.computer.perform(
        ComputerAction(kind="click", x=point.x, y=point.y), run_id=None, task_id="focus"
    )
    assert click.status == "ok", click
    return point


def command(dictation: Dictating, action: str) -> Any:
    """A dictation key edge as ``aria dictate press``/``release`` (or the tray) sends it."""

    async def send() -> None:
        await dictation.rig.orchestrator.handle(PushToTalk(action=action, purpose="dictate"))

    return send
