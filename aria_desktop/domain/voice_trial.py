"""Values of "Test my voice": a candidate speech model, what it heard, and its score."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TRIAL_SENTENCES", "SpeechCandidate", "TrialHearing", "TrialResult", "TrialScore"]

TRIAL_SENTENCES: tuple[str, ...] = (
    "Remind me to call Anna at half past six.",
    "Add oat milk and two lemons to my shopping list.",
    "What's the weather like in Edinburgh tomorrow?",
)
"""What the person reads: a name, numbers, a time and a place, as commands have them."""


@dataclass(frozen=True)
class SpeechCandidate:
    """A local speech model and its decoding (``voice.stt.model`` and ``voice.stt.beam_size``)."""

    model: str
    beam_size: int

    @property
    def label(self) -> str:
        """How a window names it: "tiny.en", "tiny.en (quick)", "base"."""
        return f"{self.model} (quick)" if self.beam_size == 1 else self.model


@dataclass(frozen=True)
class TrialHearing:
    """One recording as one candidate heard it."""

    candidate: SpeechCandidate
    said: str
    heard: str
    seconds: float


@dataclass(frozen=True)
class TrialScore:
    """How one candidate did over all recordings: words missed and time per sentence."""

    candidate: SpeechCandidate
    errors: int
    words: int
    seconds: float


@dataclass(frozen=True)
class TrialResult:
    """Every candidate's score, and the one that heard the person best."""

    scores: tuple[TrialScore, ...]
    best: TrialScore
