"""Timers: several at once, named or not; start, pause, resume, add or remove time, cancel.

``TimerService`` holds the running and paused timers in memory and writes every change through
the store first, so a timer outlives a restart and ``kill -9``: a running timer's end is stored
as wall-clock time. Its :meth:`TimerService.run` is the scheduler of the owner process (one
task, owned by the orchestrator): it sleeps until the next end, and an ``asyncio.Event``
re-plans it whenever timers change. A timer that ended while ARIA was not running is announced
at the next start as missed ("Your pasta timer ended at 4:05 PM while I was not running.").

When a timer ends: ``timer-finished`` and ``skill-data-changed`` (kind ``timers``) on the bus,
then the announcer (ring, speech, notification; ``core/skills/announcing.py``). Pure: time is
the injected clock, storage and announcing are ports (ARCHITECTURE.md: everyday skills).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from aria_desktop.core.ports import Clock
from aria_desktop.core.skills.announce import Announcement, Announcer
from aria_desktop.core.skills.ports import Phrasebook, TimerStore
from aria_desktop.core.skills.timer_words import same_name, timer_label
from aria_desktop.core.skills.wording import names
from aria_desktop.domain.errors import AriaError, NotFoundError, TimerError
from aria_desktop.domain.events import Event
from aria_desktop.domain.skill_events import SkillDataChanged, TimerFinished
from aria_desktop.domain.timers import MAX_TIMER_S, Timer

__all__ = ["TimerService"]

_LOGGER = logging.getLogger(__name__)

_LONGEST_WAIT_S = 5.0
"""The scheduler looks at the wall clock at least this often while a timer runs: asyncio's
clock stands still while a laptop sleeps, a timer's end does not."""

_RETRY_S = 5.0
"""After an unexpected failure the scheduler tries again this much later."""

_NAME_MAX = 60


def _new_id() -> str:
    return secrets.token_hex(4)


