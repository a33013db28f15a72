"""The ports the everyday skills use: recognising sentences and saying replies.

Each skill family keeps its own storage and desktop ports beside its logic; these two are
shared by all of them (ARCHITECTURE.md: everyday skills).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from aria_desktop.domain.intents import IntentMatch

__all__ = ["IntentRecognizer", "Phrasebook"]


class IntentRecognizer(Protocol):
    """Turns a sentence into an intent, or says it is not a command it knows."""

    def recognize(
        self,
        text: str,
        language: str,
        *,
        fuzzy: bool = False,
        accept: Callable[[IntentMatch], bool] | None = None,
    ) -> IntentMatch | None:
        """The first intent the whole of ``text`` states that ``accept`` takes, or None.

        Args:
            text: the user's sentence.
            language: the sentence's language (a two-letter code; unknown ones give None).
            fuzzy: also accept a sentence a few letters away from a template (speech-to-text
                errors); only voice turns ask for it.
            accept: a skill's check of a candidate (a reminder whose time does not parse is
                not a reminder); the next reading of the sentence is tried instead.
        """
        ...

    def languages(self) -> tuple[str, ...]:
        """The languages this recogniser has templates for."""
        ...


class Phrasebook(Protocol):
    """ARIA's reply sentences per language (``resources/skills/replies/<lang>.yaml``)."""

    def say(self, key: str, language: str, /, **fields: object) -> str:
        """The sentence ``key`` in ``language`` (English when missing), fields filled in."""
        ...


PhraseTable = Mapping[str, Mapping[str, str]]
"""``{language: {key: sentence}}``: what a phrasebook is built from."""
