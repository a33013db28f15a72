"""A short conversation with the desktop's session bus (D-Bus), for the desktop skills.

Media players (MPRIS) and desktop notifications are reached over the session bus with jeepney
(pure Python, asyncio). Each use opens its own connection and closes it: a command a minute
needs no long-lived connection that could go stale when the desktop session restarts. Every
failure — no session bus (a headless machine, a service's environment), a service that is not
there, a call that does not answer in time — is one exception, :class:`BusUnavailable`, that
the adapters turn into a plain "not here" answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator
from typing import Any

from jeepney import DBusAddress, MessageType, Properties, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io.asyncio import DBusRouter, RouterClosed, open_dbus_router
from jeepney.low_level import HeaderFields

__all__ = ["BusUnavailable", "SessionBus", "session_bus", "unwrap_variant"]

_LOGGER = logging.getLogger(__name__)
CALL_TIMEOUT_S = 2.0
"""How long one call may take: a desktop service answers in milliseconds or is stuck."""


class BusUnavailable(Exception):
    """The session bus, or the service asked, cannot be reached now."""


def unwrap_variant(value: Any) -> Any:
    """A D-Bus variant as jeepney gives it (``(signature, value)``) as its plain value."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        return value[1]
    return value


class SessionBus:
    """One open connection: method calls with a timeout, errors as :class:`BusUnavailable`."""

    def __init__(self, router: DBusRouter, timeout_s: float) -> None:
        self._router = router
        self._timeout_s = timeout_s

    async def call(
        self,
        bus_name: str,
        path: str,
        interface: str,
        method: str,
        signature: str | None = None,
        body: tuple[Any, ...] = (),
    ) -> tuple[Any, ...]:
        """Call ``interface.method`` of ``bus_name`` at ``path``; the reply's body."""
        address = DBusAddress(path, bus_name=bus_name, interface=interface)
        return await self._send(new_method_call(address, method, signature, body))

    async def names(self) -> list[str]:
        """Every name owned on the bus now."""
        body = await self._send(message_bus.ListNames())
        return [str(name) for name in body[0]]

    async def properties(self, bus_name: str, path: str, interface: str) -> dict[str, Any]:
        """Every property of ``interface`` (``org.freedesktop.DBus.Properties.GetAll``)."""
        address = DBusAddress(path, bus_name=bus_name, interface=interface)
        body = await self._send(Properties(address).get_all())
        return {str(key): unwrap_variant(value) for key, value in body[0].items()}

    async def property(self, bus_name: str, path: str, interface: str, name: str) -> Any:
        """One property (``org.freedesktop.DBus.Properties.Get``)."""
        address = DBusAddress(path, bus_name=bus_name, interface=interface)
        body = await self._send(Properties(address).get(name))
        return unwrap_variant(body[0])

    async def _send(self, message: Any) -> tuple[Any, ...]:
        try:
            async with asyncio.timeout(self._timeout_s):
                reply = await self._router.send_and_get_reply(message)
        except (TimeoutError, OSError, EOFError, RouterClosed) as exc:
            raise BusUnavailable(f"no answer on the session bus: {exc!r}") from exc
        if reply.header.message_type == MessageType.error:
            raise BusUnavailable(
                f"{reply.header.fields.get(HeaderFields.error_name, 'error')}: {reply.body}"
            )
        return tuple(reply.body)


@contextlib.asynccontextmanager
async def session_bus(timeout_s: float = CALL_TIMEOUT_S) -> AsyncIterator[SessionBus]:
    """A connection to the session bus ``$DBUS_SESSION_BUS_ADDRESS`` names.

    Raises:
        BusUnavailable: there is no session bus, or it did not let us in within ``timeout_s``.
    """
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        raise BusUnavailable("no session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
    opened = open_dbus_router(bus="SESSION")
    try:
        async with asyncio.timeout(timeout_s):
            router = await opened.__aenter__()
    except (TimeoutError, OSError, EOFError, ValueError, KeyError) as exc:
        raise BusUnavailable(f"cannot connect to the session bus: {exc!r}") from exc
    try:
        yield SessionBus(router, timeout_s)
    finally:
        with contextlib.suppress(Exception):
            await opened.__aexit__(None, None, None)
