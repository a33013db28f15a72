"""The ``[voice]`` section: wake word, end-of-command detection, speech-to-text and speech."""

from __future__ import annotations

from dataclasses import dataclass, field

from aria_desktop.domain.languages import WHISPER_LANGUAGES
from aria_desktop.settings.rules import AT_LEAST_1, NON_NEGATIVE, POSITIVE, rules

VOICE_ENGINES = ("local", "wyoming")
"""Where a voice stage runs: in ARIA, or on a Wyoming server."""


PUSH_TO_TALK_MODES = ("hold", "toggle")


@dataclass(frozen=True)
class WakeSettings:
    """Wake word.

    Attributes:
        enabled: listen for the wake word (false: push-to-talk only).
        engine: local (openWakeWord) or wyoming.
        model: packaged openWakeWord model (hey_jarvis, alexa, hey_mycroft, hey_rhasspy) or a
            path to a custom .onnx model.
        custom_models: more .onnx wake word models that also wake ARIA.
        threshold: score (0..1) at which the wake word counts as heard (0 = the threshold
            measured for the packaged model, 0.5 for others).
        refractory_s: seconds after a detection during which it is not detected again.
        wyoming_uri: the Wyoming wake word server (engine = wyoming).
        verify: before listening, check that a quick transcription of the audio that woke
            ARIA holds the wake phrase (rejects look-alikes such as "Hey Janice").
    """

    enabled: bool = True
    engine: str = field(default="local", metadata=rules(choices=VOICE_ENGINES))
    model: str = field(default="hey_jarvis", metadata=rules(empty_ok=False))
    custom_models: tuple[str, ...] = ()
    threshold: float = field(default=0.0, metadata=NON_NEGATIVE)
    refractory_s: float = field(default=2.0, metadata=NON_NEGATIVE)
    wyoming_uri: str = "tcp://127.0.0.1:10400"
    verify: bool = True


@dataclass(frozen=True)
class VadSettings:
    """End-of-command detection (Silero VAD).

    Attributes:
        silence_s: silence that ends a command, in seconds.
        max_s: longest command, in seconds.
        no_speech_timeout_s: seconds to wait for speech after the wake word.
        threshold: speech probability (0..1) above which audio counts as speech.
        preroll_s: seconds of audio before push-to-talk is pressed kept for the command (after
            the wake word, the whole wake phrase is kept: 1.5 s).
    """

    silence_s: float = field(default=0.7, metadata=POSITIVE)
    max_s: float = field(default=10.0, metadata=POSITIVE)
    no_speech_timeout_s: float = field(default=5.0, metadata=POSITIVE)
    threshold: float = field(default=0.5, metadata=POSITIVE)
    preroll_s: float = field(default=0.5, metadata=NON_NEGATIVE)


WHISPER_MODELS = ("tiny.en", "base")
"""Whisper models ARIA ships: English tiny.en, multilingual base."""


def _stt_model_problem(value: str) -> str | None:
    """Refuse model names ARIA does not ship ("small", "large-v3") now, not at load."""
    if value in WHISPER_MODELS or "/" in value or "\\" in value or value.startswith(("~", ".")):
        return None
    return (
        "must be tiny.en (English), base (multilingual), or the path of a folder holding "
        "a CTranslate2 Whisper model"
    )


def _stt_language_problem(value: str) -> str | None:
    if not value or value in WHISPER_LANGUAGES:
        return None
    return (
        "must be a Whisper language code such as en, de, fr, es (or empty: English for "
        "tiny.en, detected for multilingual models)"
    )


@dataclass(frozen=True)
class SttSettings:
    """Speech-to-text.

    Attributes:
        engine: local (faster-whisper) or wyoming.
        model: tiny.en (packaged, English), base (packaged, multilingual) or the folder of a
            local CTranslate2 Whisper model.
        language: Whisper language code ("" = English for tiny.en, auto-detect otherwise).
        cpu_threads: inference threads.
        wyoming_uri: the Wyoming speech-to-text server (engine = wyoming).
        fallback: with engine = wyoming, transcribe on this computer (with ``model``) while the
            server does not answer, so commands are heard when the GPU machine is off.
        beam_size: beams searched (5: most accurate; 1: greedy, faster, mishears more).
        vocabulary: names of people, places and apps to recognise better (short list).
        vocabulary_from_memory: also bias toward names found in long-term memory.
        fitted_window: encode a short command in a window fitted to it (~3x faster Whisper,
            but it mishears more: off unless the full window is too slow on this CPU).
    """

    engine: str = field(default="local", metadata=rules(choices=VOICE_ENGINES))
    model: str = field(default="tiny.en", metadata=rules(empty_ok=False, check=_stt_model_problem))
    language: str = field(
        default="", metadata=rules(normalize=str.lower, check=_stt_language_problem)
    )
    cpu_threads: int = field(default=2, metadata=AT_LEAST_1)
    wyoming_uri: str = "tcp://127.0.0.1:10300"
    fallback: bool = True
    beam_size: int = field(default=5, metadata=AT_LEAST_1)
    vocabulary: tuple[str, ...] = ()
    vocabulary_from_memory: bool = True
    fitted_window: bool = False


@dataclass(frozen=True)
class TtsSettings:
    """Text-to-speech.

    Attributes:
        engine: local (Piper) or wyoming.
        voice: path to a Piper .onnx voice ("" = the packaged en_US joe voice); with
            wyoming, the server's voice name ("" = its default).
        length_scale: speaking rate (1.0 normal, smaller is faster).
        wyoming_uri: the Wyoming text-to-speech server (engine = wyoming).
    """

    engine: str = field(default="local", metadata=rules(choices=VOICE_ENGINES))
    voice: str = ""
    length_scale: float = field(default=1.0, metadata=POSITIVE)
    wyoming_uri: str = "tcp://127.0.0.1:10200"


@dataclass(frozen=True)
class VoiceSettings:
    """Voice: wake word, push-to-talk, transcription and speech.

    Attributes:
        enabled: start the voice pipeline with the tray app / daemon.
        input_device: microphone by index or part of its name ("" = system default).
        output_device: speaker by index or part of its name ("" = system default).
        push_to_talk: hold (talk while the hotkey is held) or toggle (press to start/stop).
        follow_up_s: after a spoken answer, listen this many seconds without the wake word
            (0 disables).
    """

    enabled: bool = True
    input_device: str = ""
    output_device: str = ""
    push_to_talk: str = field(default="hold", metadata=rules(choices=PUSH_TO_TALK_MODES))
    follow_up_s: float = field(default=4.0, metadata=NON_NEGATIVE)
    wake: WakeSettings = field(default_factory=WakeSettings)
    vad: VadSettings = field(default_factory=VadSettings)
    stt: SttSettings = field(default_factory=SttSettings)
    tts: TtsSettings = field(default_factory=TtsSettings)
