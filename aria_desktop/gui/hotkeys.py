"""Global hotkeys on X11 through pynput (quick ask, push-to-talk hold, stop everything).

pynput listens on its own thread (X RECORD); every press and release is handed to the asyncio
loop with ``call_soon_threadsafe`` (ARCHITECTURE.md: one loop), never handled on pynput's
thread. The listener is never ``join``-ed on the GUI thread: it only notices ``stop`` at the
next X event. Where keys cannot be read (no X display, a Wayland session, X RECORD missing)
``start`` says so in plain words and points to the tray menu; ARIA keeps working without
hotkeys.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aria_desktop.gui.key_grabs import KeyGrabs
from aria_desktop.gui.keyspec import HotkeySpec

__all__ = ["GlobalHotkeys", "HotkeyCallback"]

_LOGGER = logging.getLogger(__name__)

HotkeyCallback = Callable[[str, str], None]
"""``(action, "press" | "release")``, called on the asyncio loop's thread."""

_TRAY_HINT = "Use the tray menu instead."


@dataclass
class _Binding:
    action: str
    spec: HotkeySpec
    keys: frozenset[Any] = frozenset()
    active: bool = False


@dataclass
class _State:
    pressed: set[Any] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)


def session_problem(env: Mapping[str, str] | None = None) -> str | None:
    """Why global hotkeys cannot work in this session, or None when they can."""
    env = os.environ if env is None else env
    if not env.get("DISPLAY"):
        if env.get("WAYLAND_DISPLAY"):
            return (
                "Global hotkeys are not available on this Wayland desktop (it does not let "
                f"apps read keys). {_TRAY_HINT}"
            )
        return f"Global hotkeys need an X11 display. {_TRAY_HINT}"
    return None


class GlobalHotkeys:
    """Reads the configured combinations system-wide and reports presses and releases."""

    def __init__(self, loop: asyncio.AbstractEventLoop, callback: HotkeyCallback) -> None:
        self._loop = loop
        self._callback = callback
        self._listener: Any = None
        self._bindings: list[_Binding] = []
        self._state = _State()
        self._grabs = KeyGrabs()
        self.status = "Global hotkeys are off."
        self.working = False

    def start(self, bindings: Mapping[str, HotkeySpec | None]) -> bool:
        """Start listening for ``action -> combination``; False (see ``status``) if impossible."""
        self.stop()
        wanted = {action: spec for action, spec in bindings.items() if spec is not None}
        if not wanted:
            self.status = "No global hotkeys are set."
            return False
        problem = session_problem()
        if problem is not None:
            return self._fail(problem)
        try:
            from pynput import keyboard
        except Exception as exc:  # pynput raises ImportError subclasses and Xlib errors
            return self._fail(f"Global hotkeys are unavailable here ({exc}). {_TRAY_HINT}")
        self._bindings = []
        for action, spec in wanted.items():
            try:
                keys = frozenset(keyboard.HotKey.parse(spec.pynput))
            except ValueError as exc:
                return self._fail(f"The hotkey {spec.text} cannot be used: {exc}.")
            self._bindings.append(_Binding(action=action, spec=spec, keys=keys))
        listener = keyboard.Listener(on_press=self._on_press, on_release=self._on_release)
        listener.name = "aria-hotkeys"
        listener.daemon = True
        self._listener = listener
        try:
            listener.start()
            listener.wait()  # until X RECORD is set up (milliseconds)
        except Exception as exc:
            self.stop()
            return self._fail(f"ARIA could not read the keyboard ({exc}). {_TRAY_HINT}")
        if not listener.running:
            self.stop()
            return self._fail(f"This session does not let ARIA read keys. {_TRAY_HINT}")
        self.working = True
        shared = self._grabs.grab([b.spec for b in self._bindings])
        if shared:
            _LOGGER.info("Also used by another program (it sees them too): %s", ", ".join(shared))
        self.status = "Global hotkeys: " + ", ".join(
            f"{b.spec.text} ({b.action.replace('_', ' ')})" for b in self._bindings
        )
        _LOGGER.info("%s", self.status)
        return True

    def stop(self) -> None:
        """Stop listening (the thread ends at the next X event; it is not joined here)."""
        listener, self._listener = self._listener, None
        self.working = False
        self._grabs.release()
        if listener is not None:
            listener.stop()

    def _fail(self, message: str) -> bool:
        self.status = message
        self.working = False
        _LOGGER.warning("%s", message)
        return False

    # --- pynput's thread ---------------------------------------------------------------------

    def _canonical(self, key: Any) -> Any:
        listener = self._listener
        return listener.canonical(key) if listener is not None else key

    def _on_press(self, key: Any) -> None:
        self._on_key(key, down=True)

    def _on_release(self, key: Any) -> None:
        self._on_key(key, down=False)

    def _on_key(self, key: Any, *, down: bool) -> None:
        """Track the held keys and post each binding that goes down or up with this key.

        A binding goes down when all its keys are held, and up when one of them is released;
        each edge is posted once, however long the keys stay held.
        """
        canonical = self._canonical(key)
        fired: list[str] = []
        with self._state.lock:
            pressed = self._state.pressed
            if down:
                pressed.add(canonical)
            else:
                pressed.discard(canonical)
            for binding in self._bindings:
                edge = binding.keys <= pressed if down else canonical in binding.keys
                if binding.active != down and edge:
                    binding.active = down
                    fired.append(binding.action)
        for action in fired:
            self._post(action, "press" if down else "release")

    def _post(self, action: str, kind: str) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed while a key was held
            self._loop.call_soon_threadsafe(self._callback, action, kind)
