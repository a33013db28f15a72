"""Audio values shared by the voice pipeline (core) and the voice adapters.

PCM is always signed 16-bit little-endian. Inside the pipeline every frame is 16 kHz mono
(``PIPELINE_RATE_HZ``); sources convert whatever they capture to that, and sinks convert the
speech they are given to whatever the output device wants.
"""

from __future__ import annotations

import io
import wave
from dataclasses import dataclass

from aria_desktop.domain.errors import AudioFormatError
from aria_desktop.domain.languages import WHISPER_LANGUAGES  # re-exported: audio's vocabulary

__all__ = [
    "FRAME_SAMPLES",
    "PIPELINE_RATE_HZ",
    "SAMPLE_WIDTH_BYTES",
    "WHISPER_LANGUAGES",
    "AudioClip",
    "AudioDevice",
    "SpeechAudio",
    "Transcript",
    "WakeDetection",
    "decode_wav",
    "encode_wav",
]

PIPELINE_RATE_HZ = 16_000
"""Sample rate of every frame inside the pipeline (what Whisper, Silero and openWakeWord want)."""
SAMPLE_WIDTH_BYTES = 2
"""Signed 16-bit PCM."""
FRAME_SAMPLES = 1280
"""Samples per pipeline frame: 80 ms at 16 kHz, the frame size openWakeWord is built for."""


@dataclass(frozen=True, kw_only=True)
class AudioClip:
    """A stretch of 16-bit PCM audio.

    Attributes:
        pcm: interleaved signed 16-bit little-endian samples.
        sample_rate_hz: samples per second per channel.
        channels: number of interleaved channels.
    """

    pcm: bytes
    sample_rate_hz: int = PIPELINE_RATE_HZ
    channels: int = 1

    @property
    def duration_s(self) -> float:
        """Length of the clip in seconds."""
        frame_bytes = SAMPLE_WIDTH_BYTES * self.channels
        return len(self.pcm) / frame_bytes / self.sample_rate_hz if self.sample_rate_hz else 0.0

    def to_wav(self) -> bytes:
        """The clip as the bytes of a 16-bit PCM WAV file."""
        return encode_wav(self.pcm, self.sample_rate_hz, self.channels)


@dataclass(frozen=True, kw_only=True)
class SpeechAudio:
    """One piece of synthesized speech (mono 16-bit PCM), usually one sentence.

    Attributes:
        pcm: mono signed 16-bit little-endian samples.
        sample_rate_hz: the voice's native rate (Piper voices: 22,050 Hz or 16,000 Hz).
        text: the text this audio says.
    """

    pcm: bytes
    sample_rate_hz: int
    text: str = ""

    def to_wav(self) -> bytes:
        """The speech as the bytes of a mono 16-bit PCM WAV file."""
        return encode_wav(self.pcm, self.sample_rate_hz, 1)

    @property
    def duration_s(self) -> float:
        """Length in seconds."""
        return len(self.pcm) / SAMPLE_WIDTH_BYTES / self.sample_rate_hz


@dataclass(frozen=True, kw_only=True)
class Transcript:
    """What speech-to-text heard.

    Attributes:
        text: the transcript, stripped ("" when nothing intelligible was said).
        language: detected or configured language code ("en").
        audio_s: length of the transcribed audio, in seconds.
        latency_ms: time the recogniser took, in milliseconds.
        engine: who transcribed it ("faster-whisper tiny.en", "wyoming tcp://...").
    """

    text: str
    language: str = ""
    audio_s: float = 0.0
    latency_ms: float = 0.0
    engine: str = ""


@dataclass(frozen=True, kw_only=True)
class WakeDetection:
    """The wake word was heard.

    Attributes:
        name: the wake word model that fired ("hey_jarvis").
        score: the model's score for the frame (0..1).
    """

    name: str
    score: float


