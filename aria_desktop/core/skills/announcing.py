"""The desktop announcer: a ring until "stop" (or a minute), the sentence spoken, a notification.

What a timer's end, an alarm or a reminder does to reach a person who is not looking at the
screen (``core/skills/announce.py`` is the port). The pure logic is here; the parts are ports:

- :class:`RingPlayer` plays one ring of the shipped chime, stoppable (``SinkRingPlayer`` over
  the voice's own output path, ``core/skills/ring.py``);
- :class:`Speaker` says a sentence outside a turn (:class:`CommandSpeaker`: the voice
  pipeline's ``Speak`` command; with voice off nothing is said);
- ``Notifier`` shows a desktop notification (False when this desktop has none).

Nothing missing stops the rest: no sound server means no ring, but the notification and the
speech still come. Several announcements at once share one ring, and each is spoken.

"stop" silences the ring: typed, by API, in a voice turn (``StopRingingSkill``, whose
``AriaStopRinging`` goes before every other reading while a ring sounds), heard on the
microphone without the wake word while it rings (:class:`RingStopListener`, the voice
pipeline's hands-free hook), and by the kill switch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from aria_desktop.core.ports import Clock
from aria_desktop.core.skills.announce import Announcement, Notifier
from aria_desktop.core.skills.ports import Phrasebook
from aria_desktop.core.skills.router import SkillRouter, SkillTurn
from aria_desktop.domain.commands import Command, Speak
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.intents import IntentMatch, SkillReply

__all__ = [
    "CommandSpeaker",
    "DesktopAnnouncer",
    "NoNotifier",
    "RingPlayer",
    "RingStopListener",
    "Speaker",
    "StopRingingSkill",
]

_LOGGER = logging.getLogger(__name__)

STOP_RINGING = "AriaStopRinging"
_NOTIFY_TIMEOUT_S = 5.0
_SPEAK_TIMEOUT_S = 30.0


class RingPlayer(Protocol):
    """Plays the ring sound (``core/skills/ring.py``)."""

    async def play(self) -> None:
        """Play one ring to its end, or until :meth:`stop` (AriaError: no sound output)."""
        ...

    def stop(self) -> None:
        """Silence the ring being played now."""
        ...

    async def aclose(self) -> None:
        """Give the sound device back (the ring is over)."""
        ...


class Speaker(Protocol):
    """Says a sentence outside a turn."""

    async def say(self, text: str) -> bool:
        """Speak ``text`` to its end; False when there is no voice to speak with."""
        ...


class Spawn(Protocol):
    """Runs a named background task owned by the orchestrator (``Orchestrator.spawn``)."""

    def __call__(self, coro: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]: ...


class NoNotifier:
    """A desktop without notifications (until the D-Bus notifier is built)."""

    async def notify(self, title: str, body: str, *, urgent: bool = False) -> bool:
        """Show nothing."""
        return False


class CommandSpeaker:
    """The :class:`Speaker` through the voice pipeline's ``Speak`` command."""

    def __init__(self, handle: Callable[[Command], Awaitable[Any]]) -> None:
        """Send ``Speak`` with ``handle`` (``Orchestrator.handle``)."""
        self._handle = handle

    async def say(self, text: str) -> bool:
        """Speak, or False when voice is off, missing or failed (logged, never raised)."""
        try:
            await self._handle(Speak(text=text))
        except AriaError as exc:
            _LOGGER.info("Announcement not spoken: %s", exc.message)
            return False
        except TypeError:  # no voice capability was installed at all (a CLI-only ARIA)
            return False
        return True


