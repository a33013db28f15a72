"""Builds the everyday skills and hands them to the orchestrator.

ARCHITECTURE.md: everyday skills. The recogniser (hassil over Home Assistant's templates and
ARIA's), the reply sentences and each skill's store are made here; turns then ask the skills
first (``assist.prefer_local``). Templates compile in a worker thread at start, so the first
command waits for nothing.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aria_desktop.domain.lists import LIST_ALIASES

if TYPE_CHECKING:
    from aria_desktop.adapters.skills.hassil_recognizer import HassilRecognizer
    from aria_desktop.adapters.skills.list_store import SQLiteListStore
    from aria_desktop.adapters.skills.phrasebook import YamlPhrasebook
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.core.homeassistant.control import HomeAssistantControl
    from aria_desktop.core.memory.service import MemoryService
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.core.skills.announcing import DesktopAnnouncer
    from aria_desktop.core.skills.list_service import ListService
    from aria_desktop.core.skills.ports import ListAccess
    from aria_desktop.core.skills.reminders import ReminderService
    from aria_desktop.core.skills.router import Skill, SkillRouter
    from aria_desktop.core.skills.timers import TimerService
    from aria_desktop.settings.schema import Settings

__all__ = ["Skills", "install_skills", "skill_languages"]

_LOGGER = logging.getLogger(__name__)
_WARM_SENTENCE = "what time is it"


@dataclass(kw_only=True)
class Skills:
    """The everyday skills of a running ARIA, and the stores the surfaces read."""

    router: SkillRouter
    recognizer: HassilRecognizer
    phrases: YamlPhrasebook
    lists: SQLiteListStore
    list_access: ListService
    """The lists as every surface changes them (``LocalAssistant.lists``; events, names)."""
    list_names: set[str] = field(default_factory=set)
    timers: TimerService | None = None
    """The timers (``LocalAssistant.timers``: the API, the tray's countdown, the CLI)."""
    announcer: DesktopAnnouncer | None = None
    """Rings, speaks and notifies when a timer (or a reminder) is due."""
    reminders: ReminderService | None = None
    """Reminders and alarms (``LocalAssistant.reminders``: the API, the CLI, MCP)."""

    async def refresh_list_names(self) -> None:
        """Let the recogniser know the user's own lists ("add screws to my hardware list")."""
        names = await self.lists.names()
        self.list_names.clear()
        self.list_names.update(names)


def skill_languages(settings: Settings) -> tuple[str, ...]:
    """The languages sentences are tried in: the setting, else the STT language and English."""
    if settings.assist.languages:
        return tuple(settings.assist.languages)
    stt = (settings.voice.stt.language or "en").split("-")[0]
    return tuple(dict.fromkeys((stt, "en")))


def build_skill_list(
    settings: Settings,
    orchestrator: Orchestrator,
    phrases: YamlPhrasebook,
    lists: ListAccess,
    memory: MemoryService | None,
) -> list[Skill]:
    """Every everyday skill, each with its store and desktop parts."""
    from aria_desktop.compose.desktop_skills import build_desktop_skills
    from aria_desktop.core.clock import SystemClock
    from aria_desktop.core.skills.clock import ClockSkill
    from aria_desktop.core.skills.conversation import NevermindSkill
    from aria_desktop.core.skills.lists import ListSkill
    from aria_desktop.core.skills.memory import MemorySkill

    return [
        ClockSkill(SystemClock(), phrases),
        NevermindSkill(),
        MemorySkill(memory, phrases),
        ListSkill(lists, phrases),
        *build_desktop_skills(orchestrator, phrases),
    ]


async def install_skills(
    settings: Settings,
    orchestrator: Orchestrator,
    database: Database,
    memory: MemoryService | None,
    *,
    homeassistant: HomeAssistantControl | None = None,
) -> Skills:
    """Build the skills, let turns ask them first, and compile the templates in the background.

    ``homeassistant``: where the shopping list may live (``assist.shopping_list``).
    """
    from aria_desktop.adapters.skills.hassil_recognizer import HassilRecognizer
    from aria_desktop.adapters.skills.list_store import SQLiteListStore
    from aria_desktop.adapters.skills.phrasebook import YamlPhrasebook
    from aria_desktop.compose.lists import build_list_service, install_list_tool
    from aria_desktop.compose.reminders import build_reminder_skills, start_reminders
    from aria_desktop.compose.timers import build_timer_skills, start_timers
    from aria_desktop.core.skills.router import SkillRouter

    phrases = YamlPhrasebook()
    lists = SQLiteListStore(database)
    names: set[str] = set()
    recognizer = HassilRecognizer(list_names=lambda: [*LIST_ALIASES, *names])
    list_access = build_list_service(
        settings,
        orchestrator,
        lists,
        homeassistant,
        refresh_names=lambda: installed.refresh_list_names(),
    )
    install_list_tool(orchestrator, list_access)
    skills = build_skill_list(settings, orchestrator, phrases, list_access, memory)
    announcer, timers, timer_skills = build_timer_skills(settings, orchestrator, database, phrases)
    skills += timer_skills
    reminders, reminder_skills = build_reminder_skills(orchestrator, database, phrases, announcer)
    skills += reminder_skills
    languages = skill_languages(settings)
    fuzzy = frozenset({"voice"}) if settings.assist.fuzzy_voice else frozenset()
    router = SkillRouter(recognizer, skills, languages=languages, fuzzy_sources=fuzzy)
    router.prefer_local = settings.assist.prefer_local
    installed = Skills(
        router=router,
        recognizer=recognizer,
        phrases=phrases,
        lists=lists,
        list_access=list_access,
        list_names=names,
        timers=timers,
        announcer=announcer,
        reminders=reminders,
    )
    await installed.refresh_list_names()
    orchestrator.set_skills(router)
    await start_timers(orchestrator, timers)
    start_reminders(orchestrator, reminders)
    orchestrator.spawn(_warm(recognizer, languages), name="aria-skills-warm")
    return installed


async def _warm(recognizer: HassilRecognizer, languages: tuple[str, ...]) -> None:
    """Compile the templates and match one sentence per language (hassil's first is slow)."""

    def warm() -> None:
        for language in languages:
            recognizer.recognize(_WARM_SENTENCE, language)

    await asyncio.to_thread(warm)
    _LOGGER.debug("Everyday-skill templates ready for %s", ", ".join(languages))
