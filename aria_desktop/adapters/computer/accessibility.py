"""Is the focused field a password field? Asked of the desktop's accessibility bus (AT-SPI).

Before typing, the policy wants to know whether the keys would land in a password field
(``core/computer/policy.py``: accessibility's answer wins over reading labels on screen).
AT-SPI knows: the focused element of the focused window's application has the role
"password text". This module asks over D-Bus (jeepney, no GObject): the session bus names
the accessibility bus, its registry lists the applications, the one whose process owns the
focused window is walked for its focused element. The same works on X11 and on Wayland.

The answer is None — "cannot tell", and the policy falls back to what the screen shows —
when there is no session bus or accessibility bus, when the application does not publish
its widgets (Qt does only with accessibility switched on), or when the walk would take too
long. It never raises.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["ROLE_PASSWORD_TEXT", "STATE_FOCUSED", "AccessibilityProbe"]

_LOGGER = logging.getLogger(__name__)

ROLE_PASSWORD_TEXT = 40
"""AT-SPI's role of a password entry (``AtspiRole``)."""
STATE_FOCUSED = 12
"""The state bit of the element that has the keyboard focus (``AtspiStateType``)."""
_STATE_SHOWING = 25
_ACCESSIBLE = "org.a11y.atspi.Accessible"
_ROOT = "/org/a11y/atspi/accessible/root"
_REGISTRY = "org.a11y.atspi.Registry"
_NULL_PATH = "/org/a11y/atspi/null"
_CALL_TIMEOUT_S = 0.25
_WALK_BUDGET_S = 0.4
_MAX_NODES = 3000


def _has(states: tuple[int, ...] | list[int], bit: int) -> bool:
    word, offset = divmod(bit, 32)
    return len(states) > word and bool(int(states[word]) >> offset & 1)


class AccessibilityProbe:
    """Answers "is the focused element of process ``pid`` a password field?" (or None).

    The connections are opened on first use and kept; a failed call closes them, and the
    next question opens them again (the accessibility bus can be restarted).
    """

    def __init__(self) -> None:
        self._session: Any = None
        self._a11y: Any = None

    def focused_password(self, pid: int | None) -> bool | None:
        """True/False for the focused element of ``pid``'s application; None if unknown."""
        if pid is None:
            return None
        try:
            return self._ask(pid)
        except Exception as exc:  # jeepney and socket errors of every kind: "cannot tell"
            _LOGGER.debug("Accessibility could not be asked: %s", exc)
            self.close()
            return None

    def reachable(self) -> bool:
        """Whether the accessibility bus answers (its registry lists the applications)."""
        try:
            self._call(_REGISTRY, _ROOT, "GetChildren")
        except Exception as exc:  # no session bus, no accessibility bus: the same answer
            _LOGGER.debug("The accessibility bus does not answer: %s", exc)
            self.close()
            return False
        return True

    def close(self) -> None:
        """Close the bus connections (opened again when next asked)."""
        for conn in (self._a11y, self._session):
            if conn is not None:
                with contextlib.suppress(Exception):
                    conn.close()
        self._a11y = self._session = None

    # --- the bus --------------------------------------------------------------------------------

    def _connect(self) -> Any:
        if self._a11y is not None:
            return self._a11y
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection

        self._session = open_dbus_connection(bus="SESSION")
        launcher = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus")
        reply = self._session.send_and_get_reply(
            new_method_call(launcher, "GetAddress"), timeout=_CALL_TIMEOUT_S
        )
        self._a11y = open_dbus_connection(bus=str(_body(reply)[0]))
        return self._a11y

    def _call(self, name: str, path: str, method: str, interface: str = _ACCESSIBLE) -> Any:
        from jeepney import DBusAddress, new_method_call

        address = DBusAddress(path, bus_name=name, interface=interface)
        reply = self._connect().send_and_get_reply(
            new_method_call(address, method), timeout=_CALL_TIMEOUT_S
        )
        return _body(reply)

    def _pid_of(self, name: str) -> int | None:
        from jeepney import DBusAddress, new_method_call

        name_owner = "org.freedesktop.DBus"
        bus = DBusAddress("/org/freedesktop/DBus", bus_name=name_owner, interface=name_owner)
        reply = self._connect().send_and_get_reply(
            new_method_call(bus, "GetConnectionUnixProcessID", "s", (name,)),
            timeout=_CALL_TIMEOUT_S,
        )
        return int(_body(reply)[0])

    # --- the question ---------------------------------------------------------------------------

    def _ask(self, pid: int) -> bool | None:
        apps = self._call(_REGISTRY, _ROOT, "GetChildren")[0]
        for name, path in apps:
            with contextlib.suppress(Exception):  # an application that went away meanwhile
                if self._pid_of(str(name)) != pid:
                    continue
                return self._focused_role(str(name), str(path))
        return None

    def _focused_role(self, name: str, path: str) -> bool | None:
        """Walk one application's showing elements for the focused one; its role decides."""
        deadline = time.monotonic() + _WALK_BUDGET_S
        for node, states in self._walk(name, path, deadline):
            if _has(states, STATE_FOCUSED):
                role = int(self._call(name, node, "GetRole")[0])
                return role == ROLE_PASSWORD_TEXT
        return None

    def _walk(self, name: str, root: str, deadline: float) -> Iterator[tuple[str, list[int]]]:
        stack, seen = [root], 0
        while stack and seen < _MAX_NODES and time.monotonic() < deadline:
            node = stack.pop()
            seen += 1
            states = list(self._call(name, node, "GetState")[0])
            if node != root and not _has(states, _STATE_SHOWING):
                continue  # hidden: neither it nor its children have the focus on screen
            yield node, states
            children = self._call(name, node, "GetChildren")[0]
            stack.extend(
                str(p) for n, p in reversed(children) if str(n) == name and str(p) != _NULL_PATH
            )


def _body(reply: Any) -> Any:
    """The reply's body, or the D-Bus error it carries raised."""
    from jeepney import MessageType
    from jeepney.wrappers import DBusErrorResponse

    if reply.header.message_type == MessageType.error:
        raise DBusErrorResponse(reply)
    return reply.body
