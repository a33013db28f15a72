"""Timer commands as people say them: Home Assistant's timer intents, answered here.

``HassStartTimer`` ("set a pasta timer for 10 minutes"), ``HassTimerStatus`` ("how long is
left on my timers"), ``HassPauseTimer``/``HassUnpauseTimer``, ``HassIncreaseTimer``/
``HassDecreaseTimer`` ("add 2 minutes to the pasta timer"), ``HassCancelTimer`` (by name, or
by how long it was set for: HA's ``start_minutes`` slots) and ``HassCancelAllTimers``.

Which timer a command means: the one named, or set for the duration said; with neither, the
only one there is. When several could be meant, the reply names them and asks which, rather
than guessing. Precision: a name of more than three words is not a name but a sentence the
model should read ("set a 10 minute timer for the pasta and then remind me…").
"""

from __future__ import annotations

from collections.abc import Sequence

from aria_desktop.core.skills.announce import Announcer
from aria_desktop.core.skills.ports import Phrasebook
from aria_desktop.core.skills.router import SkillTurn
from aria_desktop.core.skills.timer_words import (
    clean_name,
    duration_fields,
    same_name,
    spoken_duration,
    spoken_remaining,
    timer_item,
    timer_label,
)
from aria_desktop.core.skills.timers import TimerService
from aria_desktop.core.skills.wording import join_spoken
from aria_desktop.domain.intents import IntentMatch, SkillReply
from aria_desktop.domain.timers import MAX_TIMER_S, Timer

__all__ = ["TimerSkill", "slot_duration_s"]

_NAME_WORDS = 3
_NAME_CHARS = 40


def slot_duration_s(match: IntentMatch, prefix: str = "") -> float:
    """Hours, minutes and seconds slots (``start_minutes`` with ``prefix="start_"``) in seconds."""
    total = 0.0
    for unit, factor in (("hours", 3600.0), ("minutes", 60.0), ("seconds", 1.0)):
        value = match.number_slot(prefix + unit)
        if value is not None:
            total += value * factor
    return total


def _has_slot(match: IntentMatch, prefix: str) -> bool:
    return any(prefix + unit in match.slots for unit in ("hours", "minutes", "seconds"))


