"""Icons from ``resources/icons`` (SVG, rendered by Qt at any size)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QIcon

from aria_desktop.domain.events import AssistantState

__all__ = ["NO_MODEL", "STATES", "IconSet"]

STATES: tuple[AssistantState, ...] = (
    "idle",
    "listening",
    "thinking",
    "speaking",
    "acting",
    "muted",
    "error",
    "offline",
)

NO_MODEL = "no-model"
"""Not a state of the assistant but of the tray: ready, yet no model can answer."""
_SHOWN: tuple[str, ...] = (*STATES, NO_MODEL)


class IconSet:
    """The app icon and one tray icon per assistant state, loaded once."""

    def __init__(self, icons_dir: Path) -> None:
        self.icons_dir = icons_dir
        missing = [
            name
            for name in ("aria.svg", *(f"state-{state}.svg" for state in _SHOWN))
            if not (icons_dir / name).is_file()
        ]
        if missing:
            raise FileNotFoundError(f"icons missing from {icons_dir}: {', '.join(missing)}")
        self.app = QIcon(str(icons_dir / "aria.svg"))
        self._states = {state: QIcon(str(icons_dir / f"state-{state}.svg")) for state in _SHOWN}

    def for_state(self, state: str) -> QIcon:
        """The tray icon of ``state`` (unknown states show the idle icon)."""
        icon = self._states.get(state)
        return icon if isinstance(icon, QIcon) else self._states["idle"]
