"""Desktop notifications over ``org.freedesktop.Notifications`` (GNOME, KDE, XFCE, dunst…).

The notifier port (``core/skills/announce.py``): a timer that ends or a reminder that comes due
shows as the desktop's own notification. Where there is none — no session bus, no notification
service on it (a headless machine, a bare window manager) — :meth:`DesktopNotifier.notify`
returns False and the announcer still speaks and rings; it never raises.
"""

from __future__ import annotations

import logging

from aria_desktop.adapters.skills.dbus_session import BusUnavailable, session_bus

__all__ = ["NOTIFICATIONS", "DesktopNotifier", "notification_server"]

_LOGGER = logging.getLogger(__name__)

NOTIFICATIONS = "org.freedesktop.Notifications"
_PATH = "/org/freedesktop/Notifications"
_URGENCY_NORMAL, _URGENCY_CRITICAL = 1, 2
_EXPIRE_DEFAULT = -1
"""The server's own timeout for a normal notification; a critical one stays until dismissed."""


class DesktopNotifier:
    """Shows notifications through the desktop's notification service."""

    def __init__(self, app_name: str = "ARIA", icon: str = "") -> None:
        """Notifications say they come from ``app_name``, with ``icon`` (a name or a path)."""
        self._app_name = app_name
        self._icon = icon

    async def notify(self, title: str, body: str, *, urgent: bool = False) -> bool:
        """Show ``title`` and ``body``; False when this desktop has no notification service."""
        hints: dict[str, tuple[str, object]] = {
            "urgency": ("y", _URGENCY_CRITICAL if urgent else _URGENCY_NORMAL),
            "desktop-entry": ("s", "aria"),
        }
        try:
            async with session_bus() as bus:
                reply = await bus.call(
                    NOTIFICATIONS,
                    _PATH,
                    NOTIFICATIONS,
                    "Notify",
                    "susssasa{sv}i",
                    (self._app_name, 0, self._icon, title, body, [], hints, _EXPIRE_DEFAULT),
                )
        except BusUnavailable as exc:
            _LOGGER.info("No desktop notification shown (%s): %s", title, exc)
            return False
        except Exception:  # a notifier must never take the announcement down with it
            _LOGGER.exception("Desktop notification failed")
            return False
        _LOGGER.debug("Notification %s shown: %s", reply[:1], title)
        return True


async def notification_server() -> str | None:
    """The notification service's name and version ("dunst 1.9.0"), None when there is none."""
    try:
        async with session_bus() as bus:
            name, vendor, version, _spec = await bus.call(
                NOTIFICATIONS, _PATH, NOTIFICATIONS, "GetServerInformation"
            )
    except (BusUnavailable, ValueError) as exc:
        _LOGGER.debug("No notification service: %s", exc)
        return None
    return f"{name} {version}".strip() or str(vendor)
