"""Facts about windows: which one is where, its title, application and process.

``WindowBackend`` is what the controller needs; ``XlibWindows`` implements it for X11 with
python-xlib (the one module that imports it). Other platforms add a backend here.

X11 details: the root's children are listed bottom-to-top, so the window at a point is the last
viewable child containing it. Under a reparenting window manager that child is a frame; the
application's window is the descendant carrying ``WM_STATE``. ``_NET_ACTIVE_WINDOW`` needs a
window manager; without one (Xvfb) the input-focus window is used, or — when focus follows the
pointer (``PointerRoot``) — the window under the pointer. A window counts as
``elevated`` when its process or any descendant (a ``sudo`` shell inside a terminal) runs as
root.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any, Protocol

from aria_desktop.domain.computer import Point, Rect, WindowInfo
from aria_desktop.domain.errors import DisplayUnavailableError

__all__ = [
    "WindowBackend",
    "XlibWindows",
    "looks_like_terminal",
    "process_name",
    "process_tree_has_root",
]

_LOGGER = logging.getLogger(__name__)
_MAX_DEPTH = 4


class WindowBackend(Protocol):
    """Window facts for the policy and for re-verification before acting."""

    def windows(self) -> list[WindowInfo]:
        """Visible top-level windows, topmost first."""
        ...

    def window_at(self, point: Point) -> WindowInfo | None:
        """The topmost window containing ``point``."""
        ...

    def active_window(self) -> WindowInfo | None:
        """The window that receives keyboard input."""
        ...


def _proc_status_uid(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Uid:"):
                return int(line.split()[2])  # effective uid
    except (OSError, ValueError, IndexError):
        return None
    return None


def process_tree_has_root(pid: int) -> bool:
    """Whether ``pid`` or any descendant process runs with effective uid 0 (Linux /proc)."""
    children: dict[int, list[int]] = {}
    try:
        entries = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]
    except OSError:
        return False
    for child in entries:
        try:
            stat = Path(f"/proc/{child}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(child)
    todo, seen = [pid], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if _proc_status_uid(current) == 0:
            return True
        todo.extend(children.get(current, []))
    return False


def process_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


class XlibWindows:
    """X11 window facts via python-xlib: one connection, used under a lock.

    Xlib connections are not thread-safe, and callers run in worker threads.
    """

    def __init__(self) -> None:
        """Connect lazily (the first call)."""
        self._lock = threading.Lock()
        self._display: Any = None
        self._atoms: dict[str, int] = {}

    def _connect(self) -> Any:
        if self._display is not None:
            return self._display
        if not os.environ.get("DISPLAY"):
            raise DisplayUnavailableError(
                "Cannot read window facts: no graphical session (DISPLAY is not set).",
                hint="Run ARIA inside your desktop session.",
            )
        try:
            from Xlib import display as xdisplay

            self._display = xdisplay.Display()
        except Exception as exc:
            raise DisplayUnavailableError(
                f"Cannot connect to the X display: {exc}",
                hint="Check DISPLAY and XAUTHORITY (run `aria doctor`).",
            ) from exc
        return self._display

    def _atom(self, name: str) -> int:
        if name not in self._atoms:
            self._atoms[name] = self._connect().intern_atom(name)
        return self._atoms[name]

    def windows(self) -> list[WindowInfo]:
        """Visible top-level windows, topmost first."""
        with self._lock:
            return self._windows_locked()

    def window_at(self, point: Point) -> WindowInfo | None:
        """The topmost visible window containing ``point``."""
        for window in self.windows():
            if window.geometry.contains(point):
                return window
        return None

    def active_window(self) -> WindowInfo | None:
        """The window receiving keys: active, else focused, else under the pointer."""
        with self._lock:
            try:
                display = self._connect()
                root = display.screen().root
                prop = root.get_full_property(self._atom("_NET_ACTIVE_WINDOW"), 0)
                target: int | None = int(prop.value[0]) if prop and len(prop.value) else None
                if not target:
                    focus = display.get_input_focus().focus
                    target = int(focus.id) if hasattr(focus, "id") else None
                windows = self._windows_locked()
                if target:
                    for window in windows:
                        if window.window_id == target or self._is_ancestor(
                            window.window_id, target
                        ):
                            return window
                # No window manager and focus on PointerRoot (or a stale window): keys go to
                # the window under the pointer.
                pointer = root.query_pointer()
                under = int(pointer.child.id) if pointer.child else 0
                for window in windows:
                    if window.window_id == under:
                        return window
            except DisplayUnavailableError:
                raise
            except Exception as exc:
                _LOGGER.warning("Could not read the active window: %s", exc)
        return None

    def _is_ancestor(self, top_id: int, child_id: int) -> bool:
        display = self._connect()
        try:
            window = display.create_resource_object("window", child_id)
            for _ in range(_MAX_DEPTH + 4):
                tree = window.query_tree()
                if tree.parent is None or int(tree.parent.id) == int(tree.root.id):
                    return int(window.id) == top_id
                window = tree.parent
        except Exception:
            return False
        return False

    def _windows_locked(self) -> list[WindowInfo]:
        from Xlib import X

        display = self._connect()
        root = display.screen().root
        found: list[WindowInfo] = []
        try:
            children = root.query_tree().children
        except Exception as exc:
            raise DisplayUnavailableError(f"Cannot list windows: {exc}") from exc
        for top in reversed(children):
            try:
                attrs = top.get_attributes()
                if attrs.map_state != X.IsViewable or attrs.win_class == X.InputOnly:
                    continue
                geometry = top.get_geometry()
                origin = top.translate_coords(root, 0, 0)
                rect = Rect(-origin.x, -origin.y, int(geometry.width), int(geometry.height))
                client = self._client(top) or top
                found.append(self._info(client, rect, int(top.id)))
            except Exception:  # windows vanish between listing and querying: skip them
                continue
        return found

    def _client(self, window: Any, depth: int = 0) -> Any | None:
        """The descendant with ``WM_STATE`` (the application's window under a frame)."""
        if window.get_full_property(self._atom("WM_STATE"), 0) is not None:
            return window
        if depth >= _MAX_DEPTH:
            return None
        for child in window.query_tree().children:
            found = self._client(child, depth + 1)
            if found is not None:
                return found
        return None

    def _info(self, window: Any, rect: Rect, top_id: int) -> WindowInfo:
        title = ""
        name = window.get_full_property(self._atom("_NET_WM_NAME"), self._atom("UTF8_STRING"))
        if name is not None and name.value:
            value = name.value
            title = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
        else:
            legacy = window.get_wm_name()
            title = legacy.decode("latin-1") if isinstance(legacy, bytes) else str(legacy or "")
        wm_class = window.get_wm_class()
        app = str(wm_class[1]) if wm_class else ""
        pid_prop = window.get_full_property(self._atom("_NET_WM_PID"), 0)
        pid = int(pid_prop.value[0]) if pid_prop is not None and len(pid_prop.value) else None
        process = process_name(pid) if pid else ""
        elevated = (
            process_tree_has_root(pid) if pid and looks_like_terminal(app, process) else False
        )
        return WindowInfo(
            window_id=top_id,
            title=title,
            app=app,
            process=process,
            pid=pid,
            geometry=rect,
            elevated=elevated,
        )


def looks_like_terminal(app: str, process: str) -> bool:
    text = f"{app} {process}".lower()
    return any(word in text for word in ("term", "konsole", "kitty", "alacritty", "tilix", "foot"))
