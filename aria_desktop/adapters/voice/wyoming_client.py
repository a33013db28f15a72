"""Clients for remote Wyoming voice services (the protocol Home Assistant uses).

A GPU machine can then run Whisper, Piper or a wake word server for ARIA.

The only module that imports wyoming. URIs look like ``tcp://host:port`` (``unix://path``
works too). Every network wait is bounded; failures become ``WyomingError`` with a hint.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import AsyncGenerator
from pathlib import PurePath
from typing import Any

from aria_desktop.adapters.voice.audio import resample_pcm, to_pipeline_pcm
from aria_desktop.domain import audio as au
from aria_desktop.domain.errors import WyomingError

__all__ = ["WyomingSTT", "WyomingTTS", "WyomingWakeWord", "check_uri", "speech_to_text_models"]

_LOGGER = logging.getLogger(__name__)
_CHUNK_BYTES = 2048 * au.SAMPLE_WIDTH_BYTES
_CONNECT_TIMEOUT_S = 5.0
_VERSION_SUFFIX = re.compile(r"_v[0-9.]+$")
"""wyoming-openwakeword names detections after the model file: "hey_jarvis_v0.1"."""


def check_uri(uri: str) -> str:
    """``uri`` if it is a tcp:// or unix:// URI, else ``WyomingError`` with an example."""
    if not uri.startswith(("tcp://", "unix://")):
        raise WyomingError(
            f"{uri!r} is not a Wyoming URI.",
            hint="Use tcp://HOST:PORT, e.g. tcp://192.168.1.20:10300.",
        )
    return uri


class _Connection:
    """One Wyoming connection: connect/disconnect with bounded waits and clear errors."""

    def __init__(self, uri: str, service: str, timeout_s: float | None) -> None:
        self.uri = check_uri(uri)
        self.service = service
        self.timeout_s = timeout_s
        self.client: Any = None

    async def __aenter__(self) -> _Connection:
        from wyoming.client import AsyncClient

        self.client = AsyncClient.from_uri(self.uri)
        try:
            async with asyncio.timeout(_CONNECT_TIMEOUT_S):
                await self.client.connect()
        except (OSError, TimeoutError) as exc:
            raise self.error(f"cannot connect: {exc or 'timed out'}") from None
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        with contextlib.suppress(Exception):
            await self.client.disconnect()

    def error(self, what: str) -> WyomingError:
        return WyomingError(
            f"The Wyoming {self.service} service at {self.uri}: {what}.",
            hint=f"Check that the {self.service} server runs there and the URI in the voice "
            "settings is right (or set the engine back to local).",
        )

    async def write(self, event: Any) -> None:
        try:
            await self.client.write_event(event.event())
        except (OSError, ConnectionError) as exc:
            raise self.error(f"connection lost ({exc})") from None

    async def read(self) -> Any:
        """The next event; an ``error`` event from the server becomes ``WyomingError``."""
        from wyoming.error import Error

        try:
            async with asyncio.timeout(self.timeout_s):
                event = await self.client.read_event()
        except TimeoutError:
            raise self.error(f"no answer within {self.timeout_s:g} s") from None
        except (OSError, ConnectionError) as exc:
            raise self.error(f"connection lost ({exc})") from None
        if event is None:
            raise self.error("the server closed the connection")
        if Error.is_type(event.type):
            problem = Error.from_event(event)
            raise self.error(f"the server reported an error: {problem.text}")
        return event


async def _describe(conn: _Connection, timeout_s: float) -> Any:
    """What the server has: its answer to ``describe`` (a wyoming ``Info``)."""
    from wyoming.info import Describe, Info

    await conn.write(Describe())
    try:
        async with asyncio.timeout(timeout_s):
            event = await conn.read()
            while not Info.is_type(event.type):
                event = await conn.read()
    except TimeoutError:
        raise conn.error(f"no answer to describe within {timeout_s:g} s") from None
    return Info.from_event(event)


async def speech_to_text_models(uri: str, *, timeout_s: float = 3.0) -> tuple[str, ...]:
    """The speech-to-text models a Wyoming server has installed, as it names them.

    A quick probe (doctor, the setup wizard): everything, connecting included, is bounded by
    ``timeout_s``. ``WyomingError`` when nothing answers in time or the server does no
    speech-to-text (a Piper or wake word server on that port).
    """
    conn = _Connection(uri, "speech-to-text", timeout_s)
    try:
        async with asyncio.timeout(timeout_s):
            async with conn:
                info = await _describe(conn, timeout_s)
    except TimeoutError:
        raise conn.error(f"no answer within {timeout_s:g} s") from None
    programs = [program for program in info.asr if program.installed]
    if not programs:
        raise conn.error("it answers, but does not recognise speech (another kind of server)")
    models = [model.name for program in programs for model in program.models if model.installed]
    return tuple(models) or tuple(program.name for program in programs)


