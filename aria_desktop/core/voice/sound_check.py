"""Trying a microphone and a speaker: a live level, a short recording played back.

The settings dialog and the first-run wizard let people pick the devices voice uses and hear
that they work before saving. The device I/O comes in through factories (the same microphone
and speaker adapters the voice pipeline uses), so what is tried is what voice will use.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable

from aria_desktop.core.voice.endpointing import rms_dbfs
from aria_desktop.core.voice.ports import AudioSink, AudioSource
from aria_desktop.domain.audio import (
    FRAME_SAMPLES,
    PIPELINE_RATE_HZ,
    AudioClip,
    AudioDevice,
    SpeechAudio,
)

__all__ = ["DeviceCheck"]


class DeviceCheck:
    """``SoundCheck`` over the voice's own device adapters.

    Args:
        list_devices: the system's devices now (blocking; run in a worker thread).
        microphone: a capture source for a device name ("" = the default).
        speaker: a playback sink for a device name ("" = the default), at 16 kHz.
    """

    def __init__(
        self,
        list_devices: Callable[[], list[AudioDevice]],
        microphone: Callable[[str], AudioSource],
        speaker: Callable[[str], AudioSink],
    ) -> None:
        self._list, self._microphone, self._speaker = list_devices, microphone, speaker

    async def devices(self) -> list[AudioDevice]:
        """Every device the system has now.

        The listing thread is waited for even when the caller gives up: its end must not
        reach a loop that has closed meanwhile.
        """
        listing = asyncio.ensure_future(asyncio.to_thread(self._list))
        try:
            return await asyncio.shield(listing)
        except asyncio.CancelledError:
            await asyncio.wait([listing])
            raise

    async def levels(self, microphone: str) -> AsyncGenerator[float, None]:
        """Each frame's loudness until the caller closes the generator (which closes capture)."""
        frames = self._microphone(microphone).frames()
        try:
            async for frame in frames:
                yield rms_dbfs(frame)
        finally:
            await frames.aclose()

    async def record(
        self, microphone: str, seconds: float, on_level: Callable[[float], None] | None = None
    ) -> AudioClip:
        """``seconds`` of audio, counted in frames (not wall time: a late device adds none)."""
        wanted = max(1, round(seconds * PIPELINE_RATE_HZ / FRAME_SAMPLES))
        taken: list[bytes] = []
        frames = self._microphone(microphone).frames()
        try:
            async for frame in frames:
                taken.append(frame)
                if on_level is not None:
                    on_level(rms_dbfs(frame))
                if len(taken) >= wanted:
                    break
        finally:
            await frames.aclose()
        return AudioClip(pcm=b"".join(taken), sample_rate_hz=PIPELINE_RATE_HZ)

    async def play(self, speaker: str, clip: AudioClip) -> None:
        """Play the clip and wait until the device has played it."""
        sink = self._speaker(speaker)
        try:
            await sink.write(SpeechAudio(pcm=clip.pcm, sample_rate_hz=clip.sample_rate_hz))
            await sink.drain()
        finally:
            await sink.aclose()
