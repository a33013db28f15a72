"""Test my voice: record the sentences, let every local model hear them, keep the best.

Each recording must have been heard (its loudest frame above a muted microphone's level), else
the same sentence is asked again. The comparison runs at the composition root
(``SettingsService.try_speech_models``); the scores are shown as people read them — words
missed and time per sentence — and the best (``core/voice/voice_trial.py``: fewest words
missed, the faster on a tie) is what "Use it" keeps in ``chosen``.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QWidget

from aria_desktop.core.ports import SettingsService
from aria_desktop.core.voice.ports import SoundCheck
from aria_desktop.domain.audio import AudioClip
from aria_desktop.domain.error_text import plain_error
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.voice_trial import TRIAL_SENTENCES, SpeechCandidate, TrialScore
from aria_desktop.gui.controllers.devices import QUIET_DBFS
from aria_desktop.gui.tasks import TaskOwner
from aria_desktop.gui.views.voice_trial import VoiceTrialView

__all__ = ["RECORD_SECONDS", "VoiceTrialController", "result_lines"]

RECORD_SECONDS = 5.0


def result_lines(scores: Sequence[TrialScore], best: TrialScore) -> str:
    """The comparison as the window shows it (rich text, one line per model)."""
    lines = []
    for s in scores:
        missed = "no word missed" if not s.errors else f"{s.errors} of {s.words} words wrong"
        line = f"{html.escape(s.candidate.label)}: {missed}, {s.seconds:.1f} s a sentence"
        lines.append(f"<b>{line}</b>" if s is best else line)
    return "<br>".join(lines)


class VoiceTrialController:
    """Runs one trial in its window; ``chosen`` is set when the person keeps the result."""

    def __init__(
        self,
        services: SettingsService,
        sound: SoundCheck | None,
        icon: QIcon,
        on_chosen: Callable[[SpeechCandidate], None] | None = None,
        sentences: Sequence[str] = TRIAL_SENTENCES,
    ) -> None:
        self.on_chosen = on_chosen
        self.services = services
        self.sound = sound
        self.icon = icon
        self.sentences = tuple(sentences)
        self.record_seconds = RECORD_SECONDS
        self.tasks = TaskOwner(lambda message, hint: None)
        self.view: VoiceTrialView | None = None
        self.microphone = ""
        self.recordings: list[tuple[str, AudioClip]] = []
        self.scores: list[TrialScore] = []
        self.winner: TrialScore | None = None
        self.chosen: SpeechCandidate | None = None
        """What "Use it" kept (None until then)."""
        self.finished = False
        """The comparison has been shown (or failed)."""
        self.listening = False
        """A recording is in progress."""

    def open(self, parent: QWidget | None, microphone: str) -> VoiceTrialView:
        """Show the first sentence, with ``microphone`` (as ``voice.input_device`` names it)."""
        self.microphone = microphone
        self.recordings, self.scores, self.winner, self.finished = [], [], None, False
        if self.view is None:
            self.view = VoiceTrialView(self.icon, parent)
            self.view.record_button.clicked.connect(self.record)
            self.view.accepted.connect(self._keep)
        view = self.view
        view.use_button.hide()
        view.record_button.show()
        view.level.show()
        view.results.setText("")
        view.record_button.setEnabled(self.sound is not None)
        view.say("" if self.sound is not None else "Voice is not installed on this computer.")
        self._show_sentence()
        view.show()
        view.raise_()
        return view

    def _show_sentence(self) -> None:
        assert self.view is not None
        index = len(self.recordings)
        self.view.step.setText(f"Sentence {index + 1} of {len(self.sentences)}")
        self.view.sentence.setText(f"“{self.sentences[index]}”")

    def record(self) -> None:
        """Record the sentence shown (``record_seconds``)."""
        if self.sound is None or self.view is None or not self.view.record_button.isEnabled():
            return
        self.tasks.spawn(self._record(), name="aria-gui-voice-trial-record")

    async def _record(self) -> None:
        assert self.sound is not None
        assert self.view is not None
        view = self.view
        view.record_button.setEnabled(False)
        loudest = -100.0

        def heard(level: float) -> None:
            nonlocal loudest
            loudest = max(loudest, level)
            view.show_level(level)

        view.say("Listening: read the sentence now.")
        self.listening = True
        try:
            clip = await self.sound.record(self.microphone, self.record_seconds, heard)
        except AriaError as exc:
            view.say(plain_error(exc.code, exc.message).message, "error")
            view.record_button.setEnabled(True)
            return
        finally:
            self.listening = False
            view.show_level(-100.0)
        if loudest < QUIET_DBFS:
            view.say(
                "ARIA heard almost nothing: check that the microphone is not muted, then press "
                "Record again.",
                "error",
            )
            view.record_button.setEnabled(True)
            return
        self.recordings.append((self.sentences[len(self.recordings)], clip))
        if len(self.recordings) < len(self.sentences):
            self._show_sentence()
            view.say("Got it. Now the next one.", "success")
            view.record_button.setEnabled(True)
            return
        await self._compare()

    async def _compare(self) -> None:
        assert self.view is not None
        view = self.view
        view.step.setText("")
        view.sentence.setText("")
        view.record_button.hide()
        view.level.hide()
        view.say("Trying each speech model on your voice… this takes a few seconds.")
        try:
            result = await self.services.try_speech_models(self.recordings)
        except AriaError as exc:
            view.say(plain_error(exc.code, exc.message).message, "error")
            self.finished = True
            return
        self.finished = True
        self.scores, self.winner = list(result.scores), result.best
        view.results.setText(result_lines(self.scores, self.winner))
        view.say(f"{self.winner.candidate.label} heard you best.", "success")
        view.use_button.setText(f"Use {self.winner.candidate.label}")
        view.use_button.show()

    def _keep(self) -> None:
        if self.winner is not None:
            self.chosen = self.winner.candidate
            if self.on_chosen is not None:
                self.on_chosen(self.chosen)

    async def aclose(self) -> None:
        """Stop a recording or comparison in progress."""
        await self.tasks.cancel_all()
