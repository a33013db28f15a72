"""Ports of the voice pipeline: audio in and out, wake word, VAD, speech to text and back."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Protocol

from aria_desktop.domain.audio import (
    AudioClip,
    AudioDevice,
    SpeechAudio,
    Transcript,
    WakeDetection,
)

__all__ = [
    "AudioSink",
    "AudioSource",
    "HandsFree",
    "SoundCheck",
    "SpeechToText",
    "TextToSpeech",
    "VocabularyTarget",
    "VoiceActivityDetector",
    "WakeWordDetector",
]


class AudioSource(Protocol):
    """Where command audio comes from: a microphone, a WAV file, a raw PCM pipe."""

    @property
    def name(self) -> str: ...

    def frames(self) -> AsyncGenerator[bytes, None]:
        """16 kHz mono int16 frames of ``FRAME_SAMPLES`` samples until the source ends.

        Closing the generator closes the capture stream (mute means exactly that).
        """
        ...


class AudioSink(Protocol):
    """Where speech goes: a speaker or a WAV file."""

    @property
    def name(self) -> str: ...

    async def write(self, audio: SpeechAudio) -> None:
        """Queue speech for playback; returns once queued (playback continues after)."""
        ...

    async def drain(self) -> None:
        """Wait until everything queued has been played (or ``stop`` was called)."""
        ...

    def stop(self) -> None:
        """Discard queued speech and silence the output now (interruption, kill switch)."""
        ...

    async def aclose(self) -> None: ...


class WakeWordDetector(Protocol):
    """Spots the wake word in a stream of frames."""

    @property
    def name(self) -> str: ...

    async def load(self) -> None: ...

    async def process(self, frame: bytes) -> WakeDetection | None:
        """Feed one frame; a detection when the wake word just ended in it."""
        ...

    def reset(self) -> None:
        """Forget the audio seen so far (after a detection, after playback)."""
        ...

    async def aclose(self) -> None: ...


class VoiceActivityDetector(Protocol):
    """Tells speech from silence, frame by frame (for endpointing)."""

    async def load(self) -> None: ...

    async def speech_probability(self, frame: bytes) -> float:
        """Probability (0..1) that the frame holds speech."""
        ...

    def reset(self) -> None: ...


class SpeechToText(Protocol):
    """Turns a recorded command into text."""

    @property
    def name(self) -> str: ...

    async def load(self) -> None: ...

    async def transcribe(
        self,
        clip: AudioClip,
        *,
        language: str | None = None,
        starts_with: str = "",
        prompt: str = "",
    ) -> Transcript:
        """Transcribe any-rate PCM (converted to what the model needs).

        ``starts_with``: the wake phrase the audio begins with, for an engine that decodes from it.
        ``prompt``: words the speech is likely to hold (dictation's spoken marks), for an engine
        that takes a context before the transcript; others ignore it.
        """
        ...

    async def aclose(self) -> None: ...


class VocabularyTarget(Protocol):
    """A speech-to-text engine that can be told the names the user uses (``WhisperSTT``)."""

    def set_vocabulary(self, terms: Sequence[str]) -> None:
        """Bias recognition toward these names (replaces the previous list)."""
        ...


class TextToSpeech(Protocol):
    """Turns text into speech."""

    @property
    def name(self) -> str: ...

    async def load(self) -> None: ...

    def synthesize(self, text: str) -> AsyncGenerator[SpeechAudio, None]:
        """Speech for ``text``, one piece per sentence, each as soon as it is ready."""
        ...

    async def aclose(self) -> None: ...


class HandsFree(Protocol):
    """Something that wants a word heard without the wake word (a ringing timer's "stop")."""

    def active(self) -> bool:
        """Whether the pipeline should listen without the wake word now (checked per frame)."""
        ...

    async def heard(self, text: str) -> bool:
        """One utterance heard meanwhile; whether it was taken (else it is dropped)."""
        ...


class SoundCheck(Protocol):
    """This computer's microphones and speakers, to pick one and try it (settings, wizard).

    A device is named as ``voice.input_device`` / ``voice.output_device`` take it ("" = the
    system default). No sound device is a normal state: ``AudioDeviceError`` with a hint.
    """

    async def devices(self) -> list[AudioDevice]:
        """Every input and output device the system has now (listed afresh each time)."""
        ...

    def levels(self, microphone: str) -> AsyncGenerator[float, None]:
        """The microphone's loudness (dBFS, -100..0) per 80 ms frame until closed."""
        ...

    async def record(
        self, microphone: str, seconds: float, on_level: Callable[[float], None] | None = None
    ) -> AudioClip:
        """``seconds`` of 16 kHz mono audio from the microphone (each frame's level reported)."""
        ...

    async def play(self, speaker: str, clip: AudioClip) -> None:
        """Play ``clip`` on the speaker; returns once it has been heard."""
        ...
