"""Voice events: loading the voice models, waking, listening, transcribing and speaking.

A voice turn reads: wake-start -> wake-end -> stt-start -> stt-vad-start -> stt-vad-end ->
stt-end -> run-start ... llm-delta ... -> tts-start -> tts-end (-> stt-start for a follow-up).
Wake and STT events come before the turn exists, so their ``run_id`` is None; TTS events carry
the turn's run id. Every ``ts`` is wall-clock seconds, so stage latencies read off the stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from aria_desktop.domain.events import Event


@dataclass(frozen=True, kw_only=True)
class VoiceLoadStart(Event):
    """A voice model began loading in the background (``component``: wake, vad, stt, tts)."""

    type: ClassVar[str] = "voice-load-start"
    component: str
    model: str = ""


@dataclass(frozen=True, kw_only=True)
class VoiceLoadEnd(Event):
    """A voice model finished loading (``ok``) or failed (``error`` says why).

    Attributes:
        latency_ms: loading time in milliseconds.
    """

    type: ClassVar[str] = "voice-load-end"
    component: str
    model: str = ""
    ok: bool = True
    error: str = ""
    latency_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class WakeStart(Event):
    """ARIA started waiting for the wake word (``model``: the wake word model)."""

    type: ClassVar[str] = "wake-start"
    model: str = ""


@dataclass(frozen=True, kw_only=True)
class WakeEnd(Event):
    """Waiting for the wake word ended.

    Attributes:
        detected: True when the wake word was heard (False: muted, stopped, push-to-talk).
        name: the wake word model that fired ("" if none).
        score: its score (0..1).
    """

    type: ClassVar[str] = "wake-end"
    detected: bool = False
    name: str = ""
    score: float = 0.0


@dataclass(frozen=True, kw_only=True)
class SttStart(Event):
    """ARIA started listening to a command.

    Attributes:
        trigger: wake, push-to-talk, follow-up or file.
    """

    type: ClassVar[str] = "stt-start"
    trigger: str = "wake"


@dataclass(frozen=True, kw_only=True)
class SttVadStart(Event):
    """Voice activity detection heard speech begin."""

    type: ClassVar[str] = "stt-vad-start"


@dataclass(frozen=True, kw_only=True)
class SttVadEnd(Event):
    """The command ended.

    Attributes:
        reason: silence (endpoint reached), max_length, released (push-to-talk), no_speech,
            cancelled.
        audio_ms: length of the captured command audio, in milliseconds.
    """

    type: ClassVar[str] = "stt-vad-end"
    reason: str = "silence"
    audio_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class SttEnd(Event):
    """Speech-to-text finished.

    Attributes:
        text: the transcript ("" when nothing intelligible was said or on failure).
        language: language code.
        latency_ms: transcription time in milliseconds.
        engine: which recogniser was used.
    """

    type: ClassVar[str] = "stt-end"
    text: str = ""
    language: str = ""
    latency_ms: float = 0.0
    engine: str = ""


@dataclass(frozen=True, kw_only=True)
class TtsStart(Event):
    """ARIA started speaking a reply (sentence by sentence as the reply streams)."""

    type: ClassVar[str] = "tts-start"


@dataclass(frozen=True, kw_only=True)
class TtsEnd(Event):
    """ARIA stopped speaking.

    Attributes:
        status: complete, interrupted (wake word, push-to-talk, kill switch) or error.
        sentences: sentences spoken.
        audio_ms: audio handed to the output, in milliseconds.
        first_audio_ms: time from tts-start to the first audio handed to the output, ms.
    """

    type: ClassVar[str] = "tts-end"
    status: str = "complete"
    sentences: int = 0
    audio_ms: float = 0.0
    first_audio_ms: float | None = None


@dataclass(frozen=True, kw_only=True)
class AudioLevel(Event):
    """Microphone level for meters (about 12 per second; dropped for slow subscribers).

    Attributes:
        rms_dbfs: loudness of the last frame in dB relative to full scale (-100..0).
        speech: whether the voice activity detector considers the frame speech (only
            meaningful while listening to a command).
    """

    type: ClassVar[str] = "audio-level"
    lossy: ClassVar[bool] = True
    rms_dbfs: float
    speech: bool = False


@dataclass(frozen=True, kw_only=True)
class DictationEnd(Event):
    """A dictation ended: what was typed into the focused window, or why nothing was.

    Attributes:
        status: typed, nothing-heard, refused (the safety policy: a password field, a
            protected window), or failed (no input path, a typing error).
        text: what was typed ("" unless typed).
        detail: plain words for the person (why it was refused or failed).
    """

    type: ClassVar[str] = "dictation-end"
    status: str = "typed"
    text: str = ""
    detail: str = ""
