"""Global hotkey specifications: parse the Qt-style text users see ("Ctrl+Alt+Space").

Pure Python (no Qt, no pynput), so settings validation can use it without a display.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HotkeySpec", "HotkeySpecError", "parse_hotkey"]

_MODIFIERS = {
    "ctrl": "ctrl",
    "control": "ctrl",
    "alt": "alt",
    "shift": "shift",
    "meta": "cmd",
    "super": "cmd",
    "win": "cmd",
}
_MODIFIER_ORDER = ("ctrl", "alt", "shift", "cmd")
_NAMED_KEYS = {
    "space": "space",
    "esc": "esc",
    "escape": "esc",
    "tab": "tab",
    "return": "enter",
    "enter": "enter",
    "backspace": "backspace",
    "del": "delete",
    "delete": "delete",
    "ins": "insert",
    "insert": "insert",
    "home": "home",
    "end": "end",
    "pgup": "page_up",
    "pageup": "page_up",
    "pgdown": "page_down",
    "pagedown": "page_down",
    "up": "up",
    "down": "down",
    "left": "left",
    "right": "right",
    "pause": "pause",
    "print": "print_screen",
}
_DISPLAY = {"cmd": "Meta", "ctrl": "Ctrl", "alt": "Alt", "shift": "Shift"}


class HotkeySpecError(ValueError):
    """A hotkey text that cannot be used (the message says why, in plain words)."""


@dataclass(frozen=True, kw_only=True)
class HotkeySpec:
    """A parsed hotkey.

    Attributes:
        modifiers: canonical modifier names (ctrl, alt, shift, cmd), in a fixed order.
        key: the main key: one lower-case character, or a pynput key name (``space``, ``f5``).
    """

    modifiers: tuple[str, ...]
    key: str

    @property
    def pynput(self) -> str:
        """The combination in pynput's ``HotKey.parse`` syntax (``<ctrl>+<alt>+<space>``)."""
        parts = [f"<{m}>" for m in self.modifiers]
        parts.append(self.key if len(self.key) == 1 else f"<{self.key}>")
        return "+".join(parts)

    @property
    def text(self) -> str:
        """The combination as Qt shows it (``Ctrl+Alt+Space``)."""
        parts = [_DISPLAY[m] for m in self.modifiers]
        key = self.key.upper() if len(self.key) == 1 else self.key.replace("_", " ").title()
        return "+".join([*parts, key.replace(" ", "")])


def parse_hotkey(text: str) -> HotkeySpec | None:
    """Parse ``Ctrl+Alt+Space``-style text; "" means "no hotkey" (None).

    Raises:
        HotkeySpecError: unknown key, no modifier (it would fire while typing), or no main key.
    """
    cleaned = text.strip()
    if not cleaned:
        return None
    if cleaned.endswith("++"):  # "Ctrl++": the plus key
        cleaned = cleaned[:-2] + "+plus"
    modifiers: set[str] = set()
    key: str | None = None
    for raw in cleaned.split("+"):
        part = raw.strip().lower()
        if not part:
            raise HotkeySpecError(f"'{text}' has an empty part; write it like Ctrl+Alt+Space.")
        if part in _MODIFIERS:
            modifiers.add(_MODIFIERS[part])
            continue
        if key is not None:
            raise HotkeySpecError(f"'{text}' has two main keys; use one key plus modifiers.")
        if part == "plus":
            key = "+"
        elif len(part) == 1 and part.isprintable():
            key = part
        elif part in _NAMED_KEYS:
            key = _NAMED_KEYS[part]
        elif part.startswith("f") and part[1:].isdigit() and 1 <= int(part[1:]) <= 20:
            key = part
        else:
            raise HotkeySpecError(f"'{raw.strip()}' in '{text}' is not a key ARIA knows.")
    if key is None:
        raise HotkeySpecError(f"'{text}' has no main key; add one, e.g. Ctrl+Alt+Space.")
    if not modifiers and not (key.startswith("f") and len(key) > 1):
        raise HotkeySpecError(f"'{text}' needs Ctrl, Alt or Meta, or it would fire while you type.")
    ordered = tuple(m for m in _MODIFIER_ORDER if m in modifiers)
    return HotkeySpec(modifiers=ordered, key=key)
