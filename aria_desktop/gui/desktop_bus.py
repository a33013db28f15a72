"""Asks the desktop's session bus whether something shows notifications (Qt's own D-Bus).

When a timer ends or a reminder comes due, ARIA's announcer shows the desktop's notification
itself (``org.freedesktop.Notifications``). The tray only stands in where the desktop has no
notification service — its bubble would otherwise be a second notification of the same thing.
The question is asked on a connection of its own, to the bus ``DBUS_SESSION_BUS_ADDRESS``
names now, without blocking the loop.
"""

from __future__ import annotations

import asyncio
import itertools
import os

from PySide6.QtDBus import QDBusConnection, QDBusMessage, QDBusPendingCallWatcher

__all__ = ["NOTIFICATIONS", "notification_service_present"]

NOTIFICATIONS = "org.freedesktop.Notifications"
_TIMEOUT_MS = 2000
_names = itertools.count()


async def notification_service_present() -> bool:
    """Whether a notification service owns its name on the session bus (False: no bus)."""
    address = os.environ.get("DBUS_SESSION_BUS_ADDRESS", "")
    if not address:
        return False
    name = f"aria-notification-probe-{next(_names)}"
    connection = QDBusConnection.connectToBus(address, name)
    try:
        if not connection.isConnected():
            return False
        message = QDBusMessage.createMethodCall(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner"
        )
        message.setArguments([NOTIFICATIONS])
        answered: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        watcher = QDBusPendingCallWatcher(connection.asyncCall(message, _TIMEOUT_MS))

        def finished(done: QDBusPendingCallWatcher) -> None:
            arguments = [] if done.isError() else done.reply().arguments()
            if not answered.done():
                answered.set_result(bool(arguments and arguments[0]))

        watcher.finished.connect(finished)
        try:
            return await asyncio.wait_for(answered, timeout=_TIMEOUT_MS / 1000 + 1)
        except TimeoutError:
            return False
        finally:
            watcher.deleteLater()
    finally:
        QDBusConnection.disconnectFromBus(name)
