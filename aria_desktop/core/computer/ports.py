"""Ports of computer use: the screen and input backend, the action policy, audit thumbnails."""

from __future__ import annotations

from typing import Protocol

from aria_desktop.domain.computer import (
    ActionContext,
    ComputerAction,
    ComputerDecision,
    Grounding,
    Observation,
    Point,
    Rect,
    Screenshot,
    ScreenText,
    TargetExpectation,
    WindowInfo,
)

__all__ = ["ActionPolicy", "ComputerPort", "ThumbnailSink"]


class ComputerPort(Protocol):
    """Screen, OCR, window facts and input (``computer.controller.DesktopController``).

    Every method except ``abort`` blocks and runs in a worker thread; ``abort`` is thread-safe
    and returns at once (the kill switch calls it while an action runs).
    """

    def screen_bounds(self) -> Rect: ...

    def capture(self, monitor: int = 0) -> Screenshot: ...

    def observe(
        self, *, monitor: int = 0, longest_side_px: int = 1280, ocr: bool = True
    ) -> Observation: ...

    def to_physical(self, observation: Observation, point: Point) -> Point: ...

    def read(self, region: Rect | None = None) -> ScreenText: ...

    def find(self, text: str, region: Rect | None = None) -> Grounding: ...

    def ground(self, text: ScreenText, query: str) -> Grounding:
        """Where ``query`` is in already-read ``text`` (pure; no I/O)."""
        ...

    def context_for(
        self, action: ComputerAction, observation: Observation | None
    ) -> ActionContext: ...

    def expect(
        self, action: ComputerAction, observation: Observation | None
    ) -> TargetExpectation: ...

    def verify(self, expectation: TargetExpectation, action: ComputerAction) -> None:
        """Raise ``TargetChangedError`` when the target is no longer what was seen."""
        ...

    def perform(self, action: ComputerAction, *, dry_run: bool) -> str: ...

    def abort(self) -> None: ...

    def release_all(self) -> None: ...

    def reset(self) -> None: ...


class ActionPolicy(Protocol):
    """The computer-use safety policy (``computer.policy.ComputerPolicy``): pure decisions."""

    def evaluate(
        self, action: ComputerAction, context: ActionContext, *, task_id: str, now_s: float
    ) -> ComputerDecision: ...

    def protection(self, window: WindowInfo) -> str | None: ...

    def end_task(self, task_id: str) -> None: ...


class ThumbnailSink(Protocol):
    """Stores small screenshots for the audit log (``computer.thumbnails.ThumbnailStore``)."""

    def save(self, png: bytes, *, label: str) -> str:
        """Store a thumbnail; returns its name ("" when thumbnails are off)."""
        ...
