"""What a recognised command is, and what a skill answers: plain values, no parser types.

The recogniser (an adapter over Home Assistant's ``hassil``) turns a sentence into an
:class:`IntentMatch`; a skill turns a match into a :class:`SkillReply`. Core never sees hassil's
own types, so the skills are tested with plain matches (ARCHITECTURE.md: everyday skills).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["SKILLS_BACKEND", "IntentMatch", "SkillReply", "SlotValue"]

SlotValue = str | int | float

SKILLS_BACKEND = "skills"
"""The backend name of a reply a local skill gave (its model is the skill's name)."""


@dataclass(frozen=True, kw_only=True)
class IntentMatch:
    """One sentence matched to one intent.

    Attributes:
        intent: the intent's name (Home Assistant's, e.g. ``HassStartTimer``, or ARIA's own,
            e.g. ``AriaAddReminder``).
        slots: the values the template captured (numbers already numbers, names trimmed).
        language: the language whose templates matched (``en``, ``de``).
        text: the sentence as the user said it.
        fuzzy: matched only after correcting small speech-to-text errors (voice turns).
    """

    intent: str
    slots: Mapping[str, SlotValue] = field(default_factory=lambda: MappingProxyType({}))
    language: str = "en"
    text: str = ""
    fuzzy: bool = False

    def text_slot(self, name: str, default: str = "") -> str:
        """A slot as trimmed text ("" or ``default`` when it is missing)."""
        value = self.slots.get(name)
        return default if value is None else str(value).strip()

    def number_slot(self, name: str) -> float | None:
        """A slot as a number (None when missing or not a number)."""
        value = self.slots.get(name)
        if value is None:
            return None
        if isinstance(value, (int, float)):
            return float(value)
        text = str(value).strip().replace(",", ".")
        if text in ("half", "1/2"):
            return 0.5
        try:
            return float(text)
        except ValueError:
            return None


@dataclass(frozen=True, kw_only=True)
class SkillReply:
    """A skill's answer to one match.

    Attributes:
        text: what ARIA says and shows ("" for a quiet end: "never mind").
        skill: which skill answered (``timers``, ``lists``, ``clock``…), shown as who answered.
    """

    text: str
    skill: str
