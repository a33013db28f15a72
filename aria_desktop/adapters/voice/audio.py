"""Audio plumbing without devices.

WAV and raw-PCM sources, the WAV sink, conversion to the pipeline's 16 kHz mono, and numpy
views for the model adapters.

With ``voice.resample`` (the polyphase filter it resamples with), the only module that
imports numpy for audio at run time (the model adapters get their arrays from here); nothing
imports SciPy, whose ``scipy.signal`` alone costs about a second of start-up.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import logging
import threading
import time
import wave
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from aria_desktop.domain.audio import (
    FRAME_SAMPLES,
    PIPELINE_RATE_HZ,
    SAMPLE_WIDTH_BYTES,
    AudioClip,
    SpeechAudio,
    decode_wav,
)
from aria_desktop.domain.errors import AriaError, AudioFormatError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "FRAME_BYTES",
    "PacedSink",
    "PcmPipeSource",
    "WavSink",
    "WavSource",
    "float32_to_pcm",
    "pcm_to_float32",
    "pcm_to_int16",
    "read_wav",
    "resample_pcm",
    "to_pipeline_pcm",
]

_LOGGER = logging.getLogger(__name__)
FRAME_BYTES = FRAME_SAMPLES * SAMPLE_WIDTH_BYTES
_BLOCK_S = 0.02
"""Paced playback hands audio over in 20 ms blocks, so a stop takes effect within one block."""
_PIPE_CHUNKS_AHEAD = 25
"""Raw-PCM chunks (80 ms each) read ahead of the pipeline: 2 s, then the reader waits."""


def pcm_to_int16(pcm: bytes) -> npt.NDArray[np.int16]:
    """A read-only int16 view of little-endian PCM bytes."""
    import numpy as np

    return np.frombuffer(pcm[: len(pcm) - len(pcm) % 2], dtype="<i2")


def pcm_to_float32(pcm: bytes) -> npt.NDArray[np.float32]:
    """PCM bytes as float32 samples in [-1, 1] (what Whisper and Silero take)."""
    import numpy as np

    return pcm_to_int16(pcm).astype(np.float32) / 32768.0


def float32_to_pcm(samples: npt.NDArray[np.float32]) -> bytes:
    """Float samples in [-1, 1] as 16-bit PCM bytes (clipped)."""
    import numpy as np

    clipped = np.clip(samples, -1.0, 1.0)
    return (clipped * 32767.0).astype("<i2").tobytes()


def resample_pcm(pcm: bytes, from_rate_hz: int, to_rate_hz: int, channels: int = 1) -> bytes:
    """Mono 16-bit PCM at ``to_rate_hz`` (channels averaged; polyphase, anti-aliased)."""
    import numpy as np

    samples = pcm_to_int16(pcm).astype(np.float32)
    if channels > 1:
        usable = len(samples) - len(samples) % channels
        samples = samples[:usable].reshape(-1, channels).mean(axis=1)
    if from_rate_hz != to_rate_hz and len(samples):
        from aria_desktop.adapters.voice.resample import resample_poly

        samples = resample_poly(samples, int(to_rate_hz), int(from_rate_hz))
    return bytes(np.clip(np.round(samples), -32768, 32767).astype("<i2").tobytes())


def to_pipeline_pcm(clip: AudioClip) -> bytes:
    """Any clip as 16 kHz mono PCM."""
    if clip.sample_rate_hz == PIPELINE_RATE_HZ and clip.channels == 1:
        return clip.pcm
    return resample_pcm(clip.pcm, clip.sample_rate_hz, PIPELINE_RATE_HZ, clip.channels)


def read_wav(path: Path) -> AudioClip:
    """A 16-bit PCM WAV file, or ``AudioFormatError`` saying what is wrong with it."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise AudioFormatError(f"{path} does not exist.", hint="Check the file name.") from None
    except OSError as exc:
        raise AudioFormatError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    return decode_wav(data, name=str(path), allow_empty=True)


