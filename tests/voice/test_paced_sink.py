"""The paced player feeds a device that draws faster than real time at once: a sound server
filling its own buffer at the start of speech (or after a stall) finds the next blocks ready
instead of an empty buffer, which plays as a gap."""

from __future__ import annotations

import asyncio
import time

from aria_desktop.adapters.voice.audio import PacedSink
from aria_desktop.domain.audio import SpeechAudio

RATE = 16_000


class GreedyDevice(PacedSink):
    """A device that takes every block the moment it arrives (its backlog is always 0)."""

    lead_s = 0.5

    def __init__(self, *, tops_up: bool) -> None:
        super().__init__(rate_hz=RATE, realtime=True)
        self.tops_up = tops_up
        self.blocks: list[float] = []

    def _emit(self, block: bytes) -> None:
        self.blocks.append(time.monotonic())

    def _backlog_s(self) -> float:
        return 0.0


async def played(sink: GreedyDevice, seconds: float) -> float:
    """How long handing ``seconds`` of speech to ``sink`` took."""
    started = time.monotonic()
    await sink.write(SpeechAudio(pcm=b"\0\0" * int(RATE * seconds), sample_rate_hz=RATE))
    await sink.drain()
    return time.monotonic() - started


async def test_a_device_that_draws_ahead_is_fed_at_once() -> None:
    took = await played(GreedyDevice(tops_up=True), 2.0)
    assert took < 0.5  # 2 s of speech: not paced by the clock


async def test_without_a_known_backlog_output_keeps_real_time() -> None:
    took = await asyncio.wait_for(played(GreedyDevice(tops_up=False), 1.0), 5)
    assert took > 0.4  # 1 s of speech, at most half a second ahead
