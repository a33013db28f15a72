"""The ports the everyday skills use: recognising sentences and saying replies.

Each skill family keeps its own storage and desktop ports beside its logic; these two are
shared by all of them (ARCHITECTURE.md: everyday skills).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from aria_desktop.domain.intents import IntentMatch
from aria_desktop.domain.lists import ListItem, ListSummary
from aria_desktop.domain.reminders import NewReminder, Reminder, ReminderKind
from aria_desktop.domain.timers import Timer

__all__ = [
    "IntentRecognizer",
    "ListAccess",
    "Phrasebook",
    "ReminderAccess",
    "ReminderStore",
    "TimerAccess",
    "TimerStore",
]


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


class ListAccess(Protocol):
    """The lists as every surface changes and reads them (``core/skills/list_service.py``).

    The same calls in the owner (``LocalAssistant.lists``) and over its API
    (``ApiClient.lists``). Names are taken as people say them ("to-do list" is ``todo``);
    ``item`` is an entry's text (case-insensitive), or its id with ``by_id``. Every change is
    told on the event bus (``skill-data-changed``, kind ``lists``).

    Raises (every method): ``NotFoundError`` for an unknown list or entry, ``ListInvalidError``
    for a bad name or item, ``HomeAssistantError`` when the list lives in Home Assistant and it
    cannot be reached (nothing was changed then, except an add, which is kept: ``pending``).
    """

    async def lists(self) -> list[ListSummary]:
        """Every list with its counts; shopping and to-do first, always there."""
        ...

    async def items(self, list_name: str, *, include_done: bool = False) -> list[ListItem]:
        """A list's entries, open ones first, oldest first (``include_done``: checked off too)."""
        ...

    async def add(self, list_name: str, items: Sequence[str]) -> list[ListItem]:
        """Append ``items`` (a new list is created by its first item)."""
        ...

    async def remove(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem:
        """Delete one entry."""
        ...

    async def complete(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem:
        """Check off one open entry."""
        ...

    async def reopen(self, list_name: str, item: str, *, by_id: bool = False) -> ListItem:
        """Make a checked-off entry open again."""
        ...

    async def clear_done(self, list_name: str) -> int:
        """Delete a list's checked-off entries; how many there were."""
        ...

    async def delete_list(self, list_name: str) -> int:
        """Delete one of the user's own lists and its entries (how many); never shopping, to-do."""
        ...


class TimerStore(Protocol):
    """Where timers live, so they outlast the process (``adapters/skills/timer_store.py``)."""

    async def save(self, timer: Timer) -> None:
        """Write ``timer`` (new or changed) before the change is told to anyone."""
        ...

    async def pending(self) -> list[Timer]:
        """Running and paused timers, and ended ones never announced (the next start's work)."""
        ...


class TimerAccess(Protocol):
    """Timers as front-ends use them (``core/skills/timers.py`` ``TimerService``).

    ``timer`` arguments are a timer's id or its name ("pasta"); a name two timers share is
    refused with their ids.
    """

    async def list_timers(self) -> list[Timer]:
        """Running and paused timers, soonest end first, ``remaining_s`` as of now."""
        ...

    async def start_timer(
        self, duration_s: float, *, name: str = "", language: str = "en"
    ) -> Timer:
        """Start a timer (TimerError: no duration, or longer than a day)."""
        ...

    async def pause_timer(self, timer: str) -> Timer:
        """Pause a running timer (NotFoundError, TimerError when it is not running)."""
        ...

    async def resume_timer(self, timer: str) -> Timer:
        """Let a paused timer run again."""
        ...

    async def cancel_timer(self, timer: str) -> Timer:
        """Cancel a running or paused timer."""
        ...

    async def cancel_all_timers(self) -> list[Timer]:
        """Cancel every running and paused timer; returns them."""
        ...


class ReminderStore(Protocol):
    """Where reminders live, so they outlast the process (``adapters/skills/reminder_store.py``)."""

    async def add(self, reminder: Reminder) -> None:
        """Write a new reminder."""
        ...

    async def get(self, reminder_id: str) -> Reminder | None:
        """One reminder by id, in any state."""
        ...

    async def pending(self) -> list[Reminder]:
        """Pending reminders and alarms, soonest first."""
        ...

    async def delivered_since(self, since: float) -> list[Reminder]:
        """Those delivered (for the last time) at ``since`` or later, newest first."""
        ...

    async def due(self, now: float) -> list[Reminder]:
        """Pending ones due at ``now`` or before, oldest first."""
        ...

    async def next_due_at(self) -> float | None:
        """When the soonest pending one is due (None: none pending)."""
        ...

    async def cancel(self, reminder_ids: Sequence[str]) -> list[Reminder]:
        """Cancel those of ``reminder_ids`` still pending; returns them as cancelled."""
        ...

    async def mark_delivered(
        self, reminder: Reminder, *, delivered_at: float, late: bool, next_due_at: float | None
    ) -> bool:
        """Record a delivery: delivered, or pending at ``next_due_at`` when it recurs.

        Only when it is still pending and due at ``reminder.due_at`` (False otherwise: it was
        cancelled or changed meanwhile, and is left as it is).
        """
        ...


class ReminderAccess(Protocol):
    """Reminders as every surface uses them (``LocalAssistant.reminders``, ``ApiClient.reminders``).

    Every change is told on the bus (``skill-data-changed``, kind ``reminders``).
    """

    async def list_reminders(self, *, kind: ReminderKind | None = None) -> list[Reminder]:
        """Pending ones (soonest first), then those delivered in the last 7 days (newest first)."""
        ...

    async def add_reminder(self, new: NewReminder) -> Reminder:
        """Set a reminder or an alarm (ReminderError: no text, or ``when`` is not a time)."""
        ...

    async def cancel_reminder(self, reminder_id: str) -> Reminder:
        """Cancel a pending one (NotFoundError: no pending reminder has that id)."""
        ...

    async def cancel_all_reminders(self, kind: ReminderKind | None = None) -> list[Reminder]:
        """Cancel every pending one (of ``kind``); returns them."""
        ...