def _frames_of(pcm: bytes) -> list[bytes]:
    frames = [pcm[i : i + FRAME_BYTES] for i in range(0, len(pcm), FRAME_BYTES)]
    if frames and len(frames[-1]) < FRAME_BYTES:
        frames[-1] = frames[-1] + b"\0" * (FRAME_BYTES - len(frames[-1]))
    return frames


class WavSource:
    """Frames from a WAV file (``aria listen --wav``, tests).

    Args:
        path: the file (any rate and channel count; converted to 16 kHz mono).
        realtime: deliver frames at the pace of real audio (80 ms apart) instead of as fast
            as they are consumed.
        trailing_silence_s: silence appended after the file, so endpointing sees the pause a
            speaker would make.
    """

    def __init__(
        self, path: Path, *, realtime: bool = False, trailing_silence_s: float = 1.0
    ) -> None:
        self.path = path
        self.realtime = realtime
        self._pcm = to_pipeline_pcm(read_wav(path))
        self._pcm += b"\0" * (int(trailing_silence_s * PIPELINE_RATE_HZ) * SAMPLE_WIDTH_BYTES)

    @property
    def name(self) -> str:
        """What the source reads."""
        return f"wav:{self.path}"

    @property
    def duration_s(self) -> float:
        """Length of the audio delivered, including the trailing silence."""
        return len(self._pcm) / SAMPLE_WIDTH_BYTES / PIPELINE_RATE_HZ

    async def frames(self) -> AsyncGenerator[bytes, None]:
        """The file's frames (16 kHz mono int16, 80 ms each)."""
        started = time.monotonic()
        for index, frame in enumerate(_frames_of(self._pcm)):
            if self.realtime:
                due = started + index * FRAME_SAMPLES / PIPELINE_RATE_HZ
                await asyncio.sleep(max(0.0, due - time.monotonic()))
            else:
                await asyncio.sleep(0)
            yield frame


class PcmPipeSource:
    """Frames from raw PCM on a pipe (``arecord -f S16_LE -r 16000 -c 1 | aria listen --pcm -``).

    A daemon thread reads the stream (a read on a pipe blocks until the writer writes), at
    most ``_PIPE_CHUNKS_AHEAD`` chunks ahead of the consumer. Closing the ``frames``
    generator never waits for the writer: the thread ends at its next chunk, or with the
    process.

    Args:
        stream: a binary file object (stdin's buffer, a FIFO, a file).
        sample_rate_hz, channels: the format of the raw samples (16-bit little-endian);
            converted to 16 kHz mono.
        label: what the stream is, for messages ("stdin", a path).
    """

    def __init__(
        self,
        stream: BinaryIO,
        *,
        sample_rate_hz: int = PIPELINE_RATE_HZ,
        channels: int = 1,
        label: str = "",
    ) -> None:
        if not 4_000 <= sample_rate_hz <= 384_000:
            raise AudioFormatError(
                f"{sample_rate_hz} Hz is not a sample rate ARIA can read.",
                hint="Give the rate of the raw audio, e.g. 16000, 44100 or 48000.",
            )
        if not 1 <= channels <= 32:
            raise AudioFormatError(
                f"{channels} channels is not a channel count ARIA can read.",
                hint="Give the channel count of the raw audio (1 for mono, 2 for stereo).",
            )
        self._stream = stream
        self._rate = sample_rate_hz
        self._channels = channels
        self.label = label or "the pipe"
        self.bytes_read = 0
        """Bytes received so far (0 after the end: nothing arrived)."""

    @property
    def name(self) -> str:
        """What the source reads."""
        return f"pcm:{self.label} {self._rate}Hz/{self._channels}ch"

    async def frames(self) -> AsyncGenerator[bytes, None]:
        """Frames until the writer closes the pipe; an odd last piece is padded with silence."""
        loop = asyncio.get_running_loop()
        sample_bytes = SAMPLE_WIDTH_BYTES * self._channels
        in_frame = int(FRAME_SAMPLES * self._rate / PIPELINE_RATE_HZ) * sample_bytes
        chunks: asyncio.Queue[bytes | OSError | None] = asyncio.Queue()
        room = threading.Semaphore(_PIPE_CHUNKS_AHEAD)
        closed = threading.Event()

        def hand_over(item: bytes | OSError | None) -> None:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(chunks.put_nowait, item)

        def read() -> None:
            while True:
                room.acquire()
                if closed.is_set():
                    return
                try:
                    chunk = self._stream.read(in_frame)
                except (OSError, ValueError) as exc:  # ValueError: the file was closed
                    hand_over(exc if isinstance(exc, OSError) else OSError(str(exc)))
                    return
                hand_over(chunk or None)
                if not chunk:
                    return

        reader = threading.Thread(target=read, name="aria-pcm-reader", daemon=True)
        reader.start()
        pending = b""
        try:
            while True:
                item = await chunks.get()
                room.release()
                if isinstance(item, OSError):
                    raise AudioFormatError(
                        f"Cannot read the raw audio from {self.label}: {item.strerror or item}.",
                        hint="Check the program that writes the audio.",
                    )
                if item is None:
                    break
                self.bytes_read += len(item)
                pending += item
                usable = len(pending) - len(pending) % sample_bytes
                if usable < in_frame:
                    continue
                data, pending = pending[:usable], pending[usable:]
                for frame in _frames_of(self._convert(data)):
                    yield frame
            if pending:
                tail = pending + b"\0" * (-len(pending) % sample_bytes)
                for frame in _frames_of(self._convert(tail)):
                    yield frame
        finally:
            closed.set()
            room.release()

    def _convert(self, data: bytes) -> bytes:
        if self._rate == PIPELINE_RATE_HZ and self._channels == 1:
            return data
        return resample_pcm(data, self._rate, PIPELINE_RATE_HZ, self._channels)


