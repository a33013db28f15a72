"""Builds the timers and the desktop announcer that rings, speaks and notifies when one ends.

ARCHITECTURE.md: everyday skills. The owner (daemon, tray app, and ``aria chat`` while it owns
the database) runs one scheduler task under the orchestrator; the announcer rings the shipped
chime on the voice's output device (``voice.output_device``), speaks through the voice
pipeline's ``Speak`` (nothing when voice is off), and shows a desktop notification. A CLI
command without an owner opens the database itself (``open_timer_access``): the timer is
stored and rings once ARIA runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from aria_desktop import paths

if TYPE_CHECKING:
    from aria_desktop.adapters.skills.phrasebook import YamlPhrasebook
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.compose.app import App
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.core.ports import AudioSink
    from aria_desktop.core.skills.announce import Announcement, Notifier
    from aria_desktop.core.skills.announcing import DesktopAnnouncer
    from aria_desktop.core.skills.router import Skill
    from aria_desktop.core.skills.timers import TimerService
    from aria_desktop.core.voice.pipeline import VoicePipeline
    from aria_desktop.settings import Settings

__all__ = [
    "build_announcer",
    "build_notifier",
    "build_timer_skills",
    "build_timers",
    "hear_stop_hands_free",
    "install_timer_tool",
    "open_timer_access",
    "start_timers",
]


CHIME = "skills/sounds/chime.wav"
"""The ring (``resources/``; made by ``packaging/make_chime.py``)."""


def build_notifier() -> Notifier:
    """The desktop's notifications (``org.freedesktop.Notifications``; False where none)."""
    from aria_desktop.compose.desktop_skills import build_notifier as desktop_notifier

    return desktop_notifier()


def build_announcer(
    settings: Settings, orchestrator: Orchestrator, *, notifier: Notifier | None = None
) -> DesktopAnnouncer:
    """The announcer: the chime on the speaker, speech by voice, a notification.

    The speaker opens only when a ring starts (PortAudio loads then, not at start-up); the
    kill switch silences the ring.
    """
    from aria_desktop.adapters.skills.sounds import load_chime
    from aria_desktop.core.clock import SystemClock
    from aria_desktop.core.skills.announcing import CommandSpeaker, DesktopAnnouncer
    from aria_desktop.core.skills.ring import SinkRingPlayer
    from aria_desktop.domain.commands import StopRinging
    from aria_desktop.domain.skill_events import RingingChanged

    device = settings.voice.output_device

    def open_speaker() -> AudioSink:
        from aria_desktop.adapters.voice.devices import SpeakerSink

        return SpeakerSink(device)

    announcer = DesktopAnnouncer(
        ring=SinkRingPlayer(open_speaker, load_chime(paths.resource_path(CHIME))),
        speaker=CommandSpeaker(orchestrator.handle),
        notifier=notifier or build_notifier(),
        clock=SystemClock(),
        spawn=orchestrator.spawn,
        on_ringing=lambda ringing: orchestrator.bus.publish(RingingChanged(ringing=ringing)),
    )

    async def silence() -> None:
        await announcer.silence()

    async def stop_ringing(_command: StopRinging) -> bool:
        return await announcer.silence()

    orchestrator.add_stop_hook(silence)
    orchestrator.register_command(StopRinging, stop_ringing)
    return announcer


def build_timers(
    orchestrator: Orchestrator,
    database: Database,
    phrases: YamlPhrasebook,
    announcer: DesktopAnnouncer,
) -> TimerService:
    """The timer service over the database, telling its changes on the orchestrator's bus."""
    from aria_desktop.adapters.skills.timer_store import SQLiteTimerStore
    from aria_desktop.core.clock import SystemClock
    from aria_desktop.core.skills.timers import TimerService

    return TimerService(
        SQLiteTimerStore(database),
        clock=SystemClock(),
        publish=orchestrator.bus.publish,
        announcer=announcer,
        phrases=phrases,
    )


async def start_timers(orchestrator: Orchestrator, timers: TimerService) -> None:
    """Load the stored timers and run the scheduler (missed ones are announced first)."""
    await timers.load()
    orchestrator.spawn(timers.run(), name="aria-timers")


def install_timer_tool(orchestrator: Orchestrator, timers: TimerService) -> None:
    """The model's ``timer`` tool, under the registry's policy and audit like every tool."""
    from aria_desktop.core.skills.timer_tool import timer_tool

    orchestrator.tools.register(timer_tool(timers))


@contextlib.asynccontextmanager
async def open_timer_access(settings: Settings) -> AsyncIterator[TimerService]:
    """The timers with this process owning the database (no owner runs; closed on exit).

    No scheduler runs here: a timer started this way rings when ARIA next runs (or is
    announced as missed if it ended before).
    """
    from aria_desktop.adapters.skills.phrasebook import YamlPhrasebook
    from aria_desktop.adapters.skills.timer_store import SQLiteTimerStore
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.compose.app import database_path
    from aria_desktop.core.bus import EventBus
    from aria_desktop.core.clock import SystemClock
    from aria_desktop.core.skills.timers import TimerService

    database = await Database.open(database_path(settings))
    try:
        service = TimerService(
            SQLiteTimerStore(database),
            clock=SystemClock(),
            publish=EventBus().publish,
            announcer=_Quiet(),
            phrases=YamlPhrasebook(),
        )
        await service.load()
        yield service
    finally:
        await database.close()


class _Quiet:
    """The announcer of a process that never announces (a CLI command without an owner)."""

    ringing = False

    async def announce(self, announcement: Announcement) -> None:
        """Nothing: the owner announces."""

    async def silence(self) -> bool:
        """Nothing rings here."""
        return False


def build_timer_skills(
    settings: Settings, orchestrator: Orchestrator, database: Database, phrases: YamlPhrasebook
) -> tuple[DesktopAnnouncer, TimerService, list[Skill]]:
    """The announcer, the timers (with their model tool) and the skills that answer them."""
    from aria_desktop.core.skills.announcing import StopRingingSkill
    from aria_desktop.core.skills.timer_skill import TimerSkill

    announcer = build_announcer(settings, orchestrator)
    timers = build_timers(orchestrator, database, phrases, announcer)
    install_timer_tool(orchestrator, timers)
    skills: list[Skill] = [
        TimerSkill(timers, phrases, announcer),
        StopRingingSkill(announcer, phrases),
    ]
    return announcer, timers, skills


def hear_stop_hands_free(app: App, pipeline: VoicePipeline) -> None:
    """While a timer rings, the voice pipeline hears "stop" without the wake word."""
    from aria_desktop.core.skills.announcing import RingStopListener

    skills = app.skills
    if skills is not None and skills.announcer is not None:
        pipeline.hands_free = RingStopListener(skills.announcer, skills.router)
