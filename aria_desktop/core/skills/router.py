"""Answering a sentence locally: recognise it, hand the match to the skill that owns its intent.

This is Home Assistant's "prefer handling commands locally" for ARIA: a turn asks the router
first, and only a sentence no template states exactly goes to the model. The router is pure
(no parser, no I/O of its own): the recogniser and the skills come in as ports, so a test
drives it with plain strings and fake skills.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from aria_desktop.core.skills.ports import IntentRecognizer
from aria_desktop.domain.intents import IntentMatch, SkillReply

__all__ = ["Skill", "SkillRouter", "SkillTurn", "UrgentSkill"]

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class SkillTurn:
    """The turn a sentence came from: what a skill may need to know about it.

    Attributes:
        source: text, voice, api, mcp, automation or client.
        conversation_id: the conversation the turn belongs to.
    """

    source: str = "text"
    conversation_id: str = ""


class Skill(Protocol):
    """One family of everyday commands (timers, lists, the clock…)."""

    @property
    def name(self) -> str:
        """Who answered, as shown beside the reply (``timers``, ``lists``…)."""
        ...

    @property
    def intents(self) -> frozenset[str]:
        """The intent names this skill answers."""
        ...

    def accepts(self, match: IntentMatch) -> bool:
        """Whether ``match`` is a command this skill can carry out (its slots make sense)."""
        ...

    async def handle(self, match: IntentMatch, turn: SkillTurn) -> SkillReply:
        """Carry out the command and say what was done (or plainly why not)."""
        ...


@runtime_checkable
class UrgentSkill(Skill, Protocol):
    """A skill whose sentences go before every other reading while it says so.

    "stop" is the media's pause, except while a timer rings: then it is the ring's. The
    router asks these skills first, and only while :meth:`urgent` holds, so the rest of the
    time they cost nothing.
    """

    def urgent(self) -> bool:
        """Whether this skill's intents go first now."""
        ...


class SkillRouter:
    """The skills by intent, and the recogniser that finds the intent."""

    def __init__(
        self,
        recognizer: IntentRecognizer,
        skills: Sequence[Skill],
        *,
        languages: Sequence[str] = ("en",),
        fuzzy_sources: frozenset[str] = frozenset({"voice"}),
    ) -> None:
        """Route the intents of ``skills``; sentences are tried in ``languages``, in order.

        Raises:
            ValueError: two skills claim the same intent.
        """
        table: dict[str, Skill] = {}
        for skill in skills:
            for intent in skill.intents:
                if intent in table:
                    raise ValueError(
                        f"{intent} is claimed by {table[intent].name} and {skill.name}"
                    )
                table[intent] = skill
        self._skills: Mapping[str, Skill] = table
        self._urgent = [skill for skill in skills if isinstance(skill, UrgentSkill)]
        self._recognizer = recognizer
        known = set(recognizer.languages())
        self._languages = tuple(lang for lang in dict.fromkeys(languages) if lang in known)
        self._fuzzy_sources = fuzzy_sources
        self.prefer_local = True
        """Answer recognised sentences here before any model (``assist.prefer_local``)."""

    @property
    def intents(self) -> frozenset[str]:
        """Every intent some skill answers."""
        return frozenset(self._skills)

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages sentences are tried in."""
        return self._languages

    def match(self, text: str, source: str = "text") -> IntentMatch | None:
        """The intent ``text`` states, when a skill here answers it (else None)."""
        if not self.prefer_local:
            return None
        urgent = frozenset(i for skill in self._urgent if skill.urgent() for i in skill.intents)
        if urgent:
            found = self._recognize(text, source, lambda m: m.intent in urgent and self._accepts(m))
            if found is not None:
                return found
        return self._recognize(text, source, self._accepts)

    def _recognize(
        self, text: str, source: str, accept: Callable[[IntentMatch], bool]
    ) -> IntentMatch | None:
        attempts = (False, True) if source in self._fuzzy_sources else (False,)
        for language in self._languages:
            for fuzzy in attempts:
                found = self._recognizer.recognize(text, language, fuzzy=fuzzy, accept=accept)
                if found is not None:
                    return found
        return None

    def _accepts(self, found: IntentMatch) -> bool:
        skill = self._skills.get(found.intent)
        return skill is not None and skill.accepts(found)

    async def run(self, found: IntentMatch, turn: SkillTurn) -> SkillReply:
        """Carry out a match :meth:`match` gave, by the skill that owns its intent."""
        _LOGGER.info("Answered locally: %s (%s)", found.intent, found.language)
        return await self._skills[found.intent].handle(found, turn)

    async def answer(self, text: str, turn: SkillTurn) -> SkillReply | None:
        """The local answer to ``text``, or None when it is for the model."""
        found = self.match(text, turn.source)
        return None if found is None else await self.run(found, turn)