class PacedSink(abc.ABC):
    """Base of sinks that play speech in real time, in 20 ms blocks, and can stop at once.

    Subclasses implement ``_emit(block)`` (called in playback order, from the event loop).
    ``first_audio_at``, ``last_audio_at`` and ``stopped_at`` (monotonic s) and
    ``emitted_bytes`` say when output happened and stopped, for tests and benchmarks.

    Args:
        rate_hz: the output rate; speech at another rate is resampled.
        realtime: pace output like a sound card; False emits everything at once.
    """

    lead_s = 0.0
    """How far emission may run ahead of real time (a device's buffer against underruns)."""
    tops_up = False
    """The output's backlog is known (``_backlog_s``): whenever the device has drawn it below
    half the lead — faster than real time, as a sound server filling its own buffer does at
    the start or after a stall — the next block goes out at once instead of on the clock."""

    def __init__(self, *, rate_hz: int, realtime: bool = True) -> None:
        self.rate_hz = rate_hz
        self.realtime = realtime
        self._queue: bytearray = bytearray()
        self._wakeup: asyncio.Event | None = None
        self._idle: asyncio.Event | None = None
        self._player: asyncio.Task[None] | None = None
        self.first_audio_at: float | None = None
        self.last_audio_at: float | None = None
        self.stopped_at: float | None = None
        self.emitted_bytes = 0
        self._error: AriaError | None = None

    @property
    def name(self) -> str:
        """What the sink writes to."""
        return type(self).__name__

    def _events(self) -> tuple[asyncio.Event, asyncio.Event]:
        if self._wakeup is None or self._idle is None:
            self._wakeup, self._idle = asyncio.Event(), asyncio.Event()
            self._idle.set()
        return self._wakeup, self._idle

    async def write(self, audio: SpeechAudio) -> None:
        """Queue speech; the player task emits it block by block."""
        pcm = audio.pcm
        if audio.sample_rate_hz != self.rate_hz:
            pcm = await asyncio.to_thread(resample_pcm, pcm, audio.sample_rate_hz, self.rate_hz)
        wakeup, idle = self._events()
        self._queue += pcm
        idle.clear()
        wakeup.set()
        if self._player is None or self._player.done():
            self._player = asyncio.create_task(self._play(), name="aria-sink-player")

    async def drain(self) -> None:
        """Wait until every queued block has been emitted (or ``stop``)."""
        _wakeup, idle = self._events()
        await idle.wait()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def stop(self) -> None:
        """Drop what is queued; nothing more is emitted until the next ``write``."""
        self._queue.clear()
        self.stopped_at = time.monotonic()
        if self._idle is not None:
            self._idle.set()

    async def _play(self) -> None:
        wakeup, idle = self._events()
        block = int(self.rate_hz * _BLOCK_S) * SAMPLE_WIDTH_BYTES
        next_due = time.monotonic()
        while True:
            if not self._queue:
                idle.set()
                wakeup.clear()
                await wakeup.wait()
                next_due = time.monotonic()
                continue
            take = block if self.realtime else len(self._queue)
            chunk = bytes(self._queue[:take])
            del self._queue[:take]
            now = time.monotonic()
            if self.first_audio_at is None:
                self.first_audio_at = now
            self.last_audio_at = now
            self.emitted_bytes += len(chunk)
            try:
                self._emit(chunk)
            except AriaError as exc:
                self._error = exc
                self._queue.clear()
                idle.set()
                return
            if self.realtime:
                next_due += len(chunk) / SAMPLE_WIDTH_BYTES / self.rate_hz
                if self.tops_up and self._queue and self._backlog_s() < self.lead_s / 2:
                    next_due = min(next_due, time.monotonic() + self.lead_s)
                    await asyncio.sleep(0)
                    continue
                await asyncio.sleep(max(0.0, next_due - self.lead_s - time.monotonic()))
                while self._backlog_s() > self.lead_s and self._queue:
                    await asyncio.sleep(_BLOCK_S)  # the output is behind: let it catch up
                    next_due = time.monotonic()
            else:
                await asyncio.sleep(0)

    def _backlog_s(self) -> float:
        """Seconds of emitted audio the output has not played yet (0: it keeps up)."""
        return 0.0

    @abc.abstractmethod
    def _emit(self, block: bytes) -> None:
        """Hand one block (16-bit mono PCM at ``rate_hz``) to the output."""

    async def aclose(self) -> None:
        """Stop the player task."""
        self.stop()
        if self._player is not None:
            self._player.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._player


