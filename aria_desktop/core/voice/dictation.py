"""Dictation: what was said while the dictation key was held, typed into the focused window.

The voice pipeline records a dictation as it records a push-to-talk command (trigger
``dictation``); at the release the words are transcribed, spoken punctuation is applied
(``domain/dictation.py``) and the text goes to the computer capability's ``TypeText``, so
the one input path and the one safety policy type it: nothing reaches a password field or a
protected window, and the audit log records it (text redacted). ``dictation-end`` says what
was typed or why nothing was. See ``aria_desktop/ARCHITECTURE.md``, "Dictation".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from aria_desktop.core.bus import EventBus
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.ports import Clock
from aria_desktop.core.voice.answer import transcribe_command
from aria_desktop.core.voice.models import VoiceModels
from aria_desktop.core.voice.speech import SpeechService
from aria_desktop.domain.commands import TypeText
from aria_desktop.domain.computer import ComputerActionOutcome
from aria_desktop.domain.dictation import DICTATION_PROMPT, joined, typed_text
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.voice_events import DictationEnd

__all__ = ["DICTATION", "Dictation", "dictate_heard"]

_LOGGER = logging.getLogger(__name__)

DICTATION = "dictation"
"""The recording trigger (``stt-start``) and the typing source (audit log) of a dictation."""

_JOIN_WITHIN_S = 60.0
"""A dictation this soon after the last one continues its text (a space, a capital)."""

_NO_TYPING = (
    "Dictation types with the keyboard, and this ARIA has no desktop it can type into. Start "
    "ARIA inside your desktop session."
)


@dataclass
class _Last:
    text: str = ""
    at: float = float("-inf")


class Dictation:
    """Types dictated transcripts and remembers the end of the last one (to join the next)."""

    def __init__(self, *, orchestrator: Orchestrator, bus: EventBus, clock: Clock) -> None:
        self._orchestrator = orchestrator
        self.bus = bus
        self._clock = clock
        self._last = _Last()

    async def type_transcript(self, transcript: str, *, dry_run: bool = False) -> DictationEnd:
        """Type what ``transcript`` says (spoken punctuation applied); publish the outcome."""
        text = typed_text(transcript)
        if not text:
            return self.ended(DictationEnd(status="nothing-heard", detail="No words were heard."))
        now = self._clock.monotonic()
        if now - self._last.at <= _JOIN_WITHIN_S:
            text = joined(self._last.text, text)
        if not self._orchestrator.handles(TypeText):  # no computer capability in this process
            return self.ended(DictationEnd(status="failed", detail=_NO_TYPING))
        try:
            outcome = await self._orchestrator.handle(
                TypeText(text=text, source=DICTATION, dry_run=dry_run)
            )
        except AriaError as exc:
            return self.ended(DictationEnd(status="failed", detail=exc.message))
        return self.ended(self._outcome(outcome, text, now))

    def _outcome(self, outcome: ComputerActionOutcome, text: str, now: float) -> DictationEnd:
        if outcome.status == "ok":
            if not outcome.dry_run:
                self._last = _Last(text=text, at=now)
            return DictationEnd(status="typed", text=text, detail=outcome.detail)
        self._last = _Last()
        status = "refused" if outcome.status == "denied" else "failed"
        return DictationEnd(status=status, detail=_plain(outcome))

    def ended(self, event: DictationEnd) -> DictationEnd:
        """Publish how a dictation ended (and log why nothing was typed)."""
        self.bus.publish(event)
        if event.status in {"refused", "failed"}:
            _LOGGER.info("Dictation not typed (%s): %s", event.status, event.detail)
        return event


async def dictate_heard(
    dictation: Dictation,
    speech: SpeechService,
    models: VoiceModels,
    audio: bytes,
    language: str | None,
) -> DictationEnd:
    """Transcribe a recorded dictation and type it (failures end as ``dictation-end``).

    Never raises but for cancellation: the pipeline returns to waiting whatever happened.
    """
    try:
        transcript = await transcribe_command(
            speech,
            models,
            dictation.bus,
            audio,
            language=language,
            starts_with="",
            prompt=DICTATION_PROMPT,
        )
        return await dictation.type_transcript(transcript.text)
    except AriaError as exc:
        return dictation.ended(DictationEnd(status="failed", detail=exc.message))
    except Exception as exc:  # a bug must not leave the pipeline transcribing for ever
        _LOGGER.exception("Dictation failed")
        return dictation.ended(DictationEnd(status="failed", detail=f"Dictation failed: {exc}."))


def _plain(outcome: ComputerActionOutcome) -> str:
    """Why nothing was typed, in words a person reads (the rule stays in the audit log)."""
    rule = outcome.rule
    if rule == "password-field":
        return "Nothing was typed: the focused field is a password field."
    if rule == "deny:aria-self":
        return "Nothing was typed: the focused window is ARIA's own."
    if rule.startswith("deny:"):
        return "Nothing was typed: the focused window is protected by the safety policy."
    # "Refused by the safety policy (rule context:no_display): …": the words, not the rule.
    prefix, found, reason = outcome.detail.partition("): ")
    if found and prefix.startswith("Refused by the safety policy (rule "):
        return f"Nothing was typed: {reason}"
    return outcome.detail or "Nothing was typed."
