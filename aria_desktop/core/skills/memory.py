"""``remember that …`` and ``what do you remember about …``, with no model in between.

The statement is stored as the user said it (a manual memory: the user asked), and recall is
the same hybrid search the memory window uses.
"""

from __future__ import annotations

import re
from typing import Protocol

from aria_desktop.core.skills.ports import Phrasebook
from aria_desktop.core.skills.router import SkillTurn
from aria_desktop.domain import memory as mem
from aria_desktop.domain.intents import IntentMatch, SkillReply

__all__ = ["MemorySkill", "RememberingService"]

_RECALL_LIMIT = 3
_REMINISCING = re.compile(
    r"^(the |that )?(time|day|night|one|place|movie|film|song|book|game|guy|girl|trip)\b",
    re.IGNORECASE,
)
"""``remember that time we…`` asks the user to recall something: a question, not a fact."""
_MIN_SIMILARITY = 0.35


class RememberingService(Protocol):
    """What the skill needs of the memory service (``core/memory/service.py``)."""

    async def add_memory(self, new: mem.NewMemory) -> mem.Memory:
        """Store a memory."""
        ...

    async def search_memories(self, query: mem.MemoryQuery) -> list[mem.MemoryHit]:
        """Hybrid search."""
        ...


def _statement(content: str) -> str:
    """The memory as a sentence: first letter up, a full stop at the end."""
    content = content.strip().rstrip(".!")
    return content[:1].upper() + content[1:] + "." if content else ""


class MemorySkill:
    """Stores and recalls long-term memories on request."""

    name = "memory"
    intents = frozenset({"AriaRemember", "AriaRecall"})

    def __init__(self, memory: RememberingService | None, phrases: Phrasebook) -> None:
        """Use ``memory`` (None when long-term memory is off: the skill says so)."""
        self._memory = memory
        self._phrases = phrases

    def accepts(self, match: IntentMatch) -> bool:
        """A match with something to remember or a topic to recall."""
        if match.intent == "AriaRecall":
            return len(match.text_slot("topic")) >= 2
        content = match.text_slot("content")
        if match.text.rstrip().endswith("?") or _REMINISCING.match(content):
            return False
        return len(content.split()) >= 2

    async def handle(self, match: IntentMatch, turn: SkillTurn) -> SkillReply:
        """Store the statement, or read back what is remembered about the topic."""
        lang, say = match.language, self._phrases.say
        if self._memory is None:
            return SkillReply(text=say("memory.unavailable", lang), skill=self.name)
        if match.intent == "AriaRemember":
            content = match.text_slot("content")
            await self._memory.add_memory(
                mem.NewMemory(content=_statement(content), provenance="manual")
            )
            return SkillReply(text=say("memory.stored", lang, content=content), skill=self.name)
        topic = match.text_slot("topic")
        hits = await self._memory.search_memories(
            mem.MemoryQuery(text=topic, limit=_RECALL_LIMIT, min_similarity=_MIN_SIMILARITY)
        )
        if not hits:
            return SkillReply(text=say("memory.nothing", lang, topic=topic), skill=self.name)
        facts = " ".join(_statement(hit.memory.content) for hit in hits)
        return SkillReply(text=say("memory.found", lang, topic=topic, facts=facts), skill=self.name)
