"""Hearing a word without the wake word, while something asks for it ("stop" to a ringing timer).

While the hook's :meth:`~aria_desktop.core.voice.ports.HandsFree.active` holds, the pipeline
listens from its resting state without waiting for the wake word: each short utterance (ended
by the same endpointing as a command) is transcribed and handed to
:meth:`~aria_desktop.core.voice.ports.HandsFree.heard`. Nothing heard this way becomes a turn:
the hook takes what it understands ("stop", "stopp") and everything else — the ring itself,
ARIA's own announcement, the room — is dropped. The wake phrase, if said, is stripped first.
"""

from __future__ import annotations

import logging

from aria_desktop.core.bus import EventBus
from aria_desktop.core.voice.answer import transcribe_command
from aria_desktop.core.voice.early_stt import EarlyTranscription
from aria_desktop.core.voice.models import VoiceModels
from aria_desktop.core.voice.parts import VoiceConfig
from aria_desktop.core.voice.ports import HandsFree
from aria_desktop.core.voice.speech import SpeechService
from aria_desktop.core.voice.speech_text import strip_wake_phrase
from aria_desktop.domain.errors import AriaError

__all__ = ["HANDS_FREE", "hear_hands_free"]

_LOGGER = logging.getLogger(__name__)

HANDS_FREE = "hands-free"
"""The trigger of an utterance heard without the wake word (``stt-start``'s ``trigger``)."""


async def hear_hands_free(
    hook: HandsFree | None,
    speech: SpeechService,
    models: VoiceModels,
    bus: EventBus,
    audio: bytes,
    config: VoiceConfig,
    early: EarlyTranscription | None = None,
) -> bool:
    """Transcribe one hands-free utterance and hand it to ``hook``; whether it took it.

    ``early``: the utterance's transcription begun at its pause (``early_stt.py``), taken
    rather than transcribing it again.
    """
    if hook is None:
        return False
    try:
        transcript = await transcribe_command(
            speech, models, bus, audio, language=config.language, starts_with="", early=early
        )
        text = strip_wake_phrase(transcript.text, config.wake_phrases)
        if not any(ch.isalnum() for ch in text) or not hook.active():
            return False
        taken = await hook.heard(text)
    except AriaError as exc:
        _LOGGER.info("A hands-free utterance was not understood: %s", exc.message)
        return False
    _LOGGER.debug("Hands-free %r %s", text[:40], "taken" if taken else "dropped")
    return taken
