"""Keep ARIA's hotkeys from reaching the focused window (X11 passive key grabs on the root).

The hotkey listener reads keys through X RECORD, which only watches: without a grab, the
window being written in also gets the combination, and a text field may insert its letter
(Qt reads Ctrl+Alt as AltGr: holding Ctrl+Alt+D to dictate typed a stray "d" before the
words). A passive grab of each combination on the root window sends it to ARIA instead;
X RECORD still sees it. Grabs are made with and without Caps Lock and Num Lock, which X
counts as modifiers. A combination another program has grabbed already is left to it (the
listener still hears it).
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Sequence
from typing import Any

from aria_desktop.gui.keyspec import HotkeySpec

__all__ = ["KeyGrabs", "x_keysym_name"]

_LOGGER = logging.getLogger(__name__)

_KEYSYM_NAMES = {
    "enter": "Return",
    "esc": "Escape",
    "backspace": "BackSpace",
    "page_up": "Prior",
    "page_down": "Next",
    "print_screen": "Print",
    "caps_lock": "Caps_Lock",
    "num_lock": "Num_Lock",
    "scroll_lock": "Scroll_Lock",
}


def x_keysym_name(key: str) -> str:
    """The X keysym name of a hotkey's main key (``space``, ``F5``, ``Return``, ``d``)."""
    if len(key) == 1:
        return key
    if re.fullmatch(r"f\d{1,2}", key):
        return key.upper()
    return _KEYSYM_NAMES.get(key, key.replace("_", " ").title().replace(" ", "_"))


class KeyGrabs:
    """The passive grabs of the hotkeys, on a display connection of their own."""

    def __init__(self) -> None:
        self._display: Any = None
        self._grabbed: list[tuple[int, int]] = []
        self._thread: threading.Thread | None = None

    def grab(self, specs: Sequence[HotkeySpec]) -> list[str]:
        """Grab ``specs`` (after releasing earlier grabs); the ones not grabbed, as shown."""
        self.release()
        try:
            from Xlib import XK, X, display, error
        except ImportError:
            return [spec.text for spec in specs]
        masks = {
            "ctrl": X.ControlMask,
            "alt": X.Mod1Mask,
            "shift": X.ShiftMask,
            "cmd": X.Mod4Mask,
        }
        try:
            self._display = display.Display()
        except Exception as exc:  # Xlib raises its own errors for a missing display
            _LOGGER.info("Hotkeys are not grabbed (no X display: %s)", exc)
            return [spec.text for spec in specs]
        root = self._display.screen().root
        missed: list[str] = []
        for spec in specs:
            keycode = self._display.keysym_to_keycode(XK.string_to_keysym(x_keysym_name(spec.key)))
            if not keycode:
                missed.append(spec.text)
                continue
            mask = 0
            for modifier in spec.modifiers:
                mask |= masks.get(modifier, 0)
            catcher = error.CatchError(error.BadAccess)
            for extra in (0, X.LockMask, X.Mod2Mask, X.LockMask | X.Mod2Mask):
                root.grab_key(
                    keycode, mask | extra, True, X.GrabModeAsync, X.GrabModeAsync, onerror=catcher
                )
                self._grabbed.append((keycode, mask | extra))
            self._display.sync()
            if catcher.get_error() is not None:
                missed.append(spec.text)  # another program holds it
        self._thread = threading.Thread(
            target=self._drain, args=(self._display,), name="aria-key-grabs", daemon=True
        )
        self._thread.start()
        return missed

    def release(self) -> None:
        """Release every grab and close the connection (its reader thread then ends)."""
        connection, self._display = self._display, None
        grabbed, self._grabbed = self._grabbed, []
        if connection is None:
            return
        with contextlib.suppress(Exception):
            root = connection.screen().root
            for keycode, mask in grabbed:
                root.ungrab_key(keycode, mask)
            connection.sync()
        with contextlib.suppress(Exception):
            connection.close()

    @staticmethod
    def _drain(connection: Any) -> None:
        """Read (and drop) the grabbed key events, so they never pile up unread."""
        with contextlib.suppress(Exception):  # the connection was closed: done
            while True:
                connection.next_event()
