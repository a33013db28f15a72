"""Screen capture with mss (the one module that imports it): all monitors or one, physical px."""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import Any, Literal, Protocol

from aria_desktop.domain.computer import Monitor, Rect
from aria_desktop.domain.errors import DisplayUnavailableError, MonitorNotFoundError

__all__ = ["MssScreen", "ScreenBackend", "desktop_session", "display_problem", "monitor_area"]

_LOGGER = logging.getLogger(__name__)
_HINT = (
    "Computer use needs a graphical desktop session: run ARIA inside it (DISPLAY must be set; "
    "under Xvfb also XAUTHORITY), and check with `aria doctor`."
)


DesktopSession = Literal["x11", "sway", "wayland", "none"]


def desktop_session() -> DesktopSession:
    """Which screen and input path this session needs, decided once from its environment.

    ``sway``: a wlroots session with sway's IPC (grim, the virtual pointer, wtype; chosen over
    XWayland, which sees only X11 windows); ``x11``: an X server (also XWayland on another
    Wayland desktop, and Windows or macOS, where mss and pyautogui work natively);
    ``wayland``: another Wayland desktop without XWayland; ``none``: no graphical session.
    """
    if not sys.platform.startswith("linux"):
        return "x11"
    if os.environ.get("WAYLAND_DISPLAY") and os.environ.get("SWAYSOCK"):
        return "sway"
    if os.environ.get("DISPLAY"):
        return "x11"
    return "wayland" if os.environ.get("WAYLAND_DISPLAY") else "none"


def display_problem() -> str | None:
    """Why no screen can be used here, or None when one can."""
    session = desktop_session()
    if session == "wayland":
        return (
            "this Wayland desktop offers ARIA neither XWayland nor sway's screen and input "
            "paths (GNOME and KDE through their portals are not supported yet)"
        )
    if session == "none":
        return "no graphical session (neither DISPLAY nor WAYLAND_DISPLAY is set)"
    return None


def monitor_area(monitors: list[Monitor], monitor: int) -> Rect:
    """The area of ``monitor`` among ``monitors`` (0 = all); MonitorNotFoundError if unknown."""
    if not 0 <= monitor < len(monitors):
        raise MonitorNotFoundError(
            f"There is no monitor {monitor} (this screen has {len(monitors) - 1}).",
            hint="Use 0 for all monitors, or 1.. for one of them.",
        )
    return monitors[monitor].rect


class ScreenBackend(Protocol):
    """Screen pixels for the controller: ``MssScreen`` (X11) or ``GrimScreen`` (wlroots)."""

    def monitors(self) -> list[Monitor]:
        """Index 0 is the whole screen, then each monitor."""
        ...

    def monitor_rect(self, monitor: int) -> Rect:
        """The area of ``monitor`` (0 = all)."""
        ...

    def grab(self, region: Rect) -> tuple[bytes, int, int]:
        """Raw BGRX pixels of ``region`` and its size in pixels."""
        ...


class MssScreen:
    """Grabs screen pixels. One mss instance per thread (mss keeps per-thread X state)."""

    def __init__(self) -> None:
        """No I/O until the first grab."""
        self._local = threading.local()

    def _mss(self) -> Any:
        instance = getattr(self._local, "mss", None)
        if instance is not None:
            return instance
        problem = display_problem()
        if problem:
            raise DisplayUnavailableError(f"Cannot see the screen: {problem}.", hint=_HINT)
        try:
            import mss

            factory = getattr(mss, "MSS", None) or mss.mss
            instance = factory()
        except Exception as exc:
            raise DisplayUnavailableError(
                f"Cannot open the display {os.environ.get('DISPLAY', '')}: {exc}", hint=_HINT
            ) from exc
        self._local.mss = instance
        return instance

    def monitors(self) -> list[Monitor]:
        """Index 0 is the whole virtual screen, then each monitor (mss numbering)."""
        found = []
        for index, mon in enumerate(self._mss().monitors):
            rect = Rect(int(mon["left"]), int(mon["top"]), int(mon["width"]), int(mon["height"]))
            found.append(Monitor(index=index, rect=rect, primary=bool(mon.get("is_primary"))))
        return found

    def monitor_rect(self, monitor: int) -> Rect:
        """The area of ``monitor`` (0 = all monitors); MonitorNotFoundError if unknown."""
        return monitor_area(self.monitors(), monitor)

    def grab(self, region: Rect) -> tuple[bytes, int, int]:
        """Raw BGRA pixels of ``region`` and its size in pixels."""
        try:
            shot = self._mss().grab(
                {"left": region.x, "top": region.y, "width": region.width, "height": region.height}
            )
        except DisplayUnavailableError:
            raise
        except Exception as exc:
            raise DisplayUnavailableError(
                f"The screen could not be captured: {exc}", hint=_HINT
            ) from exc
        return bytes(shot.bgra), int(shot.width), int(shot.height)
