"""What the computer-use core is told at composition: its settings and its candidate models."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

__all__ = ["ComputerConfig", "ModelChoice"]


@dataclass(frozen=True, kw_only=True)
class ModelChoice:
    """A model that may drive computer use.

    Attributes:
        backend: router backend name ("ollama", "anthropic", "openai").
        model: the model id (for events).
        vision: it accepts screenshots, as configured.
        cloud: it runs off this machine (needs the user's cloud consent).
        capabilities: asks what the model can do as its server reports it (learned once per
            model by the backend, ARCHITECTURE.md: model window), so screenshots go only to a
            model that really has vision; None trusts ``vision``.
    """

    backend: str
    model: str
    vision: bool
    cloud: bool
    capabilities: Callable[[], Awaitable[frozenset[str]]] | None = field(
        default=None, compare=False, repr=False
    )


@dataclass(frozen=True, kw_only=True)
class ComputerConfig:
    """Computer-use settings the core needs (from the ``[computer]`` settings section)."""

    enabled: bool = False
    """Computer control on at start (off by default: the user turns it on)."""
    monitor: int = 0
    """0 = all monitors, else the monitor shown to the model."""
    longest_side_px: int = 1280
    """Screenshots for models are scaled to this longest side, pixels."""
    max_steps: int = 25
    """Model calls per task."""
    task_deadline_s: float = 600.0
    """Wall time per task, seconds."""
    confirm_timeout_s: float = 60.0
    """Seconds a confirmation waits before counting as deny."""
    stuck_after: int = 3
    """The same screen after this many actions, or the same action this many times in a row,
    pauses the task and asks."""
    vision: str = "auto"
    """``auto`` (screenshots when the model takes images), ``on``, ``off``."""
    cloud_consent: bool = False
    """The user allowed cloud models to see the screen."""
    models: tuple[ModelChoice, ...] = ()
    """Candidate models in order of preference."""
