"""Computer-use events: control switched on or off, and each task and action as it runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from aria_desktop.domain.events import Event


@dataclass(frozen=True, kw_only=True)
class ComputerControlChanged(Event):
    """Computer control was switched on or off (the GUI overlay and tray item follow it)."""

    type: ClassVar[str] = "computer-control-changed"
    enabled: bool


@dataclass(frozen=True, kw_only=True)
class ComputerTaskStart(Event):
    """A computer-use task began.

    Attributes:
        task: the user's words.
        dry_run: actions are decided and recorded but not performed.
        mode: ``vision`` (screenshots to the model) or ``text`` (numbered OCR elements).
        backend, model: who drives it (fixed for the task: no silent fallback).
    """

    type: ClassVar[str] = "computer-task-start"
    task: str
    dry_run: bool = False
    mode: str = "text"
    backend: str = ""
    model: str = ""


@dataclass(frozen=True, kw_only=True)
class ComputerTaskEnd(Event):
    """A computer-use task ended (always published).

    Attributes:
        status: complete, aborted, target_changed, stuck, error, budget_exhausted, timed_out.
        steps: model calls made; actions: actions performed (or recorded in a dry run).
        summary: the model's closing words, or why it stopped.
        latency_ms: from start to end, milliseconds.
    """

    type: ClassVar[str] = "computer-task-end"
    status: str
    steps: int = 0
    actions: int = 0
    summary: str = ""
    latency_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class ComputerActionStart(Event):
    """An action was proposed and the policy decided on it (execution follows unless denied).

    Attributes:
        action_id: identifies the action (pairs with ``computer-action-end``).
        action: the action, typed text redacted (``ComputerAction.redacted``).
        summary: plain words.
        action_class: read_only, reversible or consequential.
        verdict, rule: the policy's decision and the rule that made it.
        dry_run: nothing will really be performed.
    """

    type: ClassVar[str] = "computer-action-start"
    action_id: str
    action: dict[str, Any]
    summary: str
    action_class: str
    verdict: str
    rule: str
    dry_run: bool = False


@dataclass(frozen=True, kw_only=True)
class ComputerActionEnd(Event):
    """An action finished: ``status`` ok, denied, error, aborted or target_changed."""

    type: ClassVar[str] = "computer-action-end"
    action_id: str
    status: str
    detail: str = ""
    latency_ms: float = 0.0