class WavSink(PacedSink):
    """Speech into a WAV file (``aria say --out``, ``aria listen --out``, tests).

    With ``realtime`` the file receives audio at the pace of a sound card, so an interruption
    cuts it like it would cut a speaker; without, everything is written at once.

    Args:
        path: the file to write (replaced).
        rate_hz: the file's sample rate (speech is resampled to it).
    """

    def __init__(self, path: Path, *, rate_hz: int = 22_050, realtime: bool = False) -> None:
        super().__init__(rate_hz=rate_hz, realtime=realtime)
        self.path = path
        self._writer: wave.Wave_write | None = None

    @property
    def name(self) -> str:
        """The file."""
        return f"wav:{self.path}"

    def _emit(self, block: bytes) -> None:
        if self._writer is None:
            try:
                self._writer = wave.open(str(self.path), "wb")  # noqa: SIM115
            except OSError as exc:
                raise AudioFormatError(
                    f"Cannot write {self.path}: {exc.strerror or exc}.",
                    hint="Choose a writable location for the WAV file.",
                ) from None
            self._writer.setnchannels(1)
            self._writer.setsampwidth(SAMPLE_WIDTH_BYTES)
            self._writer.setframerate(self.rate_hz)
        self._writer.writeframes(block)

    async def aclose(self) -> None:
        """Finish the file (the header gets its final length)."""
        await super().aclose()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