class _RequestClient:
    """A Wyoming service used one request per connection (speech-to-text, text-to-speech).

    Nothing stays open between requests, so loading only checks that the server answers (its
    models load there) and closing has nothing to do; subclasses add the request itself.
    """

    _service = ""
    """What the server does, as error messages name it."""

    def __init__(self, uri: str, *, timeout_s: float) -> None:
        self.uri = check_uri(uri)
        self._timeout_s = timeout_s

    @property
    def name(self) -> str:
        """Engine and server."""
        return f"wyoming {self.uri}"

    def _connect(self) -> _Connection:
        """A connection for one request, bounded by the configured timeout."""
        return _Connection(self.uri, self._service, self._timeout_s)

    async def load(self) -> None:
        """Check that the server answers (models load there)."""
        async with self._connect():
            pass

    async def aclose(self) -> None:
        """Nothing stays open between requests."""


class WyomingSTT(_RequestClient):
    """Speech-to-text on a Wyoming server (e.g. wyoming-faster-whisper)."""

    _service = "speech-to-text"

    def __init__(self, uri: str, *, language: str = "", timeout_s: float = 30.0) -> None:
        super().__init__(uri, timeout_s=timeout_s)
        self._language = language

    async def transcribe(
        self,
        clip: au.AudioClip,
        *,
        language: str | None = None,
        starts_with: str = "",
        prompt: str = "",
    ) -> au.Transcript:
        """Send the audio, wait for the transcript.

        ``starts_with`` and ``prompt`` are not sent: the Wyoming protocol has no field for them.
        """
        from wyoming.asr import Transcribe
        from wyoming.asr import Transcript as WyTranscript
        from wyoming.audio import AudioChunk, AudioStart, AudioStop

        pcm = await asyncio.to_thread(to_pipeline_pcm, clip)
        fmt = {"rate": au.PIPELINE_RATE_HZ, "width": au.SAMPLE_WIDTH_BYTES, "channels": 1}
        lang = language or self._language or None
        started = time.monotonic()
        async with self._connect() as conn:
            await conn.write(Transcribe(language=lang))
            await conn.write(AudioStart(**fmt))
            for offset in range(0, len(pcm), _CHUNK_BYTES):
                await conn.write(AudioChunk(audio=pcm[offset : offset + _CHUNK_BYTES], **fmt))
            await conn.write(AudioStop())
            while True:
                event = await conn.read()
                if WyTranscript.is_type(event.type):
                    result = WyTranscript.from_event(event)
                    break
        return au.Transcript(
            text=(result.text or "").strip(),
            language=result.language or lang or "",
            audio_s=len(pcm) / au.SAMPLE_WIDTH_BYTES / au.PIPELINE_RATE_HZ,
            latency_ms=(time.monotonic() - started) * 1000,
            engine=self.name,
        )


class WyomingTTS(_RequestClient):
    """Text-to-speech on a Wyoming server (e.g. wyoming-piper)."""

    _service = "text-to-speech"

    def __init__(self, uri: str, *, voice: str = "", timeout_s: float = 30.0) -> None:
        super().__init__(uri, timeout_s=timeout_s)
        self._voice = voice

    async def synthesize(self, text: str) -> AsyncGenerator[au.SpeechAudio, None]:
        """Speech for ``text`` as the server streams it (pieces of about a sentence)."""
        from wyoming.audio import AudioChunk, AudioStop
        from wyoming.tts import Synthesize, SynthesizeVoice

        text = text.strip()
        if not text:
            return
        voice = SynthesizeVoice(name=self._voice) if self._voice else None
        async with self._connect() as conn:
            await conn.write(Synthesize(text=text, voice=voice))
            pending = b""
            rate = 0
            while True:
                event = await conn.read()
                if AudioChunk.is_type(event.type):
                    chunk = AudioChunk.from_event(event)
                    pcm = chunk.audio
                    if chunk.channels != 1 or chunk.width != au.SAMPLE_WIDTH_BYTES:
                        pcm = resample_pcm(pcm, chunk.rate, chunk.rate, chunk.channels)
                    rate = chunk.rate
                    pending += pcm
                    if len(pending) >= rate * au.SAMPLE_WIDTH_BYTES // 2:  # half a second
                        yield au.SpeechAudio(pcm=pending, sample_rate_hz=rate, text=text)
                        pending = b""
                elif AudioStop.is_type(event.type):
                    break
            if pending:
                yield au.SpeechAudio(pcm=pending, sample_rate_hz=rate, text=text)


