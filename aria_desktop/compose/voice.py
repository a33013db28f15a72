"""Composition of voice: the speech engines, the wake word detector and the voice pipeline.

Every adapter is imported inside the builder that uses it: ``aria transcribe`` pays for
speech-to-text only, and a command without voice for none of it (ARCHITECTURE.md: start-up
cost).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from aria_desktop import paths
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.adapters.voice.whisper import WhisperSTT
    from aria_desktop.compose.app import App
    from aria_desktop.core.bus import EventBus
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.core.ports import (
        AudioSink,
        AudioSource,
        SpeechToText,
        TextToSpeech,
        WakeWordDetector,
    )
    from aria_desktop.core.voice.pipeline import VoiceConfig, VoicePipeline
    from aria_desktop.core.voice.speech import SpeechService

__all__ = [
    "build_speech",
    "build_speech_engines",
    "build_stt",
    "build_tts",
    "build_voice",
    "build_wake_word",
    "follow_memory_names",
    "local_whisper",
    "voice_config",
]


def build_tts(settings: Settings) -> TextToSpeech:
    """The configured text-to-speech engine, not yet loaded."""
    voice = settings.voice
    if voice.tts.engine == "wyoming":
        from aria_desktop.adapters.voice.wyoming_client import WyomingTTS

        return WyomingTTS(voice.tts.wyoming_uri, voice=voice.tts.voice)
    from aria_desktop.adapters.voice.piper_tts import PiperTTS

    return PiperTTS(voice.tts.voice, length_scale=voice.tts.length_scale)


def build_stt(settings: Settings) -> SpeechToText:
    """The configured speech-to-text engine, not yet loaded (``aria transcribe`` needs no TTS)."""
    voice = settings.voice
    if voice.stt.engine == "wyoming":
        from aria_desktop.adapters.voice.wyoming_client import WyomingSTT
        from aria_desktop.core.voice.stt_fallback import FallbackSTT

        remote = WyomingSTT(voice.stt.wyoming_uri, language=voice.stt.language)
        if not voice.stt.fallback:
            return remote
        return FallbackSTT(remote, _local_stt(settings), clock=time.monotonic)
    return _local_stt(settings)


def _local_stt(settings: Settings) -> SpeechToText:
    """faster-whisper on this computer, as configured."""
    from aria_desktop.adapters.voice.whisper import WhisperSTT

    voice = settings.voice
    return WhisperSTT(
        voice.stt.model,
        cpu_threads=voice.stt.cpu_threads,
        language=voice.stt.language,
        beam_size=voice.stt.beam_size,
        cache_dir=paths.model_cache_dir(),
        vocabulary=voice.stt.vocabulary,
        fitted_window=voice.stt.fitted_window,
    )


def build_speech_engines(settings: Settings) -> tuple[TextToSpeech, SpeechToText]:
    """The configured (text-to-speech, speech-to-text) engines, not yet loaded."""
    return build_tts(settings), build_stt(settings)


def build_speech(
    settings: Settings, bus: EventBus, *, sink: AudioSink | None = None
) -> SpeechService:
    """Text-to-speech and speech-to-text with an output (the speaker when ``sink`` is None)."""
    from aria_desktop.adapters.voice.devices import SpeakerSink
    from aria_desktop.core.voice.speech import SpeechService

    tts, stt = build_speech_engines(settings)
    if sink is None:
        sink = SpeakerSink(settings.voice.output_device)
    return SpeechService(bus=bus, tts=tts, stt=stt, sink=sink)


def build_voice(
    settings: Settings,
    orchestrator: Orchestrator,
    *,
    source_factory: Callable[[], AudioSource] | None = None,
    sink: AudioSink | None = None,
    use_microphone: bool = True,
    no_microphone_reason: str = "",
) -> VoicePipeline:
    """The voice pipeline for ``orchestrator``, installed (commands, kill switch, probe).

    Args:
        settings: the voice settings are used.
        orchestrator: where turns run; commands and the capability probe are registered on it.
        source_factory: where command audio comes from; None means the configured microphone
            (or no audio source at all when ``use_microphone`` is False).
        sink: where speech goes; None means the configured speaker.
        use_microphone: open the microphone when no ``source_factory`` is given.
        no_microphone_reason: why there is no audio source (shown as the capability's reason).

    Call ``await pipeline.start()`` to load the models and open the microphone.
    """
    from aria_desktop.adapters.voice.devices import MicrophoneSource
    from aria_desktop.adapters.voice.whisper import SileroVAD
    from aria_desktop.core.voice.pipeline import VoicePipeline

    voice = settings.voice
    speech = build_speech(settings, orchestrator.bus, sink=sink)
    wake = build_wake_word(settings, speech.stt)
    if source_factory is None and use_microphone:
        device = voice.input_device

        def source_factory() -> AudioSource:
            return MicrophoneSource(device)

    pipeline = VoicePipeline(
        orchestrator=orchestrator,
        speech=speech,
        wake=wake,
        vad=SileroVAD(),
        source_factory=source_factory,
        config=voice_config(settings),
        no_source_reason=no_microphone_reason,
    )
    pipeline.install()
    return pipeline


def voice_config(settings: Settings) -> VoiceConfig:
    """The voice pipeline's behaviour from ``[voice]``."""
    from aria_desktop.core.voice.pipeline import VoiceConfig

    voice = settings.voice
    return VoiceConfig(
        wake_enabled=voice.wake.enabled,
        wake_phrases=_wake_phrases((voice.wake.model, *voice.wake.custom_models)),
        refractory_s=voice.wake.refractory_s,
        vad_threshold=voice.vad.threshold,
        silence_s=voice.vad.silence_s,
        max_command_s=voice.vad.max_s,
        no_speech_timeout_s=voice.vad.no_speech_timeout_s,
        preroll_s=voice.vad.preroll_s,
        follow_up_s=voice.follow_up_s,
        language=voice.stt.language or None,
    )


def build_wake_word(settings: Settings, stt: SpeechToText | None) -> WakeWordDetector | None:
    """The configured wake word detector (a Wyoming server or openWakeWord in-process).

    With ``voice.wake.verify`` and a local Whisper, a detection must also pass the wake
    phrase check on the same (already loaded) Whisper model (ARCHITECTURE.md, "Voice
    accuracy").
    """
    wake = settings.voice.wake
    if not wake.enabled:
        return None
    models = (wake.model, *wake.custom_models)
    if wake.engine == "wyoming":
        from aria_desktop.adapters.voice.wyoming_client import WyomingWakeWord

        return WyomingWakeWord(wake.wyoming_uri, names=models)
    from aria_desktop.adapters.voice.wake_check import WakePhraseCheck
    from aria_desktop.adapters.voice.wakeword import OpenWakeWordDetector

    confirm = None
    whisper = local_whisper(stt)
    if wake.verify and whisper is not None:
        confirm = WakePhraseCheck(whisper, _wake_phrases(models))
    return OpenWakeWordDetector(models, threshold=wake.threshold, confirm=confirm)


def local_whisper(stt: SpeechToText | None) -> WhisperSTT | None:
    """The Whisper on this computer behind ``stt``: itself, or a remote engine's fallback.

    The wake phrase check and the vocabulary need the local model even while a Wyoming server
    transcribes the commands.
    """
    from aria_desktop.adapters.voice.whisper import WhisperSTT
    from aria_desktop.core.voice.stt_fallback import FallbackSTT

    if isinstance(stt, FallbackSTT):
        stt = stt.fallback
    return stt if isinstance(stt, WhisperSTT) else None


def _wake_phrases(models: tuple[str, ...]) -> tuple[str, ...]:
    """The words of each wake model ("hey_jarvis" or "x/hey_jarvis_v0.1.onnx": "hey jarvis")."""
    return tuple(Path(m).stem.rsplit("_v", 1)[0].replace("_", " ").lower() for m in models if m)


def follow_memory_names(
    app: App, pipeline: VoicePipeline, stt: SpeechToText | None = None, new: Settings | None = None
) -> None:
    """Keep speech-to-text (``stt``: the pipeline's) biased toward the settings' and memory's names.

    A previous follower stops (voice settings changed live: ``stt`` and ``new`` settings).

    Only engines that take a vocabulary (local Whisper, also as a remote engine's fallback)
    are followed; the list is rebuilt on every ``memory-changed`` event (ARCHITECTURE.md,
    "Voice accuracy").
    """
    from aria_desktop.core.voice.stt_vocabulary import SttVocabulary
    from aria_desktop.domain.memory_events import MemoryChanged

    whisper = local_whisper(stt or pipeline.speech.stt)
    wanted = (new or app.settings).voice.stt
    if app.vocabulary_events is not None:
        app.vocabulary_events.close()
        app.vocabulary_events = None
    if whisper is None:
        return
    memory = app.memory if wanted.vocabulary_from_memory else None
    store = memory.store if memory is not None else None
    vocabulary = SttVocabulary(target=whisper, fixed=wanted.vocabulary, store=store)
    events = app.orchestrator.bus.subscribe(event_filter=lambda e: isinstance(e, MemoryChanged))
    app.vocabulary_events = events
    app.orchestrator.spawn(vocabulary.follow(events), name="aria-stt-vocabulary")
