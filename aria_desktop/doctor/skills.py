"""Doctor checks of the desktop skills: whether "open …", media, volume and notifications work.

Each is a plain line: the sound server the volume commands use, the media players on the session
bus, the notification service timers and reminders show in, and how many installed apps can be
opened by name. None of them is a failure — ARIA answers without them, saying what is missing —
so a missing part is a warning with what to do about it.
"""

from __future__ import annotations

import asyncio

from aria_desktop.doctor.result import CheckResult, ok, warn

__all__ = ["check_desktop_skills"]


async def check_desktop_skills() -> list[CheckResult]:
    """The sound server, media players, notification service and installed apps."""
    sound, players, notifier, apps = await asyncio.gather(
        _sound(), _players(), _notifications(), asyncio.to_thread(_apps)
    )
    return [sound, players, notifier, apps]


async def _sound() -> CheckResult:
    from aria_desktop.adapters.skills.volume import sound_server

    server = await sound_server()
    if server is None:
        return warn(
            "volume control",
            "no sound server answers (PipeWire or PulseAudio): volume commands say so",
            "start your desktop's sound server; on a minimal system install pipewire-pulse "
            "(or pulseaudio) and pulseaudio-utils",
        )
    return ok("volume control", f"{server}: set, up, down and mute work")


def _no_bus() -> str:
    import os

    return "" if os.environ.get("DBUS_SESSION_BUS_ADDRESS") else "no session bus"


async def _players() -> CheckResult:
    from aria_desktop.adapters.skills.mpris import MprisPlayers

    if _no_bus():
        return warn(
            "media control",
            "no session bus: media players cannot be reached",
            "run ARIA inside your desktop session (the tray app does)",
        )
    found = await MprisPlayers().players()
    if not found:
        return ok("media control", "works; no media player is running now")
    names = ", ".join(f"{p.identity} ({p.status.lower()})" for p in found)
    return ok("media control", f"{len(found)} player(s): {names}")


async def _notifications() -> CheckResult:
    from aria_desktop.adapters.skills.notifications import notification_server

    server = None if _no_bus() else await notification_server()
    if server is None:
        return warn(
            "notifications",
            "no desktop notification service: timers and reminders are only spoken and rung",
            "a desktop (GNOME, KDE, XFCE) has one; with a bare window manager install dunst",
        )
    return ok("notifications", f"{server}: timers and reminders show there")


def _apps() -> CheckResult:
    from aria_desktop.adapters.skills.applications import XdgAppCatalog, application_dirs

    count = len(XdgAppCatalog().apps())
    if count == 0:
        folders = ", ".join(str(folder) for folder in application_dirs())
        return warn("open apps", f"no installed apps found in {folders}", "")
    apps = "1 installed app" if count == 1 else f"{count} installed apps"
    return ok("open apps", f"{apps} can be opened by name")
