"""Window and output facts on sway, from its IPC socket (``SWAYSOCK``).

A Wayland client cannot see other clients' windows; the compositor can, and sway says it over
the i3-compatible IPC: a message is the magic ``i3-ipc``, the payload's length and type, then
JSON. ``get_tree`` gives every window with its title, ``app_id`` (or X11 class under XWayland),
process id, focus and rectangle in the layout's logical pixels — the same pixels the screen is
captured in and the pointer moves in (``wlr_screen.py``, ``wayland_pointer.py``), so scaling
and several outputs need no conversion. ``get_outputs`` gives each output's place.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import threading
from typing import Any

from aria_desktop.adapters.computer.windows import (
    looks_like_terminal,
    process_name,
    process_tree_has_root,
)
from aria_desktop.domain.computer import Monitor, Point, Rect, WindowInfo
from aria_desktop.domain.errors import DisplayUnavailableError

__all__ = ["SwayIpc", "SwayWindows", "sway_outputs"]

_MAGIC = b"i3-ipc"
_GET_TREE, _GET_OUTPUTS = 4, 3
_HINT = "Run ARIA inside your sway session (SWAYSOCK must be set), and check with `aria doctor`."


class SwayIpc:
    """Requests to sway's IPC socket, one connection per request (sway answers in order)."""

    def __init__(self, path: str | None = None, *, timeout_s: float = 2.0) -> None:
        self._path = path
        self._timeout_s = timeout_s

    def request(self, kind: int, payload: bytes = b"") -> Any:
        """Send one message of type ``kind`` and return its decoded JSON reply."""
        path = self._path or os.environ.get("SWAYSOCK", "")
        if not path:
            raise DisplayUnavailableError("Cannot reach sway: SWAYSOCK is not set.", hint=_HINT)
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(self._timeout_s)
                sock.connect(path)
                sock.sendall(_MAGIC + struct.pack("=II", len(payload), kind) + payload)
                header = _read(sock, len(_MAGIC) + 8)
                length, _kind = struct.unpack("=II", header[len(_MAGIC) :])
                return json.loads(_read(sock, length))
        except (OSError, ValueError) as exc:
            raise DisplayUnavailableError(
                f"Cannot reach sway at {path}: {exc}", hint=_HINT
            ) from None


def _read(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise OSError("sway closed the connection")
        data += chunk
    return data


def _rect(node: dict[str, Any]) -> Rect:
    box = node.get("rect") or {}
    return Rect(
        int(box.get("x", 0)), int(box.get("y", 0)), box.get("width", 0), box.get("height", 0)
    )


def sway_outputs(ipc: SwayIpc) -> list[Monitor]:
    """Index 0 is the whole layout, then each active output (as ``MssScreen`` numbers them)."""
    outputs = [o for o in ipc.request(_GET_OUTPUTS) if o.get("active")]
    if not outputs:
        raise DisplayUnavailableError("sway reports no active output.", hint=_HINT)
    rects = [_rect(o) for o in outputs]
    left, top = min(r.x for r in rects), min(r.y for r in rects)
    right = max(r.x + r.width for r in rects)
    bottom = max(r.y + r.height for r in rects)
    whole = Monitor(index=0, rect=Rect(left, top, right - left, bottom - top))
    return [whole] + [
        Monitor(index=i, rect=rect, primary=bool(o.get("focused")))
        for i, (o, rect) in enumerate(zip(outputs, rects, strict=True), start=1)
    ]


class SwayWindows:
    """``WindowBackend`` on sway: the visible windows, topmost first."""

    def __init__(self, ipc: SwayIpc | None = None) -> None:
        self._ipc = ipc or SwayIpc()
        self._lock = threading.Lock()

    def _views(self) -> list[dict[str, Any]]:
        """Every window (a view with a process), floating ones included."""
        found: list[dict[str, Any]] = []

        def walk(node: dict[str, Any]) -> None:
            if node.get("type") in {"con", "floating_con"} and node.get("pid"):
                found.append(node)
            for child in node.get("nodes", []) + node.get("floating_nodes", []):
                walk(child)

        with self._lock:
            walk(self._ipc.request(_GET_TREE))
        return found

    def windows(self) -> list[WindowInfo]:
        """Visible windows topmost first: floating ones (focused first), then tiled ones."""
        views = [node for node in self._views() if node.get("visible", True)]
        views.sort(key=lambda n: (n.get("type") != "floating_con", not n.get("focused")))
        return [_info(node) for node in views]

    def window_at(self, point: Point) -> WindowInfo | None:
        """The topmost window under ``point``."""
        hits = [w for w in self.windows() if w.geometry.contains(point)]
        return hits[0] if hits else None

    def active_window(self) -> WindowInfo | None:
        """The focused window."""
        focused = [node for node in self._views() if node.get("focused")]
        return _info(focused[0]) if focused else None


def _info(node: dict[str, Any]) -> WindowInfo:
    pid = int(node["pid"]) if node.get("pid") else None
    properties = node.get("window_properties") or {}
    app = str(node.get("app_id") or properties.get("class") or "")
    process = process_name(pid) if pid else ""
    elevated = process_tree_has_root(pid) if pid and looks_like_terminal(app, process) else False
    return WindowInfo(
        window_id=int(node.get("id", 0)),
        title=str(node.get("name") or ""),
        app=app,
        process=process,
        pid=pid,
        geometry=_rect(node),
        elevated=elevated,
    )
