"""Builds the desktop skills — open an app, media control, volume — and their model tools.

ARCHITECTURE.md: everyday skills. The apps come from the XDG entries, the media players from
MPRIS on the session bus, the volume from ``pactl``; nothing is contacted here, so a headless
machine builds them too and each says plainly what this desktop lacks when asked. The same
parts become the ``open_app``, ``media`` and ``volume`` tools, under the tool policy and the
audit log. The desktop notifier (used by the announcer for timers and reminders) is built here
as well.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from aria_desktop import paths

if TYPE_CHECKING:
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.core.skills.announce import Notifier
    from aria_desktop.core.skills.ports import Phrasebook
    from aria_desktop.core.skills.router import Skill

__all__ = ["build_desktop_skills", "build_notifier"]

_LOGGER = logging.getLogger(__name__)


def build_desktop_skills(orchestrator: Orchestrator, phrases: Phrasebook) -> list[Skill]:
    """The app, media and volume skills; their tools go into the orchestrator's registry."""
    from aria_desktop.adapters.skills.applications import XdgAppCatalog, XdgAppLauncher
    from aria_desktop.adapters.skills.mpris import MprisPlayers
    from aria_desktop.adapters.skills.volume import PactlVolume
    from aria_desktop.core.skills.apps import AppSkill
    from aria_desktop.core.skills.desktop_tools import media_tool, open_app_tool, volume_tool
    from aria_desktop.core.skills.media import MediaSkill
    from aria_desktop.core.skills.volume import VolumeSkill

    catalog, launcher = XdgAppCatalog(), XdgAppLauncher()
    players, volume = MprisPlayers(), PactlVolume()
    for tool in (
        open_app_tool(catalog, launcher, phrases),
        media_tool(players, phrases),
        volume_tool(volume, phrases),
    ):
        if tool.name not in orchestrator.tools.names():
            orchestrator.tools.register(tool)
    # The first "open …" reads every entry; do it now, off the loop, so no command waits.
    orchestrator.spawn(asyncio.to_thread(catalog.apps), name="aria-apps-scan")
    return [
        AppSkill(catalog, launcher, phrases),
        MediaSkill(players, phrases),
        VolumeSkill(volume, phrases),
    ]


def build_notifier() -> Notifier:
    """Desktop notifications (``org.freedesktop.Notifications``), from "ARIA" with its icon."""
    from aria_desktop.adapters.skills.notifications import DesktopNotifier

    try:
        icon = str(paths.resource_path("icons/aria.svg"))
    except FileNotFoundError:
        icon = ""
    return DesktopNotifier(app_name="ARIA", icon=icon)
