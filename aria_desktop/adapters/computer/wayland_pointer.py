"""A virtual pointer on wlroots desktops (sway, Hyprland, river…), spoken on the Wayland wire.

wlroots compositors let a client create a pointer device with ``zwlr_virtual_pointer_v1``:
absolute motion in the layout's logical pixels, buttons, scroll. The protocol is four small
requests, so this module speaks it directly on the compositor's socket (no libwayland, no
generated bindings): a message is the object id, the size and opcode, then the arguments,
each padded to 4 bytes (the Wayland wire format). Every request ends with a ``wl_display.sync``
round trip, so an action has reached the compositor when a call returns, and a protocol error
comes back as ``InputUnavailableError`` with the compositor's words.
"""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
from pathlib import Path

from aria_desktop.domain.errors import InputUnavailableError

__all__ = ["BUTTON_CODES", "VirtualPointer", "wayland_socket"]

BUTTON_CODES = {"left": 0x110, "right": 0x111, "middle": 0x112}
"""Linux input event codes (BTN_LEFT, BTN_RIGHT, BTN_MIDDLE)."""

_DISPLAY, _REGISTRY = 1, 2
_MANAGER = "zwlr_virtual_pointer_manager_v1"
_HINT = (
    "ARIA moves the pointer on wlroots desktops (sway, Hyprland) through their virtual pointer; "
    "on GNOME or KDE it needs the desktop's remote-control permission instead."
)
_SEAT_POINTER = 1
_CLIENTS_CATCH_UP_S = 0.15
"""How long clients get to pick up a pointer that just appeared (once per session)."""
_SCROLL_STEP = 15.0
"""Logical scroll distance of one wheel click (wlroots' own)."""


def wayland_socket() -> Path:
    """The compositor's socket: ``WAYLAND_DISPLAY`` (a name in ``XDG_RUNTIME_DIR``, or a path)."""
    name = os.environ.get("WAYLAND_DISPLAY", "wayland-0")
    if name.startswith("/"):
        return Path(name)
    return Path(os.environ.get("XDG_RUNTIME_DIR", f"/run/user/{os.getuid()}")) / name


def _string(text: str) -> bytes:
    data = text.encode() + b"\0"
    return struct.pack("=I", len(data)) + data + b"\0" * (-len(data) % 4)


def _fixed(value: float) -> int:
    return round(value * 256)