class TimerService:
    """The timers of this ARIA: the front-ends' ``TimerAccess`` and the owner's scheduler."""

    def __init__(
        self,
        store: TimerStore,
        *,
        clock: Clock,
        publish: Callable[[Event], None],
        announcer: Announcer,
        phrases: Phrasebook,
        new_id: Callable[[], str] = _new_id,
    ) -> None:
        """Keep timers in ``store``; tell changes with ``publish`` and ends with ``announcer``."""
        self._store = store
        self._clock = clock
        self._publish = publish
        self._announcer = announcer
        self._phrases = phrases
        self._new_id = new_id
        self._timers: dict[str, Timer] = {}
        self._missed: list[Timer] = []
        self._changed = asyncio.Event()
        self._loaded = False

    async def load(self) -> None:
        """Read the stored timers; those that ended meanwhile are announced by :meth:`run`."""
        now = self._clock.time()
        self._timers.clear()
        self._missed.clear()
        for timer in await self._store.pending():
            ended = timer.state == "running" and (timer.ends_at or 0) <= now
            if ended or timer.state == "finished":
                self._missed.append(timer)
            elif timer.active:
                self._timers[timer.id] = timer
        self._loaded = True

    # --- what front-ends use (core.skills.ports.TimerAccess) ------------------------------

    def active(self) -> list[Timer]:
        """Running timers soonest end first, then paused ones; ``remaining_s`` as of now."""
        now = self._clock.time()
        views = [replace(t, remaining_s=t.remaining_at(now)) for t in self._timers.values()]
        return sorted(views, key=lambda t: (t.state != "running", t.remaining_s, t.created_at))

    async def list_timers(self) -> list[Timer]:
        """Running and paused timers (the tray's countdown, ``aria timers``)."""
        return self.active()

    async def start_timer(
        self, duration_s: float, *, name: str = "", language: str = "en"
    ) -> Timer:
        """Start a timer of ``duration_s`` seconds."""
        if not duration_s > 0:
            raise TimerError(
                "A timer needs a duration above zero.", hint="Say how long: 5m, 1h30m or 90s."
            )
        if duration_s > MAX_TIMER_S:
            raise TimerError(
                "A timer can run for at most 24 hours.", hint="Set a reminder for anything longer."
            )
        now = self._clock.time()
        timer = Timer(
            id=self._new_id(),
            name=" ".join(name.split())[:_NAME_MAX],
            duration_s=float(duration_s),
            ends_at=now + duration_s,
            remaining_s=float(duration_s),
            created_at=now,
            language=language,
        )
        return await self._put(timer)

    async def pause_timer(self, timer: str) -> Timer:
        """Pause a running timer; what is left stays until it is resumed."""
        found = self.find(timer)
        if found.state != "running":
            raise TimerError(f"The timer {self._said(found)} is already paused.")
        left = found.remaining_at(self._clock.time())
        return await self._put(replace(found, state="paused", ends_at=None, remaining_s=left))

    async def resume_timer(self, timer: str) -> Timer:
        """Let a paused timer count down again from where it stopped."""
        found = self.find(timer)
        if found.state != "paused":
            raise TimerError(f"The timer {self._said(found)} is not paused.")
        ends_at = self._clock.time() + found.remaining_s
        return await self._put(replace(found, state="running", ends_at=ends_at))

    async def adjust_timer(self, timer: str, delta_s: float) -> Timer:
        """Add time (``delta_s`` > 0) or take it off; taking off all that is left ends it now."""
        found = self.find(timer)
        now = self._clock.time()
        left = found.remaining_at(now) + delta_s
        if left > MAX_TIMER_S:
            raise TimerError(
                "A timer can run for at most 24 hours.", hint="Set a reminder for anything longer."
            )
        if left <= 0:
            changed = replace(found, state="running", ends_at=now, remaining_s=0.0)
        elif found.state == "running":
            changed = replace(found, ends_at=now + left, remaining_s=left)
        else:
            changed = replace(found, remaining_s=left)
        return await self._put(changed)

    async def cancel_timer(self, timer: str) -> Timer:
        """Cancel a running or paused timer."""
        found = self.find(timer)
        now = self._clock.time()
        cancelled = replace(
            found, state="cancelled", ends_at=None, remaining_s=0.0, finished_at=now
        )
        return await self._put(cancelled)

    async def cancel_all_timers(self) -> list[Timer]:
        """Cancel every running and paused timer."""
        return [await self.cancel_timer(timer.id) for timer in self.active()]

    def find(self, timer: str) -> Timer:
        """The active timer with id ``timer``, else the one called ``timer``.

        Raises:
            NotFoundError: no active timer has that id or name.
            TimerError: several are called that.
        """
        timers = self.active()
        for found in timers:
            if found.id == timer.strip():
                return found
        named = [t for t in timers if same_name(t.name, timer, t.language)]
        if len(named) == 1:
            return named[0]
        if not named:
            raise NotFoundError(
                f"There is no running timer {timer!r}.",
                hint="`aria timers` lists the running ones with their ids.",
            )
        ids = ", ".join(t.id for t in named)
        raise TimerError(f"{len(named)} timers are called {timer!r} ({ids}).", hint="Use its id.")

    # --- the scheduler ---------------------------------------------------------------------

    def wake(self) -> None:
        """Let the scheduler look again now (timers changed, or a test moved its clock)."""
        self._changed.set()

    async def run(self) -> None:
        """Announce what ended while ARIA was off, then end each timer when its time comes."""
        if not self._loaded:
            await self.load()
        missed, self._missed = self._missed, []
        for timer in missed:
            await self._finish(timer, missed=True)
        while True:
            self._changed.clear()
            wait_s: float | None = _RETRY_S
            try:
                await self._finish_due()
                wait_s = self._next_wait_s(self._clock.time())
            except Exception:  # a bug must not stop every timer for good: try again soon
                _LOGGER.exception("The timer scheduler failed; trying again in %.0f s", _RETRY_S)
            try:
                async with asyncio.timeout(wait_s):
                    await self._changed.wait()
            except TimeoutError:
                pass

    async def _finish_due(self) -> None:
        now = self._clock.time()
        due = [t for t in self._timers.values() if t.state == "running"]
        for timer in sorted(due, key=lambda t: t.ends_at or 0):
            if (timer.ends_at or 0) <= now:
                await self._finish(timer, missed=False)

    def _next_wait_s(self, now: float) -> float | None:
        ends = [t.ends_at for t in self._timers.values() if t.state == "running" and t.ends_at]
        if not ends:
            return None
        return max(0.0, min(min(ends) - now, _LONGEST_WAIT_S))

    async def _finish(self, timer: Timer, *, missed: bool) -> None:
        """Store the end, tell it on the bus, announce it, then mark it announced."""
        end = timer.ends_at if timer.ends_at is not None else (timer.finished_at or 0.0)
        done = replace(timer, state="finished", remaining_s=0.0, finished_at=end, announced=False)
        try:
            await self._store.save(done)
        except AriaError as exc:
            _LOGGER.error("Could not store the end of timer %s: %s", timer.id, exc)
        self._timers.pop(timer.id, None)  # (kept for the retry when anything else failed)
        _LOGGER.info("Timer %s ended%s", timer.id, " while ARIA was not running" if missed else "")
        announcement = self._announcement(done, missed=missed)
        self._publish(
            TimerFinished(
                timer_id=timer.id,
                name=timer.name,
                duration_s=timer.duration_s,
                missed=missed,
                message=announcement.text,
            )
        )
        self._publish(SkillDataChanged(kind="timers"))
        try:
            await self._announcer.announce(announcement)
        except Exception:
            _LOGGER.exception("Announcing the end of timer %s failed", timer.id)
        try:
            await self._store.save(replace(done, announced=True))
        except AriaError as exc:
            _LOGGER.error("Could not mark timer %s announced: %s", timer.id, exc)

    def _announcement(self, timer: Timer, *, missed: bool) -> Announcement:
        lang, say = timer.language, self._phrases.say
        label = timer_label(timer, self._phrases, lang)
        if not missed:
            text = say("timers.done", lang, label=label)
        else:
            ended = datetime.fromtimestamp(timer.finished_at or 0.0).astimezone()
            today = datetime.fromtimestamp(self._clock.time()).astimezone().date()
            time = ended.strftime(say("clock.time_format", lang))
            if ended.date() == today:
                text = say("timers.missed", lang, label=label, time=time)
            else:
                weekday = names("names.weekdays", self._phrases, lang)[ended.weekday()]
                text = say("timers.missed_day", lang, label=label, time=time, weekday=weekday)
        return Announcement(
            kind="timer",
            title=say("timers.title", lang),
            text=text[:1].upper() + text[1:],
            ring=not missed,
            key=timer.id,
        )

    # --- shared ---------------------------------------------------------------------------

    async def _put(self, timer: Timer) -> Timer:
        """Store ``timer`` first, then keep it (or drop it once it is over) and re-plan."""
        await self._store.save(timer)
        if timer.active:
            self._timers[timer.id] = timer
        else:
            self._timers.pop(timer.id, None)
        self._publish(SkillDataChanged(kind="timers"))
        self.wake()
        return replace(timer, remaining_s=timer.remaining_at(self._clock.time()))

    def _said(self, timer: Timer) -> str:
        return repr(timer.name) if timer.name else timer.id
