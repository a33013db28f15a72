"""Sound devices through sounddevice (PortAudio): listing, the microphone, the speaker.

The only module that imports sounddevice. Having no sound device (no card, no PortAudio, a
headless server) is a normal state: ``list_devices`` raises ``AudioDeviceError`` with a hint,
and the doctor reports it as a warning.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncGenerator
from typing import Any

from aria_desktop.domain.audio import (
    FRAME_SAMPLES,
    PIPELINE_RATE_HZ,
    SAMPLE_WIDTH_BYTES,
    AudioDevice,
)
from aria_desktop.domain.errors import AudioDeviceError
from aria_desktop.voice.audio import FRAME_BYTES, PacedSink, resample_pcm

__all__ = ["MicrophoneSource", "SpeakerSink", "find_device", "list_devices"]

_LOGGER = logging.getLogger(__name__)
_NO_AUDIO_HINT = (
    "Connect a microphone/speaker (or check PulseAudio/PipeWire); on Debian/Ubuntu install "
    "libportaudio2. Typed chat works without audio."
)
_QUEUE_FRAMES = 50
"""Captured frames buffered for a slow pipeline (4 s) before the oldest are dropped."""


def _sounddevice() -> Any:
    try:
        import sounddevice
    except (ImportError, OSError) as exc:  # OSError: PortAudio library missing
        raise AudioDeviceError(f"No audio system: {exc}.", hint=_NO_AUDIO_HINT) from None
    return sounddevice


def list_devices() -> list[AudioDevice]:
    """Every input and output device the system has (may be empty)."""
    sd = _sounddevice()
    try:
        raw = sd.query_devices()
        apis = sd.query_hostapis()
        default_in, default_out = sd.default.device
    except Exception as exc:  # PortAudioError: no audio server
        raise AudioDeviceError(f"Cannot list audio devices: {exc}.", hint=_NO_AUDIO_HINT) from None
    devices = []
    for index, info in enumerate(raw):
        api_index = info.get("hostapi", -1)
        devices.append(
            AudioDevice(
                index=index,
                name=str(info.get("name", f"device {index}")),
                inputs=int(info.get("max_input_channels", 0)),
                outputs=int(info.get("max_output_channels", 0)),
                default_rate_hz=float(info.get("default_samplerate", 0.0)),
                is_default_input=index == default_in,
                is_default_output=index == default_out,
                host_api=str(apis[api_index]["name"]) if 0 <= api_index < len(apis) else "",
            )
        )
    return devices


def find_device(spec: str, *, output: bool) -> AudioDevice:
    """The device ``spec`` names ("" = system default; an index; or part of a name)."""
    kind = "speaker" if output else "microphone"
    devices = [d for d in list_devices() if (d.outputs if output else d.inputs) > 0]
    if not devices:
        raise AudioDeviceError(f"There is no {kind} on this computer.", hint=_NO_AUDIO_HINT)
    spec = spec.strip()
    if not spec:
        for device in devices:
            if device.is_default_output if output else device.is_default_input:
                return device
        return devices[0]
    if spec.isdigit():
        for device in devices:
            if device.index == int(spec):
                return device
    matches = [d for d in devices if spec.lower() in d.name.lower()]
    if matches:
        return matches[0]
    names = ", ".join(f"{d.index}: {d.name}" for d in devices)
    raise AudioDeviceError(
        f"No {kind} matches {spec!r}. Available: {names}.",
        hint=f"`aria voice devices` lists them; set voice.{'output' if output else 'input'}"
        "_device to an index or a name.",
    )


class MicrophoneSource:
    """Frames from a microphone (16 kHz mono; resampled when the device cannot do 16 kHz).

    PortAudio calls back on its own thread; each block is handed to the event loop with
    ``call_soon_threadsafe``. Closing the ``frames`` generator closes the stream.

    Args:
        device: device index/name ("" = system default).
    """

    def __init__(self, device: str = "") -> None:
        self._spec = device
        self._device: AudioDevice | None = None

    @property
    def name(self) -> str:
        """The device's name (once opened)."""
        return f"mic:{self._device.name if self._device else self._spec or 'default'}"

    async def frames(self) -> AsyncGenerator[bytes, None]:
        """Captured frames until closed."""
        sd = _sounddevice()
        device = await asyncio.to_thread(find_device, self._spec, output=False)
        self._device = device
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[bytes] = asyncio.Queue(maxsize=_QUEUE_FRAMES)

        def offer(data: bytes) -> None:
            if queue.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    queue.get_nowait()  # a stalled consumer loses the oldest audio
            queue.put_nowait(data)

        def callback(indata: Any, _frames: int, _time: Any, status: Any) -> None:
            if status:
                _LOGGER.debug("microphone status: %s", status)
            loop.call_soon_threadsafe(offer, bytes(indata))

        rate = PIPELINE_RATE_HZ
        try:
            stream = sd.RawInputStream(
                device=device.index,
                samplerate=rate,
                channels=1,
                dtype="int16",
                blocksize=FRAME_SAMPLES,
                callback=callback,
            )
        except Exception:
            rate = int(device.default_rate_hz) or 48_000
            try:
                stream = sd.RawInputStream(
                    device=device.index,
                    samplerate=rate,
                    channels=1,
                    dtype="int16",
                    blocksize=int(FRAME_SAMPLES * rate / PIPELINE_RATE_HZ),
                    callback=callback,
                )
            except Exception as exc:
                raise AudioDeviceError(
                    f"Cannot open the microphone {device.name!r}: {exc}.", hint=_NO_AUDIO_HINT
                ) from None
        _LOGGER.info("Microphone %s open at %d Hz", device.name, rate)
        pending = b""
        try:
            stream.start()
            while True:
                data = await queue.get()
                if rate != PIPELINE_RATE_HZ:
                    data = resample_pcm(data, rate, PIPELINE_RATE_HZ)
                pending += data
                while len(pending) >= FRAME_BYTES:
                    frame, pending = pending[:FRAME_BYTES], pending[FRAME_BYTES:]
                    yield frame
        finally:
            with contextlib.suppress(Exception):
                stream.abort()
            with contextlib.suppress(Exception):
                stream.close()
            _LOGGER.info("Microphone %s closed", device.name)


