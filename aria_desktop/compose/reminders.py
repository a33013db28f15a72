"""Builds the reminders and alarms: the service, its scheduler, the skill and the model's tool.

ARCHITECTURE.md: everyday skills. The owner (daemon, tray app, and ``aria chat`` while it owns
the database) runs one scheduler task under the orchestrator, which delivers each reminder when
it comes due — and, at the start, those that came due while ARIA was not running, marked late.
They reach the user through the timers' desktop announcer (speech, notification, the ring for
an alarm). A CLI command without an owner opens the database itself
(``open_reminder_access``): the reminder is stored and told once ARIA runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aria_desktop.adapters.skills.phrasebook import YamlPhrasebook
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.core.skills.announce import Announcer
    from aria_desktop.core.skills.reminders import ReminderService
    from aria_desktop.core.skills.router import Skill
    from aria_desktop.settings import Settings

__all__ = ["build_reminder_skills", "open_reminder_access", "start_reminders"]


def build_reminder_skills(
    orchestrator: Orchestrator,
    database: Database,
    phrases: YamlPhrasebook,
    announcer: Announcer | None,
) -> tuple[ReminderService, list[Skill]]:
    """The reminders (with their model tool) and the skill that answers them."""
    from aria_desktop.adapters.skills.reminder_store import SQLiteReminderStore
    from aria_desktop.core.clock import SystemClock
    from aria_desktop.core.skills.reminder_skill import ReminderSkill
    from aria_desktop.core.skills.reminder_tool import reminder_tool
    from aria_desktop.core.skills.reminders import ReminderService

    reminders = ReminderService(
        SQLiteReminderStore(database),
        clock=SystemClock(),
        publish=orchestrator.bus.publish,
        phrases=phrases,
        announcer=announcer,
    )
    orchestrator.tools.register(reminder_tool(reminders))
    return reminders, [ReminderSkill(reminders, phrases)]


def start_reminders(orchestrator: Orchestrator, reminders: ReminderService) -> None:
    """Run the scheduler: overdue reminders are delivered (late) first, then each when due."""
    orchestrator.spawn(reminders.run(), name="aria-reminders")


@contextlib.asynccontextmanager
async def open_reminder_access(settings: Settings) -> AsyncIterator[ReminderService]:
    """The reminders with this process owning the database (no owner runs; closed on exit).

    No scheduler runs here: a reminder set this way is told when ARIA next runs (late, if its
    time has passed by then).
    """
    from aria_desktop.adapters.skills.phrasebook import YamlPhrasebook
    from aria_desktop.adapters.skills.reminder_store import SQLiteReminderStore
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.compose.app import database_path
    from aria_desktop.core.bus import EventBus
    from aria_desktop.core.clock import SystemClock
    from aria_desktop.core.skills.reminders import ReminderService

    database = await Database.open(database_path(settings))
    try:
        yield ReminderService(
            SQLiteReminderStore(database),
            clock=SystemClock(),
            publish=EventBus().publish,
            phrases=YamlPhrasebook(),
        )
    finally:
        await database.close()
