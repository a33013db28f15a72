"""The voice pipeline's replaceable parts, and swapping them while it runs.

``VoiceConfig`` (behaviour from the ``voice`` settings) and ``VoiceParts`` (speech service,
wake word detector, configuration, audio source) are what changed voice settings replace
(ARCHITECTURE.md: settings applied live). New engines load in the background with the usual
``voice-load-*`` progress while the old ones keep serving; the pipeline takes the new parts
over before its next utterance, and the engines it no longer uses are closed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from aria_desktop.core.ports import AudioSource, WakeWordDetector
from aria_desktop.core.voice.models import Loadable, VoiceModels
from aria_desktop.core.voice.speech import SpeechService

__all__ = ["SourceFactory", "VoiceConfig", "VoiceParts", "close_replaced", "load_new"]

_LOGGER = logging.getLogger(__name__)

SourceFactory = Callable[[], AudioSource]


@dataclass(frozen=True, kw_only=True)
class VoiceConfig:
    """How the pipeline behaves (from the ``voice`` settings).

    Attributes:
        wake_enabled: listen for the wake word (False: push-to-talk only).
        wake_phrases: phrases removed from the start of a transcript ("hey jarvis").
        refractory_s: seconds after a detection during which the wake word is ignored.
        vad_threshold: speech probability above which a frame counts as speech.
        silence_s: silence that ends a command, in seconds.
        max_command_s: longest command, in seconds.
        no_speech_timeout_s: how long to wait for speech to begin after the wake word.
        preroll_s: audio before push-to-talk is pressed kept for the command, in seconds.
        wake_preroll_s: audio before the wake word detection kept for the command, in
            seconds: the whole wake phrase, which the transcription is then told the audio
            begins with (its tail alone was heard as words: "service, remind me …").
        follow_up_s: after a spoken answer, listen this long without the wake word (0: off).
        early_stt_s: silence after speech at which the command's transcription begins, before
            ``silence_s`` says it ended (0: at the end); a command ending by silence is then
            transcribed up to this much silence after its last word, seconds.
        language: transcription language (None: the model's default / auto-detect).
        conversation_idle_s: a voice turn continues the previous voice conversation if it
            ended less than this many seconds ago.
    """

    wake_enabled: bool = True
    wake_phrases: tuple[str, ...] = ("hey jarvis",)
    refractory_s: float = 2.0
    vad_threshold: float = 0.5
    silence_s: float = 0.7
    max_command_s: float = 10.0
    no_speech_timeout_s: float = 5.0
    preroll_s: float = 0.5
    wake_preroll_s: float = 1.5
    follow_up_s: float = 4.0
    early_stt_s: float = 0.3
    language: str | None = None
    conversation_idle_s: float = 300.0

    @property
    def longest_preroll_s(self) -> float:
        """What the pre-roll ring keeps: enough for either trigger."""
        return max(self.preroll_s, self.wake_preroll_s)


@dataclass(frozen=True, kw_only=True)
class VoiceParts:
    """What voice settings decide: the engines, the behaviour and the microphone."""

    speech: SpeechService
    wake: WakeWordDetector | None
    config: VoiceConfig
    source_factory: SourceFactory | None


def _engines(parts: VoiceParts) -> list[tuple[str, object | None]]:
    speech = parts.speech
    return [("wake", parts.wake), ("stt", speech.stt), ("tts", speech.tts), ("sink", speech.sink)]


async def load_new(parts: VoiceParts, old: VoiceParts, models: VoiceModels) -> None:
    """Load the engines of ``parts`` that ``old`` does not already run (raises a failure)."""
    kept = {id(engine) for _name, engine in _engines(old)}
    loaders = [
        (name, cast(Loadable, engine))  # every engine but the sink loads
        for name, engine in _engines(parts)
        if name != "sink" and engine is not None and id(engine) not in kept
    ]
    models.expect([name for name, _engine in loaders])
    await models.load_all(loaders)
    await models.wait_all()


async def close_replaced(old: VoiceParts, new: VoiceParts) -> None:
    """Close the engines of ``old`` that ``new`` does not use any more."""
    if old.speech is not new.speech:
        old.speech.interrupt()
    kept = {id(engine) for _name, engine in _engines(new)}
    for name, engine in _engines(old):
        if engine is None or id(engine) in kept:
            continue
        close = getattr(engine, "aclose", None)
        if close is None:
            continue
        try:
            await close()
        except Exception:
            _LOGGER.exception("Closing the replaced voice %s failed", name)
