"""Reminders and alarms: set, list, cancel, and delivered when due — also after ARIA was off.

``ReminderService`` is the front-ends' ``ReminderAccess`` (the skill, the API, the CLI, the
model's ``reminder`` tool, MCP) and the owner's scheduler: :meth:`ReminderService.run` is one
task that sleeps until the next due time, re-planned by an ``asyncio.Event`` whenever reminders
change, and at least every ``_LONGEST_WAIT_S`` (asyncio's clock stands still while a laptop
sleeps; the wall clock does not).

Delivery is at least once, never lost: a due reminder is told first (``reminder-due`` on the
bus, then the announcer: speech, notification, and a ring for an alarm), and only then marked
delivered in the store. A crash in between delivers it again at the next start, marked late —
the one case a reminder is told twice, against a lost one if it were marked first. The mark is
conditional (still pending, still due at that time), so within a running ARIA nothing is
delivered twice and a reminder cancelled meanwhile stays cancelled. One that came due while
ARIA was not running is simply overdue at the start: delivered then, marked late ("Late
reminder: call mom (was due today at 4 PM)"). A recurring one moves to its next occurrence
after the delivery (missed occurrences are told once, not once each).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import secrets
from collections.abc import Callable, Sequence

from aria_desktop.core.ports import Clock
from aria_desktop.core.skills.announce import Announcement, Announcer
from aria_desktop.core.skills.local_zone import local_zone, zone_name
from aria_desktop.core.skills.ports import Phrasebook, ReminderAccess, ReminderStore
from aria_desktop.core.skills.reminder_words import announcement_text
from aria_desktop.core.skills.when import BareHour, When, next_occurrence, parse_when
from aria_desktop.domain.cron import CronSchedule
from aria_desktop.domain.errors import AriaError, NotFoundError, ReminderError
from aria_desktop.domain.events import Event
from aria_desktop.domain.reminders import (
    MAX_REMINDER_TEXT,
    RECENT_DELIVERED_S,
    REMINDER_KINDS,
    NewReminder,
    Reminder,
    ReminderKind,
)
from aria_desktop.domain.skill_events import ReminderDue, SkillDataChanged

__all__ = ["ReminderAccess", "ReminderService", "ReminderStore"]


_LOGGER = logging.getLogger(__name__)

_LONGEST_WAIT_S = 30.0
"""The scheduler looks at the wall clock at least this often (suspend, clock changes)."""
LATE_AFTER_S = 60.0
"""Delivered more than this after its time: said to be late."""
RING_LATE_S = 15 * 60.0
"""An alarm rings only when at most this late (a missed 7 o'clock alarm does not ring at 10)."""
_RETRY_S = 5.0
"""After the store failed, the scheduler tries again this much later."""
_HINT_WHEN = 'Say when as "tomorrow at 9 am", "in 20 minutes" or "every weekday at 7".'


def _new_id() -> str:
    return secrets.token_hex(4)


class ReminderService:
    """The reminders of this ARIA: ``ReminderAccess`` and the owner's scheduler."""

    def __init__(
        self,
        store: ReminderStore,
        *,
        clock: Clock,
        publish: Callable[[Event], None],
        phrases: Phrasebook,
        announcer: Announcer | None = None,
        zone: Callable[[], dt.tzinfo] = local_zone,
        new_id: Callable[[], str] = _new_id,
    ) -> None:
        """Keep reminders in ``store``; tell changes with ``publish``, due ones with ``announcer``.

        ``announcer`` None: due reminders are told on the bus only (the event, the front-ends).
        ``zone`` gives the local time zone (the process's ``TZ``, read at each use).
        """
        self._store = store
        self._clock = clock
        self._publish = publish
        self._phrases = phrases
        self.announcer = announcer
        self._zone = zone
        self._new_id = new_id
        self._changed = asyncio.Event()

    def now(self) -> dt.datetime:
        """The present moment in the local zone (what when-phrases are read against)."""
        return dt.datetime.fromtimestamp(self._clock.time(), self._zone())

    # --- ReminderAccess ---------------------------------------------------------------------

    async def list_reminders(self, *, kind: ReminderKind | None = None) -> list[Reminder]:
        """Pending ones, then those delivered in the last 7 days."""
        since = self._clock.time() - RECENT_DELIVERED_S
        found = await self._store.pending() + await self._store.delivered_since(since)
        return [r for r in found if kind is None or r.kind == kind]

    async def pending(self, kind: ReminderKind | None = None) -> list[Reminder]:
        """Pending ones (of ``kind``), soonest first."""
        return [r for r in await self._store.pending() if kind is None or r.kind == kind]

    async def add_reminder(self, new: NewReminder) -> Reminder:
        """Parse ``new.when`` and store the reminder; the scheduler re-plans."""
        if new.kind not in REMINDER_KINDS:
            raise ReminderError(f"A reminder is a reminder or an alarm, not {new.kind!r}.")
        text = " ".join(new.text.split())
        if new.kind == "reminder" and not text:
            raise ReminderError("A reminder needs something to remind you of.")
        if len(text) > MAX_REMINDER_TEXT:
            raise ReminderError(f"A reminder is at most {MAX_REMINDER_TEXT} characters long.")
        when = self._parse(new.when, new.language, new.kind)
        return await self.set(when, text=text, kind=new.kind, language=new.language)

    async def set(self, when: When, *, text: str, kind: ReminderKind, language: str) -> Reminder:
        """Store a reminder whose moment is already known (the skill parsed it)."""
        zone = self._zone()
        reminder = Reminder(
            id=self._new_id(),
            kind=kind,
            text=text,
            due_at=when.due_at,
            recurrence=when.recurrence,
            timezone=zone_name(zone),
            created_at=self._clock.time(),
            language=language,
        )
        await self._store.add(reminder)
        self._changed_now()
        return reminder

    async def cancel_reminder(self, reminder_id: str) -> Reminder:
        """Cancel one pending reminder by id."""
        cancelled = await self.cancel([reminder_id.strip()])
        if not cancelled:
            raise NotFoundError(
                f"There is no pending reminder {reminder_id!r}.",
                hint="`aria reminders` lists them with their ids.",
            )
        return cancelled[0]

    async def cancel_all_reminders(self, kind: ReminderKind | None = None) -> list[Reminder]:
        """Cancel every pending one (of ``kind``)."""
        return await self.cancel([r.id for r in await self.pending(kind)])

    async def cancel(self, reminder_ids: Sequence[str]) -> list[Reminder]:
        """Cancel these (those still pending); the scheduler re-plans."""
        if not reminder_ids:
            return []
        cancelled = await self._store.cancel(reminder_ids)
        if cancelled:
            self._changed_now()
        return cancelled

    def _parse(self, when: str, language: str, kind: ReminderKind) -> When:
        said = when.strip()
        if not said:
            raise ReminderError("When should it be?", hint=_HINT_WHEN)
        now = self.now()
        bare: BareHour = "as_said" if kind == "alarm" else "nearest"
        found = parse_when(said, language, now, bare_hour=bare) or _iso_moment(said, now)
        if found is None and said.lower().startswith(("cron:", "@")):
            found = self._cron(said.removeprefix("cron:").strip(), now)
        if found is None:
            raise ReminderError(f"{said!r} is not a time I understand.", hint=_HINT_WHEN)
        return found

    @staticmethod
    def _cron(rule: str, now: dt.datetime) -> When | None:
        try:
            expression = CronSchedule.parse(rule).expression
        except ValueError:
            return None
        assert now.tzinfo is not None
        due = next_occurrence(expression, now.timestamp(), now.tzinfo)
        return None if due is None else When(due_at=due, recurrence=expression)

    def _changed_now(self) -> None:
        self._changed.set()
        self._publish(SkillDataChanged(kind="reminders"))

    # --- the scheduler ----------------------------------------------------------------------

    async def run(self) -> None:
        """Deliver reminders as they come due, until cancelled (the owner's background task)."""
        while True:
            self._changed.clear()
            try:
                next_at = await self.deliver_due()
                wait = _LONGEST_WAIT_S
                if next_at is not None:
                    wait = min(max(next_at - self._clock.time(), 0.0), _LONGEST_WAIT_S)
            except AriaError as exc:
                _LOGGER.warning("Reminders could not be read; trying again: %s", exc.message)
                wait = _RETRY_S
            except Exception:  # a bug must not end the scheduler: reminders would go untold
                _LOGGER.exception("Delivering reminders failed; trying again")
                wait = _RETRY_S
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout=wait)

    async def deliver_due(self) -> float | None:
        """Deliver every reminder due now; returns when the next one is due."""
        now = self._clock.time()
        for reminder in await self._store.due(now):
            await self._deliver(reminder, now)
        return await self._store.next_due_at()

    async def _deliver(self, reminder: Reminder, now: float) -> None:
        overdue = now - reminder.due_at
        late = overdue > LATE_AFTER_S
        announcement = self._announcement(reminder, now, late=late, ring=overdue <= RING_LATE_S)
        self._publish(
            ReminderDue(
                reminder_id=reminder.id,
                kind=reminder.kind,
                text=reminder.text,
                due_at=reminder.due_at,
                late=late,
                message=announcement.text,
            )
        )
        await self._announce(announcement)
        next_due = None
        if reminder.recurrence:
            next_due = next_occurrence(reminder.recurrence, now, self._zone())
        marked = await self._store.mark_delivered(
            reminder, delivered_at=now, late=late, next_due_at=next_due
        )
        if marked:
            self._publish(SkillDataChanged(kind="reminders"))
        _LOGGER.info("Delivered %s %s%s", reminder.kind, reminder.id, " (late)" if late else "")

    def _announcement(
        self, reminder: Reminder, now: float, *, late: bool, ring: bool
    ) -> Announcement:
        moment = dt.datetime.fromtimestamp(now, self._zone())
        title, text = announcement_text(reminder, moment, self._phrases, late=late)
        return Announcement(
            kind=reminder.kind,
            title=title,
            text=text,
            ring=reminder.kind == "alarm" and ring,
            key=reminder.id,
        )

    async def _announce(self, announcement: Announcement) -> None:
        if self.announcer is None:
            return
        try:
            await self.announcer.announce(announcement)
        except Exception:  # the event is out; a failing desktop part must not stop the rest
            _LOGGER.exception("Announcing reminder %s failed", announcement.key)


def _iso_moment(text: str, now: dt.datetime) -> When | None:
    """``2026-03-05T16:00`` (local when it has no offset) as a one-off moment ahead of ``now``."""
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=now.tzinfo)
    due = moment.timestamp()
    return When(due_at=due) if due > now.timestamp() else None