class VirtualPointer:
    """One virtual pointer device for the session (created on first use, thread-safe)."""

    def __init__(self, *, timeout_s: float = 2.0) -> None:
        self._timeout_s = timeout_s
        self._sock: socket.socket | None = None
        self._buffer = b""
        self._next_id = _REGISTRY + 1
        self._pointer = 0
        self._lock = threading.Lock()

    # --- the wire -------------------------------------------------------------------------

    def _new_id(self) -> int:
        new, self._next_id = self._next_id, self._next_id + 1
        return new

    def _send(self, obj: int, opcode: int, args: bytes = b"") -> None:
        assert self._sock is not None
        header = struct.pack("=II", obj, ((8 + len(args)) << 16) | opcode)
        try:
            self._sock.sendall(header + args)
        except OSError as exc:
            self.close()
            raise InputUnavailableError(
                f"The Wayland compositor closed the connection ({exc}).", hint=_HINT
            ) from None

    def _events(self) -> list[tuple[int, int, bytes]]:
        """The events that arrived (blocking for the first up to the timeout)."""
        assert self._sock is not None
        try:
            chunk = self._sock.recv(65536)
        except TimeoutError:
            raise InputUnavailableError(
                f"The Wayland compositor did not answer within {self._timeout_s:g} s.", hint=_HINT
            ) from None
        if not chunk:
            self.close()
            raise InputUnavailableError("The Wayland compositor closed the connection.", hint=_HINT)
        self._buffer += chunk
        events = []
        while len(self._buffer) >= 8:
            obj, word = struct.unpack_from("=II", self._buffer)
            size = word >> 16
            if len(self._buffer) < size:
                break
            events.append((obj, word & 0xFFFF, self._buffer[8:size]))
            self._buffer = self._buffer[size:]
        return events

    def _roundtrip(self, on_event: object = None) -> None:
        """``wl_display.sync`` and read until its callback is done; protocol errors raise."""
        callback = self._new_id()
        self._send(_DISPLAY, 0, struct.pack("=I", callback))
        deadline = time.monotonic() + self._timeout_s
        while time.monotonic() < deadline:
            for obj, opcode, body in self._events():
                if obj == _DISPLAY and opcode == 0:  # error(object, code, message)
                    _obj, code, length = struct.unpack_from("=III", body)
                    message = body[12 : 12 + length - 1].decode(errors="replace")
                    self.close()
                    raise InputUnavailableError(
                        f"The Wayland compositor refused the virtual pointer: {message} "
                        f"(error {code}).",
                        hint=_HINT,
                    )
                if obj == callback and opcode == 0:
                    return
                if callable(on_event):
                    on_event(obj, opcode, body)
        raise InputUnavailableError(
            f"The Wayland compositor did not answer within {self._timeout_s:g} s.", hint=_HINT
        )

    # --- set-up -----------------------------------------------------------------------------

    def _connect(self) -> None:
        if self._sock is not None:
            return
        path = wayland_socket()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self._timeout_s)
        try:
            sock.connect(str(path))
        except OSError as exc:
            sock.close()
            raise InputUnavailableError(
                f"Cannot reach the Wayland compositor at {path}: {exc.strerror or exc}.",
                hint="Run ARIA inside your desktop session (WAYLAND_DISPLAY must be set).",
            ) from None
        self._sock, self._buffer, self._next_id = sock, b"", _REGISTRY + 1
        self._send(_DISPLAY, 1, struct.pack("=I", _REGISTRY))  # get_registry
        globals_: dict[str, tuple[int, int]] = {}

        def on_global(obj: int, opcode: int, body: bytes) -> None:
            if obj != _REGISTRY or opcode != 0:
                return
            name, length = struct.unpack_from("=II", body)
            interface = body[8 : 8 + length - 1].decode()
            (version,) = struct.unpack_from("=I", body, 8 + length + (-length % 4))
            globals_.setdefault(interface, (name, version))

        self._roundtrip(on_global)
        if _MANAGER not in globals_ or "wl_seat" not in globals_:
            self.close()
            raise InputUnavailableError(
                "This Wayland desktop offers no virtual pointer (zwlr_virtual_pointer_v1).",
                hint=_HINT,
            )
        seat = self._bind(*globals_["wl_seat"], "wl_seat", cap=1)
        manager = self._bind(*globals_[_MANAGER], _MANAGER, cap=2)
        capabilities: list[int] = []

        def on_seat(obj: int, opcode: int, body: bytes) -> None:
            if obj == seat and opcode == 0:  # capabilities(bitfield)
                capabilities.append(struct.unpack_from("=I", body)[0])

        self._roundtrip(on_seat)
        had_pointer = bool(capabilities and capabilities[-1] & _SEAT_POINTER)
        self._pointer = self._new_id()
        self._send(manager, 0, struct.pack("=II", seat, self._pointer))  # create_virtual_pointer
        self._roundtrip(on_seat)
        if not had_pointer:
            self._await_pointer_clients(on_seat, capabilities)

    def _await_pointer_clients(self, on_seat: object, capabilities: list[int]) -> None:
        """Give clients the moment to pick up a pointer that appeared with ours.

        A seat with no pointer before ours (a headless or touch-only desktop) tells every
        client it has one now; each then asks for its pointer object. Input sent before a
        client has it is lost, so wait for the announcement and give clients that moment.
        """
        deadline = time.monotonic() + self._timeout_s
        while not (capabilities and capabilities[-1] & _SEAT_POINTER):
            if time.monotonic() > deadline:
                return
            self._roundtrip(on_seat)
        time.sleep(_CLIENTS_CATCH_UP_S)

    def _bind(self, name: int, version: int, interface: str, *, cap: int) -> int:
        new = self._new_id()
        args = (
            struct.pack("=I", name)
            + _string(interface)
            + struct.pack("=II", min(version, cap), new)
        )
        self._send(_REGISTRY, 0, args)
        return new

    def probe(self) -> None:
        """Create the device (``aria doctor``): raises what a first move would."""
        with self._lock:
            self._connect()

    # --- requests ---------------------------------------------------------------------------

    def move(self, x: int, y: int, extent: tuple[int, int]) -> None:
        """Put the pointer at (``x``, ``y``) of a layout ``extent`` (logical pixels) wide."""
        with self._lock:
            self._connect()
            width, height = extent
            self._send(self._pointer, 1, struct.pack("=IIIII", _now_ms(), x, y, width, height))
            self._send(self._pointer, 4)  # frame
            self._roundtrip()

    def button(self, button: str, pressed: bool) -> None:
        """Press or release ``button`` (left, right, middle) where the pointer is."""
        with self._lock:
            self._connect()
            code = BUTTON_CODES[button]
            self._send(self._pointer, 2, struct.pack("=III", _now_ms(), code, int(pressed)))
            self._send(self._pointer, 4)
            self._roundtrip()

    def scroll(self, clicks: int) -> None:
        """Scroll ``clicks`` wheel steps (positive: down) where the pointer is."""
        with self._lock:
            self._connect()
            self._send(self._pointer, 5, struct.pack("=I", 0))  # axis_source: wheel
            value = _fixed(clicks * _SCROLL_STEP)
            self._send(self._pointer, 7, struct.pack("=IIii", _now_ms(), 0, value, clicks))
            self._send(self._pointer, 4)
            self._roundtrip()

    def close(self) -> None:
        """Drop the connection (the compositor removes the device)."""
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()


def _now_ms() -> int:
    return int(time.monotonic() * 1000) & 0xFFFFFFFF
