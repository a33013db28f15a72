"""Mouse and keyboard: the ``InputBackend`` protocol, pyautogui and dry-run backends.

``PyAutoGuiInput`` is the one module that imports pyautogui (lazily: importing it opens the
display). Every operation is abortable from another thread: ``abort()`` sets a flag that long
operations (typing, dragging) check between steps, and ``release_all()`` lets go of every key
and button this backend pressed, so the kill switch never leaves a key or button held.
pyautogui's own fail-safe stays on: a user who slams the mouse into a screen corner aborts the
action (``ActionAbortedError``); ARIA's own targets are clamped away from the corners.

``DryRunInput`` records what would have been done and performs nothing.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from aria_desktop.domain.computer import Point
from aria_desktop.domain.errors import ActionAbortedError, ComputerError, InputUnavailableError

__all__ = ["DryRunInput", "InputBackend", "PyAutoGuiInput", "RecordedInput", "normalize_key"]

_LOGGER = logging.getLogger(__name__)
_HINT = "Run ARIA inside your desktop session (DISPLAY set) and check it with `aria doctor`."
_KEY_ALIASES = {
    "control": "ctrl",
    "ctl": "ctrl",
    "return": "enter",
    "escape": "esc",
    "del": "delete",
    "super": "win",
    "meta": "win",
    "cmd": "win",
    "command": "win",
    "windows": "win",
    "option": "alt",
    "page_up": "pageup",
    "page_down": "pagedown",
    "pgup": "pageup",
    "pgdn": "pagedown",
    "arrowup": "up",
    "arrowdown": "down",
    "arrowleft": "left",
    "arrowright": "right",
    "spacebar": "space",
    " ": "space",
}
_DRAG_STEPS = 20
Button = Literal["left", "right", "middle"]


def normalize_key(key: str) -> str:
    """A key name in pyautogui's vocabulary (``Control`` -> ``ctrl``, ``Return`` -> ``enter``)."""
    name = key.strip().lower() if len(key.strip()) > 1 else key
    return _KEY_ALIASES.get(name, name)


class InputBackend(Protocol):
    """Drives the pointer and keyboard; every method blocks until done (run it in a thread)."""

    @property
    def dry_run(self) -> bool: ...

    def move(self, x: int, y: int) -> None: ...

    def click(self, x: int, y: int, *, button: Button = "left", clicks: int = 1) -> None: ...

    def drag(self, x: int, y: int, to_x: int, to_y: int) -> None: ...

    def scroll(self, x: int, y: int, amount: int) -> None: ...

    def type_text(self, text: str) -> None: ...

    def press(self, keys: tuple[str, ...]) -> None: ...

    def pointer(self) -> Point | None: ...

    def abort(self) -> None: ...

    def reset(self) -> None: ...

    def release_all(self) -> None: ...


@dataclass(frozen=True)
class RecordedInput:
    """One operation a dry run would have performed."""

    op: str
    args: tuple[Any, ...] = ()


@dataclass
class DryRunInput:
    """Records operations and performs none (``aria do --dry-run``, tests, previews)."""

    records: list[RecordedInput] = field(default_factory=list)
    _pointer: Point | None = None

    @property
    def dry_run(self) -> bool:
        """Always True: nothing is performed."""
        return True

    def move(self, x: int, y: int) -> None:
        """Record a pointer move."""
        self._record("move", x, y)
        self._pointer = Point(x, y)

    def click(self, x: int, y: int, *, button: Button = "left", clicks: int = 1) -> None:
        """Record a click."""
        self._record("click", x, y, button, clicks)
        self._pointer = Point(x, y)

    def drag(self, x: int, y: int, to_x: int, to_y: int) -> None:
        """Record a drag."""
        self._record("drag", x, y, to_x, to_y)
        self._pointer = Point(to_x, to_y)

    def scroll(self, x: int, y: int, amount: int) -> None:
        """Record a scroll."""
        self._record("scroll", x, y, amount)

    def type_text(self, text: str) -> None:
        """Record typing (by length: typed text is never kept)."""
        self._record("type", len(text))

    def press(self, keys: tuple[str, ...]) -> None:
        """Record a key combination."""
        self._record("press", *keys)

    def pointer(self) -> Point | None:
        """Where the pointer would be."""
        return self._pointer

    def abort(self) -> None:
        """Nothing runs, so nothing to stop."""

    def reset(self) -> None:
        """Nothing to reset."""

    def release_all(self) -> None:
        """Nothing is ever held."""

    def _record(self, op: str, *args: Any) -> None:
        self.records.append(RecordedInput(op, args))