class DesktopAnnouncer:
    """The ``Announcer`` port (``core/skills/announce.py``) on this desktop."""

    def __init__(
        self,
        *,
        ring: RingPlayer,
        speaker: Speaker,
        notifier: Notifier,
        clock: Clock,
        spawn: Spawn,
        gap_s: float = 0.8,
        on_ringing: Callable[[bool], None] | None = None,
    ) -> None:
        """Ring with ``ring``, speak with ``speaker``, notify with ``notifier``.

        ``gap_s``: the pause between two rings. Tasks run under ``spawn`` (the orchestrator's,
        so they end with it). ``on_ringing`` is told when a ring starts (True) and ends (False):
        the composition root publishes it, so the tray can offer "Stop ringing".
        """
        self.ring = ring
        self.speaker = speaker
        self.notifier = notifier
        self._clock = clock
        self._spawn = spawn
        self._gap_s = gap_s
        self._on_ringing = on_ringing
        self._ring_task: asyncio.Task[Any] | None = None
        self._ring_until = 0.0
        self._silenced = asyncio.Event()
        self.rings_played = 0
        """Rings played since start (what tests and ``aria doctor`` look at)."""

    @property
    def ringing(self) -> bool:
        """Whether a ring is sounding (or between two rings) now."""
        return self._ring_task is not None and not self._ring_task.done()

    async def announce(self, announcement: Announcement) -> None:
        """Notify now; ring (when asked) and speak in the background."""
        self._spawn(self._notify(announcement), name=f"aria-notify-{announcement.key}")
        if not announcement.ring:
            self._spawn(self._say(announcement.text), name=f"aria-announce-{announcement.key}")
            return
        self._ring_until = max(self._ring_until, self._clock.monotonic() + announcement.ring_s)
        if self.ringing:  # one ring for all: say the new one while it goes on
            self._spawn(self._say(announcement.text), name=f"aria-announce-{announcement.key}")
            return
        self._silenced = asyncio.Event()
        self._ring_task = self._spawn(self._ring(announcement.text), name="aria-ring")
        self._tell_ringing(True)

    async def silence(self) -> bool:
        """Stop the ring now; whether one was sounding."""
        was = self.ringing
        self._silenced.set()
        self.ring.stop()
        task = self._ring_task
        if task is not None and not task.done():
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(task), timeout=2.0)
        return was

    async def _ring(self, text: str) -> None:
        """Ring once, say ``text``, ring on until silenced or the time is up."""
        spoken = False
        try:
            while not self._silenced.is_set() and self._clock.monotonic() < self._ring_until:
                try:
                    await self.ring.play()
                    self.rings_played += 1
                except AriaError as exc:
                    _LOGGER.warning("No ring: %s", exc.message)
                    if not spoken:
                        await self._say(text)
                    return
                if not spoken and not self._silenced.is_set():
                    spoken = True
                    await self._say(text)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self._gap_s):
                        await self._silenced.wait()
        finally:
            self._ring_until = 0.0
            self._tell_ringing(False)
            with contextlib.suppress(Exception):
                await self.ring.aclose()

    def _tell_ringing(self, ringing: bool) -> None:
        if self._on_ringing is not None:
            try:
                self._on_ringing(ringing)
            except Exception:  # telling must never stop the ring (or its end)
                _LOGGER.exception("Telling the ring's state failed")

    async def _say(self, text: str) -> None:
        try:
            async with asyncio.timeout(_SPEAK_TIMEOUT_S):
                await self.speaker.say(text)
        except TimeoutError:
            _LOGGER.warning("Speaking an announcement took over %.0f s", _SPEAK_TIMEOUT_S)

    async def _notify(self, announcement: Announcement) -> None:
        try:
            async with asyncio.timeout(_NOTIFY_TIMEOUT_S):
                shown = await self.notifier.notify(
                    announcement.title, announcement.text, urgent=announcement.ring
                )
        except Exception:
            _LOGGER.exception("The desktop notification failed")
            return
        if not shown:
            _LOGGER.info("No desktop notification shown for %s", announcement.kind)


class StopRingingSkill:
    """Silences a ring on "stop": ``AriaStopRinging``, a command only while something rings."""

    name = "ringing"
    intents = frozenset({STOP_RINGING})

    def __init__(self, announcer: DesktopAnnouncer, phrases: Phrasebook) -> None:
        """Silence ``announcer``."""
        self._announcer = announcer
        self._phrases = phrases

    def urgent(self) -> bool:
        """While a ring sounds, "stop" is this skill's before any other reading (media)."""
        return self._announcer.ringing

    def accepts(self, match: IntentMatch) -> bool:
        """Only while a ring sounds: otherwise "stop" is someone else's (media, the model)."""
        return self._announcer.ringing

    async def handle(self, match: IntentMatch, turn: SkillTurn) -> SkillReply:
        """Silence the ring."""
        await self._announcer.silence()
        return SkillReply(
            text=self._phrases.say("ringing.stopped", match.language), skill=self.name
        )


class RingStopListener:
    """The voice pipeline's hands-free hook: "stop" heard while a ring sounds, no wake word.

    While :meth:`active`, the pipeline listens for short utterances without the wake word and
    hands each transcript to :meth:`heard`; only a sentence the stop templates state silences
    the ring, anything else (the ring itself, the room) is dropped, never a turn.
    """

    def __init__(self, announcer: DesktopAnnouncer, router: SkillRouter) -> None:
        """Silence ``announcer`` when ``router`` reads a transcript as ``AriaStopRinging``."""
        self._announcer = announcer
        self._router = router

    def active(self) -> bool:
        """Whether the pipeline should listen without the wake word now."""
        return self._announcer.ringing

    async def heard(self, text: str) -> bool:
        """Silence the ring if ``text`` says stop; whether it did."""
        found = self._router.match(text, "voice")
        if found is None or found.intent != STOP_RINGING:
            return False
        await self._router.run(found, SkillTurn(source="voice"))
        return True
