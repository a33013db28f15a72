"""Live settings and model warm-up events (ARCHITECTURE.md: settings applied live)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from aria_desktop.domain.events import Event
from aria_desktop.domain.locality import Locality

ModelLoadState = Literal["loading", "ready", "failed"]


@dataclass(frozen=True, kw_only=True)
class ModelStatus(Event):
    """The local chat model's load state (the tray's "Loading model…", "model" capability).

    ``trigger``: start, wake, settings or reply; ``load_ms``: the load time;
    ``code``/``error``/``hint``: why it failed and what to do.
    """

    type: ClassVar[str] = "model-status"
    status: ModelLoadState
    backend: str = ""
    model: str = ""
    trigger: str = ""
    load_ms: float = 0.0
    code: str = ""
    error: str = ""
    hint: str = ""


@dataclass(frozen=True, kw_only=True)
class SettingsApplied(Event):
    """Changed ``sections`` took effect without a restart: the next turn uses them.

    ``backend``, ``model``, ``locality``: the chat chain's first backend now (the badge);
    ``restart_needed``: changed sections that wait for a restart.
    """

    type: ClassVar[str] = "settings-applied"
    sections: tuple[str, ...] = ()
    backend: str = ""
    model: str = ""
    locality: Locality | Literal[""] = ""
    restart_needed: tuple[str, ...] = ()