class SpeakerSink(PacedSink):
    """Speech to a speaker.

    The paced player hands 20 ms blocks to a small buffer that PortAudio's callback drains,
    so ``stop`` silences the output within a block plus the device latency.

    Args:
        device: device index/name ("" = system default).
        rate_hz: output rate (Piper's 22,050 Hz by default; speech is resampled to it).
    """

    def __init__(self, device: str = "", *, rate_hz: int = 22_050) -> None:
        super().__init__(rate_hz=rate_hz, realtime=True)
        self._spec = device
        self._stream: Any = None
        self._buffer = bytearray()
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """The output device."""
        return f"speaker:{self._spec or 'default'}"

    def open(self) -> None:
        """Open the output stream (raises ``AudioDeviceError`` without a speaker)."""
        if self._stream is not None:
            return
        sd = _sounddevice()
        device = find_device(self._spec, output=True)

        def callback(outdata: Any, frames: int, _time: Any, status: Any) -> None:
            wanted = frames * SAMPLE_WIDTH_BYTES
            with self._lock:
                chunk = bytes(self._buffer[:wanted])
                del self._buffer[:wanted]
            outdata[: len(chunk)] = chunk
            if len(chunk) < wanted:
                outdata[len(chunk) :] = b"\0" * (wanted - len(chunk))

        try:
            self._stream = sd.RawOutputStream(
                device=device.index,
                samplerate=self.rate_hz,
                channels=1,
                dtype="int16",
                latency="low",
                callback=callback,
            )
            self._stream.start()
        except Exception as exc:
            self._stream = None
            raise AudioDeviceError(
                f"Cannot open the speaker {device.name!r}: {exc}.", hint=_NO_AUDIO_HINT
            ) from None

    def _emit(self, block: bytes) -> None:
        if self._stream is None:
            self.open()
        with self._lock:
            self._buffer += block

    def stop(self) -> None:
        """Silence now: drop queued speech and the device buffer."""
        super().stop()
        with self._lock:
            self._buffer.clear()

    async def aclose(self) -> None:
        """Close the output stream."""
        await super().aclose()
        if self._stream is not None:
            with contextlib.suppress(Exception):
                self._stream.abort()
                self._stream.close()
            self._stream = None
