"""Mouse and keyboard on wlroots desktops: the virtual pointer protocol and wtype.

The pointer is ARIA's own ``zwlr_virtual_pointer_v1`` device (``wayland_pointer.py``), kept for
the session. Keys go through ``wtype`` (the virtual keyboard protocol: it uploads a keymap
holding exactly the characters asked for, so any text can be typed). A client picks up a new
keymap asynchronously, and keys sent before it has it are lost, so every wtype run waits
``_KEYMAP_SETTLE_MS`` before its first key. Like ``PyAutoGuiInput`` every operation is
abortable: ``abort()`` ends a running wtype at once and ``release_all()`` lets go of the
buttons this backend holds.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import threading
import time
from collections.abc import Callable

from aria_desktop.adapters.computer.input import Button, normalize_key
from aria_desktop.adapters.computer.wayland_pointer import VirtualPointer
from aria_desktop.domain.computer import Point, Rect
from aria_desktop.domain.errors import ActionAbortedError, ComputerError, InputUnavailableError

__all__ = ["WlrootsInput"]

_HINT = (
    "On sway, Hyprland and other wlroots desktops ARIA types with wtype: sudo apt-get install "
    "wtype (and run ARIA inside the desktop session)."
)
_KEYMAP_SETTLE_MS = 150
_DRAG_STEPS = 20
_CLICK_GAP_S = 0.05
_MODIFIERS = {"ctrl": "ctrl", "shift": "shift", "alt": "alt", "win": "logo", "altgr": "altgr"}
_KEYSYMS = {
    "enter": "Return",
    "tab": "Tab",
    "esc": "Escape",
    "backspace": "BackSpace",
    "delete": "Delete",
    "space": "space",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "home": "Home",
    "end": "End",
    "pageup": "Page_Up",
    "pagedown": "Page_Down",
    "insert": "Insert",
    **{f"f{n}": f"F{n}" for n in range(1, 13)},
}


def _keysym(key: str) -> str:
    """An XKB keysym name for a key in ARIA's vocabulary (``enter`` -> ``Return``)."""
    if key in _KEYSYMS:
        return _KEYSYMS[key]
    if len(key) == 1:
        return key
    raise ComputerError(
        f"Unknown key name: {key}", hint="Use names like ctrl, shift, alt, enter, tab, esc, a, f5."
    )


class WlrootsInput:
    """Real input on a wlroots compositor.

    Args:
        layout: the whole layout's rectangle in logical pixels (absolute pointer motion is
            relative to it).
        typing_interval_s: pause between typed characters.
    """

    def __init__(self, layout: Callable[[], Rect], *, typing_interval_s: float = 0.01) -> None:
        """No I/O until the first operation."""
        self._layout = layout
        self._interval_ms = int(typing_interval_s * 1000)
        self._pointer = VirtualPointer()
        self._abort = threading.Event()
        self._lock = threading.Lock()
        self._held: list[Button] = []
        self._typing: subprocess.Popen[bytes] | None = None

    @property
    def dry_run(self) -> bool:
        """False: this backend really acts."""
        return False

    def _check(self) -> None:
        if self._abort.is_set():
            raise ActionAbortedError("The action was stopped.")

    # --- pointer --------------------------------------------------------------------------

    def move(self, x: int, y: int) -> None:
        """Move the pointer to (x, y), logical pixels."""
        self._check()
        box = self._layout()
        self._pointer.move(x - box.x, y - box.y, (box.width, box.height))

    def _button(self, button: Button, pressed: bool) -> None:
        with self._lock:
            self._pointer.button(button, pressed)
            if pressed:
                self._held.append(button)
            elif button in self._held:
                self._held.remove(button)

    def click(self, x: int, y: int, *, button: Button = "left", clicks: int = 1) -> None:
        """Click ``clicks`` times with ``button`` at (x, y)."""
        self.move(x, y)
        for index in range(clicks):
            self._check()
            if index:
                self._abort.wait(_CLICK_GAP_S)
            self._button(button, True)
            self._button(button, False)

    def drag(self, x: int, y: int, to_x: int, to_y: int) -> None:
        """Press at (x, y), move in small steps (abortable), release at (to_x, to_y)."""
        self.move(x, y)
        self._button("left", True)
        try:
            for step in range(1, _DRAG_STEPS + 1):
                self._check()
                self.move(
                    x + (to_x - x) * step // _DRAG_STEPS, y + (to_y - y) * step // _DRAG_STEPS
                )
                time.sleep(0.01)
        finally:
            self._button("left", False)

    def scroll(self, x: int, y: int, amount: int) -> None:
        """Scroll ``amount`` clicks at (x, y), positive = up."""
        self.move(x, y)
        self._pointer.scroll(-amount)

    def pointer(self) -> Point | None:
        """Unknown: a Wayland client is not told where the pointer is."""
        return None

    # --- keyboard -------------------------------------------------------------------------

    def _wtype(self, args: list[str], text: str | None = None) -> None:
        wtype = shutil.which("wtype")
        if wtype is None:
            raise InputUnavailableError("Cannot type: wtype is not installed.", hint=_HINT)
        self._check()
        command = [wtype, "-s", str(_KEYMAP_SETTLE_MS), *args]
        try:
            process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
        except OSError as exc:
            raise InputUnavailableError(f"Cannot type: {exc}", hint=_HINT) from None
        self._typing = process
        try:
            _out, err = process.communicate(text.encode() if text is not None else None)
        finally:
            self._typing = None
        self._check()
        if process.returncode != 0:
            why = err.decode(errors="replace").strip() or f"wtype exited {process.returncode}"
            raise InputUnavailableError(f"Typing failed: {why}", hint=_HINT)

    def type_text(self, text: str) -> None:
        """Type ``text``: any characters, a new line as Return and a tab as Tab.

        It stops at once on ``abort``.
        """
        for index, line in enumerate(text.split("\n")):
            if index:
                self._wtype(["-k", "Return"])
            for part, piece in enumerate(line.split("\t")):
                if part:
                    self._wtype(["-k", "Tab"])
                if piece:
                    self._wtype(["-d", str(self._interval_ms), "-"], piece)

    def press(self, keys: tuple[str, ...]) -> None:
        """Press ``keys`` in order, release them in reverse (a combination like ctrl+s)."""
        names = [normalize_key(k) for k in keys]
        *held, last = names or [""]
        args: list[str] = []
        for name in held:
            args += ["-M", _MODIFIERS[name]] if name in _MODIFIERS else ["-P", _keysym(name)]
        args += ["-M", _MODIFIERS[last]] if last in _MODIFIERS else ["-k", _keysym(last)]
        if last in _MODIFIERS:
            args += ["-m", _MODIFIERS[last]]
        for name in reversed(held):
            args += ["-m", _MODIFIERS[name]] if name in _MODIFIERS else ["-p", _keysym(name)]
        self._wtype(args)

    # --- stopping -------------------------------------------------------------------------

    def abort(self) -> None:
        """Make the running operation stop now (thread-safe): a running wtype is ended."""
        self._abort.set()
        typing = self._typing
        if typing is not None and typing.poll() is None:
            typing.kill()

    def reset(self) -> None:
        """Allow operations again after an abort."""
        self._abort.clear()

    def release_all(self) -> None:
        """Release every button this backend holds (wtype's keys end with its process)."""
        with self._lock:
            for button in reversed(list(self._held)):
                with contextlib.suppress(ComputerError):
                    self._pointer.button(button, False)
            self._held.clear()