class PyAutoGuiInput:
    """Real input through pyautogui (XTest on X11).

    Args:
        typing_interval_s: pause between typed characters (apps drop keys typed too fast;
            also the granularity at which a long ``type`` can be stopped).
    """

    def __init__(self, *, typing_interval_s: float = 0.01) -> None:
        """No I/O until the first operation."""
        self._interval_s = typing_interval_s
        self._abort = threading.Event()
        self._lock = threading.Lock()
        self._held_keys: list[str] = []
        self._held_buttons: list[str] = []
        self._gui: Any = None

    @property
    def dry_run(self) -> bool:
        """False: this backend really acts."""
        return False

    def _pyautogui(self) -> Any:
        if self._gui is not None:
            return self._gui
        if not os.environ.get("DISPLAY") and os.name == "posix":
            raise InputUnavailableError(
                "Cannot drive mouse and keyboard: no graphical session (DISPLAY is not set).",
                hint=_HINT,
            )
        try:
            import pyautogui
        except Exception as exc:  # KeyError/Xlib errors from its display probe, ImportError
            raise InputUnavailableError(
                f"Cannot drive mouse and keyboard: {exc.__class__.__name__}: {exc}", hint=_HINT
            ) from exc
        pyautogui.FAILSAFE = True
        pyautogui.PAUSE = 0.0
        self._gui = pyautogui
        return pyautogui

    def _check(self) -> None:
        if self._abort.is_set():
            raise ActionAbortedError("The action was stopped.")

    def _run(self, op: str, fn: Any) -> None:
        gui = self._pyautogui()
        self._check()
        try:
            fn(gui)
        except gui.FailSafeException as exc:
            self.release_all()
            raise ActionAbortedError(
                "Stopped: the mouse was moved into a screen corner (fail-safe).",
                hint="Move the mouse away from the corner to let ARIA act again.",
            ) from exc
        except ComputerError:
            raise
        except Exception as exc:
            raise InputUnavailableError(f"{op} failed: {exc}", hint=_HINT) from exc

    def move(self, x: int, y: int) -> None:
        """Move the pointer."""
        self._run("move", lambda g: g.moveTo(x, y))

    def click(self, x: int, y: int, *, button: Button = "left", clicks: int = 1) -> None:
        """Click ``clicks`` times with ``button`` at (x, y)."""
        self._run("click", lambda g: g.click(x=x, y=y, button=button, clicks=clicks, interval=0.05))

    def drag(self, x: int, y: int, to_x: int, to_y: int) -> None:
        """Press at (x, y), move in small steps (abortable), release at (to_x, to_y)."""

        def do(g: Any) -> None:
            g.moveTo(x, y)
            with self._lock:
                g.mouseDown(button="left")
                self._held_buttons.append("left")
            try:
                for step in range(1, _DRAG_STEPS + 1):
                    self._check()
                    g.moveTo(
                        x + (to_x - x) * step // _DRAG_STEPS, y + (to_y - y) * step // _DRAG_STEPS
                    )
                    time.sleep(0.01)
            finally:
                with self._lock:
                    if "left" in self._held_buttons:
                        g.mouseUp(button="left")
                        self._held_buttons.remove("left")

        self._run("drag", do)

    def scroll(self, x: int, y: int, amount: int) -> None:
        """Scroll ``amount`` clicks at (x, y), positive = up."""
        self._run("scroll", lambda g: g.scroll(amount, x=x, y=y))

    def type_text(self, text: str) -> None:
        """Type ``text`` character by character, stopping promptly on ``abort``."""

        def do(g: Any) -> None:
            mapping = getattr(g.platformModule, "keyboardMapping", {})
            unsupported = sorted({c for c in text if c not in "\n\t" and mapping.get(c) is None})
            if unsupported:
                raise InputUnavailableError(
                    f"These characters cannot be typed with this input backend: "
                    f"{''.join(unsupported)[:20]!r}",
                    hint="Type ASCII text, or paste the text yourself.",
                )
            for char in text:
                self._check()
                g.press("enter" if char == "\n" else "tab" if char == "\t" else char)
                if self._interval_s:
                    self._abort.wait(self._interval_s)

        self._run("type", do)

    def press(self, keys: tuple[str, ...]) -> None:
        """Press ``keys`` in order, release them in reverse (a combination like ctrl+s)."""
        names = tuple(normalize_key(k) for k in keys)

        def do(g: Any) -> None:
            unknown = [k for k in names if k not in g.KEYBOARD_KEYS]
            if unknown:
                raise ComputerError(
                    f"Unknown key name(s): {', '.join(unknown)}",
                    hint="Use names like ctrl, shift, alt, enter, tab, esc, a, f5.",
                )
            try:
                for key in names:
                    self._check()
                    with self._lock:
                        g.keyDown(key)
                        self._held_keys.append(key)
            finally:
                with self._lock:
                    for key in reversed(list(self._held_keys)):
                        g.keyUp(key)
                    self._held_keys.clear()

        self._run("press", do)

    def pointer(self) -> Point | None:
        """The pointer's position (None when unknown)."""
        try:
            position = self._pyautogui().position()
        except ComputerError:
            return None
        return Point(int(position[0]), int(position[1]))

    def abort(self) -> None:
        """Make the running operation stop at its next step (thread-safe)."""
        self._abort.set()

    def reset(self) -> None:
        """Allow operations again after an abort."""
        self._abort.clear()

    def release_all(self) -> None:
        """Release every key and button this backend is holding."""
        gui = self._gui
        if gui is None:
            return
        with self._lock:
            for key in reversed(self._held_keys):
                try:
                    gui.keyUp(key)
                except Exception as exc:
                    _LOGGER.warning("Could not release key %s: %s", key, exc)
            self._held_keys.clear()
            for button in self._held_buttons:
                try:
                    gui.mouseUp(button=button)
                except Exception as exc:
                    _LOGGER.warning("Could not release mouse button %s: %s", button, exc)
            self._held_buttons.clear()
