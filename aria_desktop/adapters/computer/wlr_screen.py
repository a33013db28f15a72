"""Screen capture on wlroots desktops (sway, Hyprland, river…) with grim.

X11 grabbers (mss) cannot see a Wayland session; wlroots compositors give the screen to a
client through the screencopy protocol, which ``grim`` speaks. It captures at scale 1 (``-s
1``): the image is then in the layout's logical pixels, the coordinates sway reports windows
and outputs in and the virtual pointer moves in, so a point found on the screenshot is the
point clicked, whatever each output's scale. Outputs come from sway's IPC when it runs, else
the whole layout is one monitor of the captured size.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from aria_desktop.adapters.computer import imaging
from aria_desktop.adapters.computer.screen import monitor_area
from aria_desktop.adapters.computer.sway import SwayIpc, sway_outputs
from aria_desktop.domain.computer import Monitor, Rect
from aria_desktop.domain.errors import DisplayUnavailableError

__all__ = ["GrimScreen"]

_HINT = (
    "On sway, Hyprland and other wlroots desktops ARIA captures the screen with grim: "
    "sudo apt-get install grim (and run ARIA inside the desktop session)."
)
_TIMEOUT_S = 10.0


class GrimScreen:
    """Grabs screen pixels through grim (wlroots screencopy), logical pixels."""

    def __init__(self, ipc: SwayIpc | None = None) -> None:
        """No I/O until the first grab."""
        self._ipc = ipc if ipc is not None else (SwayIpc() if os.environ.get("SWAYSOCK") else None)

    def _grim(self, *args: str) -> bytes:
        grim = shutil.which("grim")
        if grim is None:
            raise DisplayUnavailableError(
                "Cannot see the screen: grim is not installed.", hint=_HINT
            )
        try:
            done = subprocess.run(
                [grim, "-s", "1", *args, "-t", "ppm", "-"],
                capture_output=True,
                timeout=_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise DisplayUnavailableError(
                f"The screen could not be captured: {exc}", hint=_HINT
            ) from None
        if done.returncode != 0:
            why = done.stderr.decode(errors="replace").strip() or f"grim exited {done.returncode}"
            raise DisplayUnavailableError(f"The screen could not be captured: {why}", hint=_HINT)
        return done.stdout

    def monitors(self) -> list[Monitor]:
        """Index 0 is the whole layout, then each output."""
        if self._ipc is not None:
            return sway_outputs(self._ipc)
        _raw, width, height = imaging.bgrx_from_ppm(self._grim())
        whole = Rect(0, 0, width, height)
        return [Monitor(index=0, rect=whole), Monitor(index=1, rect=whole, primary=True)]

    def monitor_rect(self, monitor: int) -> Rect:
        """The area of ``monitor`` (0 = all outputs); MonitorNotFoundError if unknown."""
        return monitor_area(self.monitors(), monitor)

    def grab(self, region: Rect) -> tuple[bytes, int, int]:
        """Raw BGRX pixels of ``region`` (logical pixels) and its size."""
        geometry = f"{region.x},{region.y} {region.width}x{region.height}"
        return imaging.bgrx_from_ppm(self._grim("-g", geometry))