@dataclass(frozen=True, kw_only=True)
class AudioDevice:
    """A sound device as the operating system lists it.

    Attributes:
        index: the device's index (what ``voice.input_device`` may name); -1 for a sound
            server's sink or source, which is named by its name only.
        name: the stable name the settings store (PortAudio's name, or the sound server's
            sink/source name such as ``alsa_output.usb-...analog-stereo``).
        inputs, outputs: maximum input and output channels.
        default_rate_hz: the device's preferred sample rate.
        is_default_input, is_default_output: whether it is the system default.
        host_api: the audio system (ALSA, PulseAudio, CoreAudio, WASAPI, ...).
        description: what people read ("USB Headset Analog Stereo"); "" when the name is all
            there is.
    """

    index: int
    name: str
    inputs: int
    outputs: int
    default_rate_hz: float
    is_default_input: bool = False
    is_default_output: bool = False
    host_api: str = ""
    description: str = ""


def encode_wav(pcm: bytes, sample_rate_hz: int, channels: int = 1) -> bytes:
    """Signed 16-bit PCM as the bytes of a WAV file (the one WAV writer in ARIA)."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as writer:
        writer.setnchannels(channels)
        writer.setsampwidth(SAMPLE_WIDTH_BYTES)
        writer.setframerate(sample_rate_hz)
        writer.writeframes(pcm)
    return buffer.getvalue()


def decode_wav(
    data: bytes, *, name: str = "The audio file", allow_empty: bool = False
) -> AudioClip:
    """A 16-bit PCM WAV file's samples (the one WAV reader in ARIA).

    Every reader — uploads to the API, files on disk, audio the API sends back — applies the
    same checks, so a file one path accepts is never refused by another.

    Args:
        data: the file's bytes.
        name: how to name the file in error messages (a path, or "The audio file").
        allow_empty: accept a file with no samples (speech output may legitimately be empty).

    Raises:
        AudioFormatError: not a PCM WAV, not 16-bit, or (unless allowed) no samples.
    """
    try:
        with wave.open(io.BytesIO(data), "rb") as reader:
            width = reader.getsampwidth()
            if width != SAMPLE_WIDTH_BYTES:
                raise AudioFormatError(
                    f"{name} has {8 * width}-bit samples; ARIA reads 16-bit PCM.",
                    hint="Convert it, e.g. `sox in.wav -b 16 out.wav`.",
                )
            clip = AudioClip(
                pcm=reader.readframes(reader.getnframes()),
                sample_rate_hz=reader.getframerate(),
                channels=reader.getnchannels(),
            )
    except (wave.Error, EOFError):
        raise AudioFormatError(
            f"{name} {_what_it_is(data)}; ARIA reads only WAV files with 16-bit samples.",
            hint="Convert it to a 16-bit WAV file first: save it as WAV in an audio editor such "
            "as Audacity, or run `ffmpeg -i INPUT -ac 1 -ar 16000 -sample_fmt s16 output.wav`.",
        ) from None
    if not clip.pcm and not allow_empty:
        raise AudioFormatError(f"{name} holds no audio.", hint="Record something first.")
    return clip


_SIGNATURES: tuple[tuple[int, bytes, str], ...] = (
    (0, b"ID3", "an MP3 file"),
    (0, b"\xff\xfb", "an MP3 file"),
    (0, b"\xff\xf3", "an MP3 file"),
    (0, b"\xff\xf2", "an MP3 file"),
    (0, b"OggS", "an Ogg file (Vorbis or Opus)"),
    (0, b"fLaC", "a FLAC file"),
    (4, b"ftyp", "an MP4 or M4A file"),
    (0, b"\x1aE\xdf\xa3", "a WebM or Matroska file"),
    (8, b"AIFF", "an AIFF file"),
)
"""Where a common audio format says what it is, and its name (what the user may have sent)."""


def _what_it_is(data: bytes) -> str:
    """What ``data`` is, said after the file's name ("is an MP3 file", "is empty")."""
    if not data:
        return "is empty"
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "is a WAV file in a compressed or floating-point encoding"
    for offset, magic, kind in _SIGNATURES:
        if data[offset : offset + len(magic)] == magic:
            return f"is {kind}, not a WAV file"
    return "is not a WAV file"
