"""Sound devices through sounddevice (PortAudio): listing, the microphone, the speaker.

The only module that imports sounddevice. Having no sound device (no card, no PortAudio, a
headless server) is a normal state: ``list_devices`` raises ``AudioDeviceError`` with a hint,
and the doctor reports it as a warning.

PortAudio enumerates devices once, when it initialises. So that a headset plugged in (or a
sound server started) after ARIA started is found, listing re-initialises PortAudio whenever
none of ARIA's streams is open (re-initialising would end them).

Through ALSA, PortAudio sees a PulseAudio (or PipeWire) desktop as one device, ``pulse``. When
that server answers ``pactl``, its own sinks and sources are listed instead of ALSA's aliases of
the default (``pulse_devices.py``), and one is opened as the ``pulse`` device with
``PULSE_SINK`` / ``PULSE_SOURCE`` naming it: libpulse, inside ALSA's pulse plugin, connects a
stream given no device to the one those variables name, and reads them when the plugin opens.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import AsyncGenerator, Callable, Coroutine
from typing import Any, TypeVar

from aria_desktop.adapters.voice.audio import FRAME_BYTES, PacedSink, resample_pcm
from aria_desktop.adapters.voice.pulse_devices import (
    match_device,
    opening_route,
    readable_name,
    with_server_devices,
)
from aria_desktop.domain import audio as au
from aria_desktop.domain.errors import AudioDeviceError

__all__ = ["MicrophoneSource", "SpeakerSink", "find_device", "list_devices"]

_LOGGER = logging.getLogger(__name__)
_T = TypeVar("_T")
_NO_AUDIO_HINT = (
    "Connect a microphone/speaker (or check PulseAudio/PipeWire); on Debian/Ubuntu install "
    "libportaudio2. Typed chat works without audio."
)
_QUEUE_FRAMES = 50
"""Captured frames buffered for a slow pipeline (4 s) before the oldest are dropped."""
_SPEAKER_LEAD_S = 0.5
"""Speech handed to the speaker ahead of playback, so the event loop may stall (inference
threads hold the GIL) without a gap in the voice; ``stop`` drops it, so it does not delay an
interruption."""


class _PortAudio:
    """Process-wide PortAudio state.

    One lock for (re)initialising and opening streams, and the number of ARIA's streams that
    are open (PortAudio cannot re-initialise under them).
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open_streams = 0
        self.fresh = False


_PA = _PortAudio()


def _sounddevice() -> Any:
    fresh = "sounddevice" not in sys.modules
    try:
        import sounddevice
    except (ImportError, OSError) as exc:  # OSError: PortAudio library missing
        raise AudioDeviceError(f"No audio system: {exc}.", hint=_NO_AUDIO_HINT) from None
    if fresh:
        _PA.fresh = True  # importing initialised PortAudio: its list is current
    return sounddevice


def _rescan(sd: Any) -> None:
    """Re-initialise PortAudio so its device list is current (caller holds ``_PA.lock``).

    Takes ≈25 ms with ALSA and PulseAudio.
    """
    if _PA.open_streams or _PA.fresh:
        _PA.fresh = False
        return
    # sounddevice's maintainers' documented way to refresh the list (PortAudio has no hotplug
    # API): https://github.com/spatialaudio/python-sounddevice/issues/125
    try:
        sd._terminate()
        sd._initialize()
    except Exception as exc:
        raise AudioDeviceError(f"Cannot list audio devices: {exc}.", hint=_NO_AUDIO_HINT) from None


def list_devices() -> list[au.AudioDevice]:
    """Every input and output device the system has now (may be empty).

    The sound server's sinks and sources first (by their names, with descriptions), when one
    answers; then PortAudio's devices, without its aliases of the server's default then.
    Blocks for tens of milliseconds (PortAudio probes each device, ``pactl`` runs): call it
    from a worker thread in async code.
    """
    return _listing()[0]


def _listing() -> tuple[list[au.AudioDevice], list[au.AudioDevice]]:
    """The devices listed, and PortAudio's aliases hidden behind the server's devices.

    See ``with_server_devices``.
    """
    return with_server_devices(_portaudio_devices())


