"""The time, the date and the weekday: answered from the computer's own clock.

Local time is the process's time zone (``TZ``, else the system's), as on the desktop clock.
"""

from __future__ import annotations

from datetime import datetime

from aria_desktop.core.ports import Clock
from aria_desktop.core.skills.ports import Phrasebook
from aria_desktop.core.skills.router import SkillTurn
from aria_desktop.core.skills.wording import names
from aria_desktop.domain.intents import IntentMatch, SkillReply

__all__ = ["ClockSkill"]


class ClockSkill:
    """``what time is it``, ``what's the date``, ``what day is it``."""

    name = "clock"
    intents = frozenset({"HassGetCurrentTime", "HassGetCurrentDate", "AriaGetWeekday"})

    def __init__(self, clock: Clock, phrases: Phrasebook) -> None:
        """Read the time from ``clock``; say it with ``phrases``."""
        self._clock = clock
        self._phrases = phrases

    def accepts(self, match: IntentMatch) -> bool:
        """Every match: these intents have no slots."""
        return True

    async def handle(self, match: IntentMatch, turn: SkillTurn) -> SkillReply:
        """Say the time, the date or the weekday in the match's language."""
        now = datetime.fromtimestamp(self._clock.time()).astimezone()
        lang, say = match.language, self._phrases.say
        weekday = names("names.weekdays", self._phrases, lang)[now.weekday()]
        if match.intent == "HassGetCurrentTime":
            text = say("clock.time", lang, time=now.strftime(say("clock.time_format", lang)))
        elif match.intent == "AriaGetWeekday":
            text = say("clock.weekday", lang, weekday=weekday)
        else:
            month = names("names.months", self._phrases, lang)[now.month - 1]
            text = say("clock.date", lang, weekday=weekday, month=month, day=now.day, year=now.year)
        return SkillReply(text=text, skill=self.name)
