"""Doctor checks of the desktop session.

A graphical display, the tray app's libraries and icons, global hotkeys, a system tray host,
and the start-at-login entry.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping

from aria_desktop import paths
from aria_desktop.doctor.result import CheckResult, judged, ok, warn

__all__ = ["check_desktop_app", "check_display", "check_system_tray"]

_NO_TRAY_FIX = (
    "nothing to do: the chat window opens instead, and ARIA moves into a tray that appears "
    "later (add a tray/StatusNotifier applet to your panel to have the icon)"
)
_ICONS = ("aria.svg", "state-idle.svg", "state-error.svg", "state-offline.svg")


def check_display() -> CheckResult:
    """A graphical session exists (the tray app and computer use need one)."""
    display = os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY")
    if display or sys.platform in {"win32", "darwin"}:
        return ok("display", f"graphical session {display or ''}")
    return warn(
        "display",
        "no graphical session (DISPLAY/WAYLAND_DISPLAY unset)",
        "the tray app and computer use need a desktop session; chat, API and voice work",
    )


def check_desktop_app() -> list[CheckResult]:
    """The tray app's libraries, icons, global hotkeys, tray host and start-at-login entry."""
    missing = [
        name for name in ("PySide6", "qasync", "pynput") if importlib.util.find_spec(name) is None
    ]
    if missing:
        return [
            warn(
                "desktop app",
                f"not installed ({', '.join(missing)} missing)",
                "pip install 'aria-desktop[gui]' (bash packaging/setup.sh start does it)",
            )
        ]
    try:
        icons = paths.resource_path("icons")
        absent = [name for name in _ICONS if not (icons / name).is_file()]
    except FileNotFoundError:
        absent = ["icons/"]
    from aria_desktop.compose.desktop_services import autostart_path

    entry = autostart_path()
    return [
        judged(
            "desktop app",
            not absent,
            f"icons missing: {', '.join(absent)}" if absent else "PySide6, qasync, pynput",
            "reinstall ARIA: bash packaging/setup.sh start",
            bad="FAIL",
        ),
        check_hotkeys(os.environ),
        check_system_tray(),
        CheckResult(
            name="start at login",
            status="OK",
            detail=f"on ({entry})" if entry.exists() else "off",
            fix="" if entry.exists() else "turn it on in Settings > General",
        ),
    ]


_SWAY_BINDINGS = (
    "bind the keys in sway's config, e.g. `bindsym --no-repeat Ctrl+Mod1+d exec aria dictate "
    "press` and `bindsym --release Ctrl+Mod1+d exec aria dictate release`; the tray menu has "
    "the rest"
)


def check_hotkeys(env: Mapping[str, str]) -> CheckResult:
    """Whether ARIA hears its global hotkeys in this session, and what to do where it cannot.

    They are read through X RECORD: on a Wayland desktop that reaches only the keys typed into
    X11 (XWayland) windows, so a session with ``WAYLAND_DISPLAY`` gets a warning too.
    """
    from aria_desktop.gui.hotkeys import session_problem

    sway = bool(env.get("SWAYSOCK"))
    fix = _SWAY_BINDINGS if sway else "use the tray menu (or the chat window's ARIA menu) instead"
    problem = session_problem(env)
    if problem:
        return warn("global hotkeys", problem, fix)
    if env.get("WAYLAND_DISPLAY"):
        return warn(
            "global hotkeys",
            "a Wayland session: ARIA hears its hotkeys only while an X11 (XWayland) window has "
            "the focus",
            fix,
        )
    return ok("global hotkeys", f"X11 display {env.get('DISPLAY')}, through X RECORD")


def check_system_tray(display: str | None = None) -> CheckResult:
    """Whether a system tray host exists for the tray icon (else the chat window opens).

    Qt shows the icon through a StatusNotifier host on D-Bus when one is registered, or else
    through the freedesktop XEmbed tray: the owner of the ``_NET_SYSTEM_TRAY_S<screen>`` X
    selection.
    """
    if _has_status_notifier_host():
        return ok("system tray", "StatusNotifier host (D-Bus)")
    display = display or os.environ.get("DISPLAY")
    if not display:
        return warn("system tray", "no X11 display", _NO_TRAY_FIX)
    if importlib.util.find_spec("Xlib") is None:
        return warn(
            "system tray",
            "not checked: python-xlib is not installed",
            "pip install 'aria-desktop[computer]'",
        )
    try:
        from Xlib import display as xdisplay

        connection = xdisplay.Display(display)
        try:
            screen = connection.get_default_screen()
            selection = connection.intern_atom(f"_NET_SYSTEM_TRAY_S{screen}")
            owner = getattr(connection.get_selection_owner(selection), "id", 0)
        finally:
            connection.close()
    except Exception as exc:
        return warn(
            "system tray",
            f"cannot connect to the X display {display}: {exc}",
            "check DISPLAY and XAUTHORITY (xhost/xauth)",
        )
    if owner:
        return ok("system tray", f"XEmbed tray host on display {display}")
    return warn("system tray", f"no system tray on display {display}", _NO_TRAY_FIX)


def _has_status_notifier_host() -> bool:
    """A StatusNotifierWatcher owns its name on the session bus (``dbus-send``, bounded)."""
    tool = shutil.which("dbus-send")
    if tool is None or not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return False
    try:
        result = subprocess.run(
            [
                tool, "--session", "--print-reply", "--reply-timeout=2000",
                "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus.NameHasOwner", "string:org.kde.StatusNotifierWatcher",
            ],
            capture_output=True,
            text=True,
            timeout=5,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return "boolean true" in result.stdout