def _portaudio_devices() -> list[au.AudioDevice]:
    """PortAudio's devices, re-listed if no stream is open."""
    sd = _sounddevice()
    try:
        with _PA.lock:
            _rescan(sd)
            raw = sd.query_devices()
            apis = sd.query_hostapis()
            default_in, default_out = sd.default.device
    except AudioDeviceError:
        raise
    except Exception as exc:  # PortAudioError: no audio server
        raise AudioDeviceError(f"Cannot list audio devices: {exc}.", hint=_NO_AUDIO_HINT) from None
    devices = []
    for index, info in enumerate(raw):
        api_index = info.get("hostapi", -1)
        devices.append(
            au.AudioDevice(
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


def find_device(spec: str, *, output: bool) -> au.AudioDevice:
    """The device ``spec`` names.

    "" = the system default; an index; a name or a description, whole or in part (whole
    first, names before descriptions). An alias not listed beside the sound server's devices
    ("pulse", "default": an older setting) is still found.
    """
    kind = "speaker" if output else "microphone"
    listed, hidden = _listing()
    devices = [d for d in listed if (d.outputs if output else d.inputs) > 0]
    if not devices:
        raise AudioDeviceError(f"There is no {kind} on this computer.", hint=_NO_AUDIO_HINT)
    spec = spec.strip()
    if not spec:
        for device in devices:
            if device.is_default_output if output else device.is_default_input:
                return device
        return devices[0]
    aliases = [d for d in hidden if (d.outputs if output else d.inputs) > 0]
    found = match_device(devices, spec) or match_device(aliases, spec)
    if found is not None:
        return found
    names = ", ".join(readable_name(d) for d in devices)
    raise AudioDeviceError(
        f"No {kind} matches {spec!r}. Available: {names}.",
        hint=f"`aria voice devices` lists them; set voice.{'output' if output else 'input'}"
        "_device to a name (or an index).",
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
        self._device: au.AudioDevice | None = None

    @property
    def name(self) -> str:
        """The device's name (once opened)."""
        return f"mic:{self._device.name if self._device else self._spec or 'default'}"

    async def frames(self) -> AsyncGenerator[bytes, None]:
        """Captured frames until closed."""
        sd = _sounddevice()
        device = await _whole(asyncio.to_thread(find_device, self._spec, output=False))
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

        pinned = bool(self._spec.strip())
        opening = asyncio.to_thread(_open_input, sd, device, callback, pinned)
        stream, rate = await _whole(opening, lambda opened: _close_stream(opened[0]))
        _LOGGER.info("Microphone %s open at %d Hz", device.name, rate)
        pending = b""
        try:
            try:
                stream.start()
            except Exception as exc:
                raise AudioDeviceError(
                    f"Cannot start the microphone {device.name!r}: {exc}.", hint=_NO_AUDIO_HINT
                ) from None
            while True:
                data = await queue.get()
                if rate != au.PIPELINE_RATE_HZ:
                    data = resample_pcm(data, rate, au.PIPELINE_RATE_HZ)
                pending += data
                while len(pending) >= FRAME_BYTES:
                    frame, pending = pending[:FRAME_BYTES], pending[FRAME_BYTES:]
                    yield frame
        finally:
            _close_stream(stream)
            _LOGGER.info("Microphone %s closed", device.name)


async def _whole(work: Coroutine[Any, Any, _T], undo: Callable[[_T], None] | None = None) -> _T:
    """The result of ``work`` (a worker thread's), waited for even if the caller gives up.

    Then what the thread made is undone (``undo``).

    A cancelled ``to_thread`` leaves its thread running: a stream it opens would keep calling
    back into the loop, and its own end is posted to a loop that may be closed by then (a
    picked microphone changed again at once, a window closed, ARIA quitting).
    """
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        while not task.done():  # cancelled again meanwhile: still wait for the thread
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait([task])
        if undo is not None and not task.cancelled() and task.exception() is None:
            undo(task.result())
        raise


def _open_input(sd: Any, device: au.AudioDevice, callback: Any, pinned: bool) -> tuple[Any, int]:
    """A raw 16-bit mono input stream at 16 kHz, or at the device's own rate if it cannot.

    ``pinned``: the device was named (not the system default); see ``opening_route``.
    """
    error: Exception | None = None
    with _PA.lock, opening_route(sd, device, output=False, pinned=pinned) as index:
        for rate in dict.fromkeys((au.PIPELINE_RATE_HZ, int(device.default_rate_hz) or 48_000)):
            try:
                stream = sd.RawInputStream(
                    device=index,
                    samplerate=rate,
                    channels=1,
                    dtype="int16",
                    blocksize=int(au.FRAME_SAMPLES * rate / au.PIPELINE_RATE_HZ),
                    callback=callback,
                )
            except Exception as exc:
                error = exc
                continue
            _PA.open_streams += 1
            return stream, rate
    raise AudioDeviceError(
        f"Cannot open the microphone {device.name!r}: {error}.", hint=_NO_AUDIO_HINT
    ) from None


def _close_stream(stream: Any) -> None:
    """Abort (drop buffered audio) and close a stream opened here."""
    with contextlib.suppress(Exception):
        stream.abort()
    with contextlib.suppress(Exception):
        stream.close()
    with _PA.lock:
        _PA.open_streams -= 1


class SpeakerSink(PacedSink):
    """Speech to a speaker.

    The paced player hands 20 ms blocks to a small buffer that PortAudio's callback drains,
    keeping it at most ``lead_s`` ahead of what the device has taken (also when the device
    starts late or stalls). ``stop`` empties that buffer and aborts the stream, which drops
    what the device and the sound server still hold. The stream opens (in a worker thread)
    with the first speech and stays open until ``stop`` or ``aclose``.

    Args:
        device: device index/name ("" = system default).
        rate_hz: output rate (Piper's 22,050 Hz by default; speech is resampled to it).
    """

    lead_s = _SPEAKER_LEAD_S
    tops_up = True

    def __init__(self, device: str = "", *, rate_hz: int = 22_050) -> None:
        super().__init__(rate_hz=rate_hz, realtime=True)
        self._spec = device
        self._device: au.AudioDevice | None = None
        self._stream: Any = None
        self._buffer = bytearray()
        self._lock = threading.Lock()
        self._closing: asyncio.Future[None] | None = None
        self._emptied = asyncio.Event()
        self.underruns = 0
        """Device callbacks that found the buffer short while speech was still queued."""
        self.device_underflows = 0
        """Times the device itself ran dry (its callback came too late)."""

    @property
    def name(self) -> str:
        """The output device."""
        return f"speaker:{self._device.name if self._device else self._spec or 'default'}"

    def open(self, loop: asyncio.AbstractEventLoop) -> None:
        """Open the output stream (raises ``AudioDeviceError`` without a speaker); blocking.

        Args:
            loop: the event loop that writes (the device callback reports to it).
        """
        if self._stream is not None:
            return
        sd = _sounddevice()
        device = find_device(self._spec, output=True)

        def callback(outdata: Any, frames: int, _time: Any, status: Any) -> None:
            if status.output_underflow:
                self.device_underflows += 1
            wanted = frames * au.SAMPLE_WIDTH_BYTES
            with self._lock:
                chunk = bytes(self._buffer[:wanted])
                del self._buffer[:wanted]
            outdata[: len(chunk)] = chunk
            if chunk and not self._buffer:
                with contextlib.suppress(RuntimeError):  # the loop is closing
                    loop.call_soon_threadsafe(self._emptied.set)
            if len(chunk) < wanted:
                outdata[len(chunk) :] = b"\0" * (wanted - len(chunk))
                if self._queue:
                    self.underruns += 1

        pinned = bool(self._spec.strip())
        with _PA.lock, opening_route(sd, device, output=True, pinned=pinned) as index:
            try:
                stream = sd.RawOutputStream(
                    device=index,
                    samplerate=self.rate_hz,
                    channels=1,
                    dtype="int16",
                    # PortAudio's "high" latency (≈35 ms on ALSA): its callback needs the
                    # GIL, and a 3 ms period ("low") underflows while models run.
                    latency="high",
                    callback=callback,
                )
            except Exception as exc:
                raise AudioDeviceError(
                    f"Cannot open the speaker {device.name!r}: {exc}.", hint=_NO_AUDIO_HINT
                ) from None
            _PA.open_streams += 1
        try:
            stream.start()
        except Exception as exc:
            _close_stream(stream)
            raise AudioDeviceError(
                f"Cannot start the speaker {device.name!r}: {exc}.", hint=_NO_AUDIO_HINT
            ) from None
        self._stream = stream
        self._device = device
        _LOGGER.info("Speaker %s open at %d Hz", device.name, self.rate_hz)

    async def write(self, audio: au.SpeechAudio) -> None:
        """Open the speaker if needed (off the event loop), then queue the speech."""
        if self._stream is None:
            if self._closing is not None:
                await self._closing
                self._closing = None
            await asyncio.to_thread(self.open, asyncio.get_running_loop())
        await super().write(audio)

    def _backlog_s(self) -> float:
        return len(self._buffer) / au.SAMPLE_WIDTH_BYTES / self.rate_hz

    async def drain(self) -> None:
        """Wait until the device has taken everything.

        Not just until the last block went into the buffer (``lead_s`` earlier): "done
        speaking" must mean heard, or the microphone would reopen on ARIA's last words.
        """
        await super().drain()
        with contextlib.suppress(TimeoutError):  # a stalled device: do not hang
            async with asyncio.timeout(self._backlog_s() + 1.0):
                while self._buffer and self._stream is not None:
                    self._emptied.clear()  # a stale "emptied" from a momentary underrun
                    if self._buffer:
                        await self._emptied.wait()

    def _emit(self, block: bytes) -> None:
        self._emptied.clear()
        with self._lock:
            self._buffer += block

    def stop(self) -> None:
        """Silence now: drop queued speech, our buffer and what the device still holds.

        Aborting the stream discards the audio already handed to the device (PortAudio's,
        ALSA's and the sound server's buffers); it happens in a worker thread, and the next
        ``write`` opens a fresh stream.
        """
        super().stop()
        with self._lock:
            playing = bool(self._buffer)
            self._buffer.clear()
        stream = self._stream
        if stream is None or not playing:
            return
        self._stream = None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            _close_stream(stream)
            return
        self._closing = loop.run_in_executor(None, _close_stream, stream)

    async def aclose(self) -> None:
        """Close the output stream."""
        await super().aclose()
        if self._closing is not None:
            await self._closing
            self._closing = None
        stream, self._stream = self._stream, None
        if stream is not None:
            await asyncio.to_thread(_close_stream, stream)