class TimerSkill:
    """Answers the timer intents over the timer service."""

    name = "timers"
    intents = frozenset(
        {
            "HassStartTimer",
            "HassTimerStatus",
            "HassPauseTimer",
            "HassUnpauseTimer",
            "HassIncreaseTimer",
            "HassDecreaseTimer",
            "HassCancelTimer",
            "HassCancelAllTimers",
            "AriaTimeLeft",
        }
    )

    def __init__(self, timers: TimerService, phrases: Phrasebook, announcer: Announcer) -> None:
        """Run commands on ``timers``; "stop the timer" while one rings silences ``announcer``."""
        self._timers = timers
        self._phrases = phrases
        self._announcer = announcer

    def accepts(self, match: IntentMatch) -> bool:
        """A match whose durations are real and whose name is a name, not a sentence.

        "How long is left?" names no timer: it is a timer question only while one runs.
        """
        if match.intent == "AriaTimeLeft":
            return bool(self._timers.active())
        name = match.text_slot("name")
        if name:
            cleaned = clean_name(name, match.language)
            if not cleaned or len(cleaned) > _NAME_CHARS or len(cleaned.split()) > _NAME_WORDS:
                return False
        if _has_slot(match, "start_") and not slot_duration_s(match, "start_") > 0:
            return False
        if match.intent in ("HassStartTimer", "HassIncreaseTimer", "HassDecreaseTimer"):
            return 0 < slot_duration_s(match) <= MAX_TIMER_S
        return True

    async def handle(self, match: IntentMatch, turn: SkillTurn) -> SkillReply:
        """Carry out the command and say what was done, or which timer is meant."""
        intent = match.intent
        if intent == "HassStartTimer":
            text = await self._start(match)
        elif intent in ("HassTimerStatus", "AriaTimeLeft"):
            text = self._status(match)
        elif intent == "HassCancelAllTimers":
            text = await self._cancel_all(match)
        else:
            text = await self._change(match)
        return SkillReply(text=text[:1].upper() + text[1:], skill=self.name)

    async def _start(self, match: IntentMatch) -> str:
        lang = match.language
        name = clean_name(match.text_slot("name"), lang)
        timer = await self._timers.start_timer(slot_duration_s(match), name=name, language=lang)
        duration = spoken_duration(timer.duration_s, self._phrases, lang)
        key = "timers.started_named" if name else "timers.started"
        return self._phrases.say(key, lang, duration=duration, name=name)

    def _status(self, match: IntentMatch) -> str:
        lang, say = match.language, self._phrases.say
        timers = self._timers.active()
        targeted = self._targeted(match)
        chosen = self._select(match, timers)
        if not chosen:
            return self._nothing(match) if targeted else say("timers.none", lang)
        if len(chosen) == 1:
            return self._status_line(chosen[0], lang, "label")
        items = [self._status_line(t, lang, "item") for t in chosen]
        return say(
            "timers.status_many",
            lang,
            count=len(chosen),
            items=join_spoken(items, self._phrases, lang),
        )

    def _status_line(self, timer: Timer, lang: str, form: str) -> str:
        who = timer_label if form == "label" else timer_item
        label = who(timer, self._phrases, lang)
        left = spoken_remaining(timer.remaining_s, self._phrases, lang)
        key = "timers.status_paused" if timer.state == "paused" else "timers.status"
        if form == "item":
            key = key.replace("status", "status_item", 1)
        return self._phrases.say(key, lang, label=label, remaining=left)

    async def _change(self, match: IntentMatch) -> str:
        """Pause, resume, add or remove time, or cancel the one timer meant."""
        lang, intent = match.language, match.intent
        if intent == "HassCancelTimer" and not self._targeted(match) and self._announcer.ringing:
            await self._announcer.silence()  # "stop the timer" while one rings
            return self._phrases.say("ringing.stopped", lang)
        wanted = {"HassPauseTimer": "running", "HassUnpauseTimer": "paused"}.get(intent)
        timers = self._timers.active()
        chosen = self._select(match, timers)
        if wanted is not None and len(chosen) > 1:
            chosen = [t for t in chosen if t.state == wanted] or chosen
        if not chosen:
            if self._targeted(match):
                return self._nothing(match)
            return self._phrases.say("timers.none", lang)
        if len(chosen) > 1:
            items = join_spoken(
                [timer_item(t, self._phrases, lang) for t in chosen], self._phrases, lang
            )
            return self._phrases.say("timers.which", lang, count=len(chosen), items=items)
        return await self._apply(match, chosen[0])

    async def _apply(self, match: IntentMatch, timer: Timer) -> str:
        lang, intent, say = match.language, match.intent, self._phrases.say
        label = timer_label(timer, self._phrases, lang)
        if intent == "HassPauseTimer":
            if timer.state == "paused":
                return say("timers.already_paused", lang, label=label)
            await self._timers.pause_timer(timer.id)
            return say("timers.paused", lang, label=label)
        if intent == "HassUnpauseTimer":
            if timer.state == "running":
                return say("timers.not_paused", lang, label=label)
            resumed = await self._timers.resume_timer(timer.id)
            left = spoken_remaining(resumed.remaining_s, self._phrases, lang)
            return say("timers.resumed", lang, label=label, remaining=left)
        if intent == "HassCancelTimer":
            await self._timers.cancel_timer(timer.id)
            return say("timers.cancelled", lang, label=label)
        delta = slot_duration_s(match)
        amount = spoken_duration(delta, self._phrases, lang)
        if intent == "HassDecreaseTimer":
            delta = -delta
        changed = await self._timers.adjust_timer(timer.id, delta)
        if changed.remaining_s <= 0:
            return say("timers.decreased_to_end", lang, label=label, amount=amount)
        left = spoken_remaining(changed.remaining_s, self._phrases, lang)
        key = "timers.increased" if delta > 0 else "timers.decreased"
        return say(key, lang, label=label, amount=amount, remaining=left)

    async def _cancel_all(self, match: IntentMatch) -> str:
        lang = match.language
        cancelled = await self._timers.cancel_all_timers()
        if not cancelled:
            return self._phrases.say("timers.none", lang)
        if len(cancelled) == 1:
            label = timer_label(cancelled[0], self._phrases, lang)
            return self._phrases.say("timers.cancelled", lang, label=label)
        return self._phrases.say("timers.cancelled_all", lang, count=len(cancelled))

    # --- which timer ----------------------------------------------------------------------

    @staticmethod
    def _targeted(match: IntentMatch) -> bool:
        return bool(match.text_slot("name")) or _has_slot(match, "start_")

    @staticmethod
    def _select(match: IntentMatch, timers: Sequence[Timer]) -> list[Timer]:
        """The timers the command names (by name, by duration set), else all of them."""
        chosen = list(timers)
        name = match.text_slot("name")
        if name:
            chosen = [t for t in chosen if same_name(t.name, name, match.language)]
        if _has_slot(match, "start_"):
            start_s = slot_duration_s(match, "start_")
            chosen = [t for t in chosen if abs(t.duration_s - start_s) < 0.5]
        return chosen

    def _nothing(self, match: IntentMatch) -> str:
        """No timer is the one named: say which was asked for."""
        lang = match.language
        name = clean_name(match.text_slot("name"), lang)
        if name:
            return self._phrases.say("timers.not_found_named", lang, name=name)
        fields = duration_fields(slot_duration_s(match, "start_"), self._phrases, lang)
        return self._phrases.say("timers.not_found_duration", lang, **fields)
