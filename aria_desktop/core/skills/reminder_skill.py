"""Reminders and alarms by voice and chat: set, list, cancel.

"remind me at 4 pm to call mom", "remind me to call mom tomorrow", "wake me up at 7", "set an
alarm for 6:30 every weekday", "what are my reminders", "cancel my 7 am alarm", "cancel the
reminder to call mom", "cancel all alarms" — and the German ones ("erinnere mich um 16 Uhr
daran, …", "weck mich um 7"). The templates capture the when-phrase and the message as said;
:meth:`ReminderSkill.accepts` takes a reading only when its when-phrase is a time
(``core/skills/when.py``), so "remind me what you said about the budget" goes to the model.

A reminder with nothing that reads as a time ("remind me to call mom") is not taken either: it
goes to the model, which has the ``reminder`` tool and can ask when (with no model, the turn
says no model is there). Asking back here would need a follow-up turn the router does not
keep; the model already does that well.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from aria_desktop.core.skills.ports import Phrasebook
from aria_desktop.core.skills.reminder_words import spoken_list, spoken_when
from aria_desktop.core.skills.reminders import ReminderService
from aria_desktop.core.skills.router import SkillTurn
from aria_desktop.core.skills.when import When, clock_times, parse_when, split_trailing_when
from aria_desktop.core.skills.when_grammar import GRAMMARS
from aria_desktop.domain.intents import IntentMatch, SkillReply
from aria_desktop.domain.reminders import MAX_REMINDER_TEXT, Reminder, ReminderKind

__all__ = ["ReminderSkill"]

ADD, ALARM, LIST = "AriaAddReminder", "AriaSetAlarm", "AriaListReminders"
CANCEL, CANCEL_ALL = "AriaCancelReminder", "AriaCancelAllReminders"
_CONNECTORS = frozenset({"to", "about", "that"})
_LISTED = 5
"""At most this many are read aloud ("You have 8 reminders: the next 5 …")."""


@dataclass(frozen=True)
class _Reading:
    """A reminder as a sentence stated it."""

    message: str
    when: When
    connector: str


class ReminderSkill:
    """Sets, lists and cancels reminders and alarms (``ReminderService`` keeps them)."""

    name = "reminders"
    intents = frozenset({ADD, ALARM, LIST, CANCEL, CANCEL_ALL})

    def __init__(self, service: ReminderService, phrases: Phrasebook) -> None:
        """Keep reminders with ``service``; say replies with ``phrases``."""
        self._service = service
        self._phrases = phrases

    def accepts(self, match: IntentMatch) -> bool:
        """A reading whose when-phrase is a time (and whose message is not empty)."""
        if match.language not in GRAMMARS:
            return False
        if match.intent == ADD:
            return self._reminder(match) is not None
        if match.intent == ALARM:
            return self._alarm(match) is not None
        if match.intent == CANCEL and match.text_slot("when"):
            return bool(clock_times(match.text_slot("when"), match.language))
        return True

    async def handle(self, match: IntentMatch, turn: SkillTurn) -> SkillReply:
        """Carry out the reminder command and say what was done."""
        if match.intent == ADD:
            text = await self._add(match)
        elif match.intent == ALARM:
            text = await self._set_alarm(match)
        elif match.intent == LIST:
            text = await self._list(match)
        elif match.intent == CANCEL:
            text = await self._cancel(match)
        else:
            text = await self._cancel_all(match)
        return SkillReply(text=text, skill=self.name)

    # --- readings ---------------------------------------------------------------------------

    def _reminder(self, match: IntentMatch) -> _Reading | None:
        now = self._service.now()
        connector = match.text_slot("connector", "to")
        connector = connector if connector in _CONNECTORS else "to"
        task = match.text_slot("task")
        if task:
            split = split_trailing_when(task, match.language, now)
            if split is None:
                return None
            message, when = split
        else:
            found = parse_when(match.text_slot("when"), match.language, now)
            if found is None:
                return None
            message, when = match.text_slot("message"), found
        message = message.strip(" ,.!?")
        if not message or len(message) > MAX_REMINDER_TEXT:
            return None
        return _Reading(message=message, when=when, connector=connector)

    def _alarm(self, match: IntentMatch) -> When | None:
        now = self._service.now()
        found = parse_when(match.text_slot("when"), match.language, now, bare_hour="as_said")
        return found if found is not None and found.has_time else None

    # --- commands ---------------------------------------------------------------------------

    async def _add(self, match: IntentMatch) -> str:
        reading = self._reminder(match)
        if reading is None:  # the clock moved past the time since accepts()
            return self._phrases.say("reminders.not_a_time", match.language)
        reminder = await self._service.set(
            reading.when, text=reading.message, kind="reminder", language=match.language
        )
        when = spoken_when(reminder, self._service.now(), self._phrases)
        return self._phrases.say(
            f"reminders.set_{reading.connector}",
            match.language,
            when=when,
            message=reading.message,
        )

    async def _set_alarm(self, match: IntentMatch) -> str:
        when = self._alarm(match)
        if when is None:
            return self._phrases.say("reminders.not_a_time", match.language)
        alarm = await self._service.set(when, text="", kind="alarm", language=match.language)
        said = spoken_when(alarm, self._service.now(), self._phrases)
        return self._phrases.say("alarm.set", match.language, when=said)

    async def _list(self, match: IntentMatch) -> str:
        kind = _kind(match)
        family = _family(kind)
        pending = await self._service.pending(kind)
        if not pending:
            return self._phrases.say(f"{family}.none", match.language)
        return self._listed(pending, family, match.language)

    def _listed(self, pending: list[Reminder], family: str, language: str) -> str:
        now = self._service.now()
        spoken = [_in_language(r, language) for r in pending[:_LISTED]]
        items = spoken_list(spoken, now, self._phrases)
        key = f"{family}.list_one" if len(pending) == 1 else f"{family}.list_many"
        if len(pending) > _LISTED:
            key = f"{family}.list_first"
        return self._phrases.say(key, language, count=len(pending), shown=_LISTED, items=items)

    async def _cancel(self, match: IntentMatch) -> str:
        kind = _kind(match)
        family = _family(kind)
        language = match.language
        pending = await self._service.pending(kind)
        said_when, said_message = match.text_slot("when"), match.text_slot("message")
        if said_when:
            found = self._at_times(pending, clock_times(said_when, language))
        elif said_message:
            found = _by_text(pending, said_message)
        else:
            found = pending
        if not found:
            if not said_when and not said_message:
                return self._phrases.say(f"{family}.none", language)
            return self._phrases.say(
                f"{family}.not_found", language, message=said_message, time=said_when
            )
        if len(found) > 1 and not (said_when or said_message):
            items = spoken_list(
                [_in_language(r, language) for r in found[:_LISTED]],
                self._service.now(),
                self._phrases,
            )
            return self._phrases.say(f"{family}.which", language, count=len(found), items=items)
        target = found[0]  # the soonest of those that fit
        await self._service.cancel([target.id])
        when = spoken_when(_in_language(target, language), self._service.now(), self._phrases)
        return self._phrases.say(f"{family}.cancelled", language, message=target.text, when=when)

    def _at_times(
        self, pending: list[Reminder], times: tuple[tuple[int, int], ...]
    ) -> list[Reminder]:
        zone = self._service.now().tzinfo
        found = []
        for reminder in pending:
            moment = dt.datetime.fromtimestamp(reminder.due_at, zone)
            if (moment.hour, moment.minute) in times:
                found.append(reminder)
        return found

    async def _cancel_all(self, match: IntentMatch) -> str:
        kind = _kind(match)
        family = _family(kind)
        cancelled = await self._service.cancel_all_reminders(kind)
        if not cancelled:
            return self._phrases.say(f"{family}.none", match.language)
        key = f"{family}.cancelled_all_one" if len(cancelled) == 1 else f"{family}.cancelled_all"
        return self._phrases.say(key, match.language, count=len(cancelled))


def _kind(match: IntentMatch) -> ReminderKind:
    return "alarm" if match.text_slot("kind") == "alarm" else "reminder"


def _family(kind: ReminderKind) -> str:
    return "alarm" if kind == "alarm" else "reminders"


def _in_language(reminder: Reminder, language: str) -> Reminder:
    """The reminder as said in the language being spoken now (not the one it was set in)."""
    return reminder if reminder.language == language else replace(reminder, language=language)


def _words(text: str) -> set[str]:
    return {word for word in text.casefold().replace(",", " ").split() if len(word) > 2}


def _by_text(pending: list[Reminder], said: str) -> list[Reminder]:
    """Those whose text is the one said: the same, containing it, or sharing over half its words."""
    wanted = " ".join(said.casefold().split())
    same = [r for r in pending if " ".join(r.text.casefold().split()) == wanted]
    if same:
        return same
    within = [
        r
        for r in pending
        if r.text and (wanted in r.text.casefold() or r.text.casefold() in wanted)
    ]
    if within:
        return within
    words = _words(said)
    if not words:
        return []
    return [r for r in pending if len(words & _words(r.text)) * 2 > len(words)]