def _wake_key(name: str) -> str:
    """A wake word's name as servers know it.

    "Hey Jarvis", "hey_jarvis_v0.1" and ".../hey_jarvis_v0.1.onnx" all become "hey_jarvis".
    """
    stem = PurePath(name).stem if name.endswith((".onnx", ".tflite")) else name
    key = stem.strip().lower().replace(" ", "_").replace("-", "_")
    return _VERSION_SUFFIX.sub("", key)


class WyomingWakeWord:
    """Wake word detection on a Wyoming server (e.g. wyoming-openwakeword).

    Audio streams over one long-lived connection; detections arrive asynchronously and are
    reported with the next frame. Servers name a detection after the model file
    ("hey_jarvis_v0.1") and may send one per frame while the score stays high; names are
    reported without the version, and the pipeline's refractory period absorbs repeats.
    The stream waits for detections without a time limit (hours of silence are normal).
    """

    def __init__(self, uri: str, *, names: tuple[str, ...] = ("hey_jarvis",)) -> None:
        self.uri = check_uri(uri)
        self._names = names
        self._conn: _Connection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._detections: list[au.WakeDetection] = []

    @property
    def name(self) -> str:
        """The wake word and server."""
        return f"{self._names[0]}@{self.uri}"

    async def load(self) -> None:
        """Connect, check that the server has the wake words, and start streaming."""
        if self._conn is not None:
            return
        from wyoming.audio import AudioStart
        from wyoming.wake import Detect

        conn = _Connection(self.uri, "wake word", timeout_s=None)
        await conn.__aenter__()
        try:
            await self._check_models(conn)
            await conn.write(Detect(names=[_wake_key(n) for n in self._names]))
            await conn.write(
                AudioStart(rate=au.PIPELINE_RATE_HZ, width=au.SAMPLE_WIDTH_BYTES, channels=1)
            )
        except BaseException:
            await conn.__aexit__(None, None, None)
            raise
        self._conn = conn
        self._reader = asyncio.create_task(self._read(conn), name="aria-wyoming-wake-reader")

    async def _check_models(self, conn: _Connection) -> None:
        """Ask the server what it has (``describe``), so a wrong name fails at start."""
        info = await _describe(conn, _CONNECT_TIMEOUT_S)
        available = {_wake_key(model.name) for program in info.wake for model in program.models}
        missing = [name for name in self._names if _wake_key(name) not in available]
        if missing:
            has = ", ".join(sorted(available)) or "no wake words"
            raise conn.error(f"it has no wake word {missing[0]!r} (it has: {has})")

    async def _read(self, conn: _Connection) -> None:
        from wyoming.wake import Detection

        while True:
            try:
                event = await conn.read()
                if not Detection.is_type(event.type):
                    continue  # not-detected, info, ...
                found = Detection.from_event(event)
            except WyomingError:
                raise
            except Exception as exc:  # malformed data from the server
                raise conn.error(f"unexpected data ({exc})") from None
            name = _wake_key(found.name or "") or _wake_key(self._names[0])
            self._detections.append(au.WakeDetection(name=name, score=1.0))

    async def process(self, frame: bytes) -> au.WakeDetection | None:
        """Send one frame; a detection if the server reported one."""
        from wyoming.audio import AudioChunk

        if self._conn is None:
            await self.load()
        assert self._conn is not None
        if self._reader is not None and self._reader.done():
            exc = self._reader.exception()
            conn, self._conn, self._reader = self._conn, None, None
            await conn.__aexit__(None, None, None)
            raise exc if exc is not None else conn.error("the server went away")
        await self._conn.write(
            AudioChunk(
                rate=au.PIPELINE_RATE_HZ, width=au.SAMPLE_WIDTH_BYTES, channels=1, audio=frame
            )
        )
        return self._detections.pop(0) if self._detections else None

    def reset(self) -> None:
        """Forget detections not yet reported."""
        self._detections.clear()

    async def scan_speech(self, audio: au.SpeechAudio) -> list[float] | None:
        """Not supported remotely: the pipeline mutes detection while ARIA speaks."""
        return None

    async def aclose(self) -> None:
        """Close the stream."""
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
        if self._conn is not None:
            await self._conn.__aexit__(None, None, None)
            self._conn = None
