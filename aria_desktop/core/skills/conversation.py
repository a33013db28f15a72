"""``never mind`` / ``cancel``: the turn ends quietly, with nothing said and nothing stored."""

from __future__ import annotations

from aria_desktop.core.skills.router import SkillTurn
from aria_desktop.domain.intents import IntentMatch, SkillReply

__all__ = ["NevermindSkill"]


class NevermindSkill:
    """Ends the turn without a reply."""

    name = "conversation"
    intents = frozenset({"HassNevermind"})

    def accepts(self, match: IntentMatch) -> bool:
        """Every match."""
        return True

    async def handle(self, match: IntentMatch, turn: SkillTurn) -> SkillReply:
        """An empty reply: nothing is spoken, shown or stored."""
        return SkillReply(text="", skill=self.name)
