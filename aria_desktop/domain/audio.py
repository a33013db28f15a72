"""Audio values shared by the voice pipeline (core) and the voice adapters.

PCM is always signed 16-bit little-endian. Inside the pipeline every frame is 16 kHz mono
(``PIPELINE_RATE_HZ``); sources convert whatever they capture to that, and sinks convert the
speech they are given to whatever the output device wants.
"""

from __future__ import annotations

from dataclasses import dataclass

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
]

PIPELINE_RATE_HZ = 16_000
"""Sample rate of every frame inside the pipeline (what Whisper, Silero and openWakeWord want)."""
SAMPLE_WIDTH_BYTES = 2
"""Signed 16-bit PCM."""
FRAME_SAMPLES = 1280
"""Samples per pipeline frame: 80 ms at 16 kHz, the frame size openWakeWord is built for."""

WHISPER_LANGUAGES = (
    "af", "am", "ar", "as", "az", "ba", "be", "bg", "bn", "bo", "br", "bs", "ca", "cs", "cy",
    "da", "de", "el", "en", "es", "et", "eu", "fa", "fi", "fo", "fr", "gl", "gu", "ha", "haw",
    "he", "hi", "hr", "ht", "hu", "hy", "id", "is", "it", "ja", "jw", "ka", "kk", "km", "kn",
    "ko", "la", "lb", "ln", "lo", "lt", "lv", "mg", "mi", "mk", "ml", "mn", "mr", "ms", "mt",
    "my", "ne", "nl", "nn", "no", "oc", "pa", "pl", "ps", "pt", "ro", "ru", "sa", "sd", "si",
    "sk", "sl", "sn", "so", "sq", "sr", "su", "sv", "sw", "ta", "te", "tg", "th", "tk", "tl",
    "tr", "tt", "uk", "ur", "uz", "vi", "yi", "yo", "zh", "yue",
)  # fmt: skip
"""Language codes Whisper knows (faster-whisper's list; a test keeps the two equal).

Kept here, stdlib-only, so settings validation and the GUI need not import faster-whisper.
"""


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
        index: the device's index (what ``voice.input_device`` may name).
        name: human-readable name.
        inputs, outputs: maximum input and output channels.
        default_rate_hz: the device's preferred sample rate.
        is_default_input, is_default_output: whether it is the system default.
        host_api: the audio system (ALSA, PulseAudio, CoreAudio, WASAPI, ...).
    """

    index: int
    name: str
    inputs: int
    outputs: int
    default_rate_hz: float
    is_default_input: bool = False
    is_default_output: bool = False
    host_api: str = ""
