"""Bodies of computer use: screenshots, OCR, grounding, clicks, tasks and control."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from aria_desktop.api.server.schemas.common import StrictTypes
from aria_desktop.domain.computer import ComputerActionOutcome, Grounding, ScreenText

__all__ = [
    "ClickOut",
    "ComputerControlIn",
    "ComputerControlOut",
    "DoIn",
    "DoOut",
    "GroundingOut",
    "OcrBlockOut",
    "OcrLineOut",
    "OcrWordOut",
    "RegionIn",
    "ScreenClickIn",
    "ScreenElementOut",
    "ScreenFindIn",
    "ScreenOcrIn",
    "ScreenShotIn",
    "ScreenTextOut",
    "TextMatchOut",
]


_PX = 100_000
"""Largest coordinate or size accepted, physical pixels (far beyond any real screen)."""


class RegionIn(StrictTypes):
    """A screen area, physical pixels of the virtual screen (clipped to the screen)."""

    x: int = Field(ge=0, le=_PX)
    y: int = Field(ge=0, le=_PX)
    width: int = Field(ge=1, le=_PX)
    height: int = Field(ge=1, le=_PX)

    def as_tuple(self) -> tuple[int, int, int, int]:
        """``(x, y, width, height)`` as the commands take it."""
        return (self.x, self.y, self.width, self.height)


class ScreenShotIn(StrictTypes):
    """Which screen to capture: 0 = all monitors (default), 1.. = one monitor."""

    monitor: int = Field(default=0, ge=0, le=16)


class ScreenOcrIn(StrictTypes):
    """Read the whole screen, or only ``region``.

    ``unless_protected``: the whole screen, refused (409) while a window the computer policy
    protects is visible (what ARIA's MCP server asks for other programs).
    """

    region: RegionIn | None = None
    unless_protected: bool = False


class ScreenFindIn(StrictTypes):
    """Find ``text`` on screen (case and spacing ignored, fuzzy), optionally in ``region``."""

    text: str = Field(min_length=1, max_length=500, pattern=r"\S")
    region: RegionIn | None = None


class ScreenClickIn(StrictTypes):
    """Click ``text`` through the safety policy; ``dry_run`` decides and records, does nothing."""

    text: str = Field(min_length=1, max_length=500, pattern=r"\S")
    dry_run: bool = False


class OcrWordOut(BaseModel):
    """One word: ``box`` is ``[x, y, width, height]`` in physical pixels, confidence 0..100."""

    text: str
    confidence: float
    box: list[int]
    line: int


class OcrLineOut(BaseModel):
    """One line of text and its box (physical pixels)."""

    id: int
    text: str
    box: list[int]
    block: int


class OcrBlockOut(BaseModel):
    """A block of lines and its box (physical pixels)."""

    id: int
    text: str
    box: list[int]


class ScreenElementOut(BaseModel):
    """A label-like run of words, numbered in reading order (what models point at)."""

    id: int
    text: str
    box: list[int]
    confidence: float


class ScreenTextOut(BaseModel):
    """What OCR read: ``region`` read, elements, lines, blocks and words (``ocr_ms`` to read)."""

    region: list[int]
    ocr_ms: float
    text: str
    elements: list[ScreenElementOut]
    lines: list[OcrLineOut]
    blocks: list[OcrBlockOut]
    words: list[OcrWordOut]

    @classmethod
    def of(cls, text: ScreenText) -> ScreenTextOut:
        """From the domain value."""
        return cls(
            region=text.region.as_list(),
            ocr_ms=round(text.ocr_ms, 1),
            text=text.text,
            elements=[
                ScreenElementOut(id=e.id, text=e.text, box=e.box.as_list(), confidence=e.confidence)
                for e in text.elements
            ],
            lines=[
                OcrLineOut(id=ln.id, text=ln.text, box=ln.box.as_list(), block=ln.block)
                for ln in text.lines
            ],
            blocks=[OcrBlockOut(id=b.id, text=b.text, box=b.box.as_list()) for b in text.blocks],
            words=[
                OcrWordOut(text=w.text, confidence=w.confidence, box=w.box.as_list(), line=w.line)
                for w in text.words
            ],
        )


class TextMatchOut(BaseModel):
    """Where the text is.

    ``box`` is ``[x, y, w, h]`` and ``center`` ``[x, y]``, physical pixels; ``score`` is the
    similarity to the query, 0..1.
    """

    text: str
    box: list[int]
    center: list[int]
    score: float
    exact: bool


class GroundingOut(BaseModel):
    """Where a text is on screen.

    ``found`` (one best match), ``ambiguous`` (every candidate listed: ARIA never guesses) or
    ``not_found``.
    """

    query: str
    status: Literal["found", "ambiguous", "not_found"]
    matches: list[TextMatchOut]

    @classmethod
    def of(cls, grounding: Grounding) -> GroundingOut:
        """From the domain value."""
        return cls(
            query=grounding.query,
            status=grounding.status,
            matches=[
                TextMatchOut(
                    text=m.text,
                    box=m.box.as_list(),
                    center=[m.center.x, m.center.y],
                    score=m.score,
                    exact=m.exact,
                )
                for m in grounding.matches
            ],
        )


class ClickOut(BaseModel):
    """How a click ended.

    ``ok`` (done, or recorded with ``dry_run``) or ``denied`` (by the policy rule ``rule``, or
    the user declined or did not answer the confirmation in time).
    """

    status: Literal["ok", "denied"]
    action: dict[str, Any]
    rule: str = ""
    detail: str = ""
    dry_run: bool = False

    @classmethod
    def of(cls, outcome: ComputerActionOutcome) -> ClickOut:
        """From the domain value (only ``ok``/``denied``; the route maps the rest to errors)."""
        return cls(
            status="ok" if outcome.status == "ok" else "denied",
            action=outcome.action,
            rule=outcome.rule,
            detail=outcome.detail,
            dry_run=outcome.dry_run,
        )


class DoIn(StrictTypes):
    """A task for ARIA to do on the screen, in the user's words."""

    task: str = Field(min_length=1, max_length=10_000, pattern=r"\S")
    dry_run: bool = False
    backend: Literal["ollama", "anthropic", "openai"] | None = None


class DoOut(BaseModel):
    """A started computer-use task: follow it on ``GET /events`` by ``run_id``."""

    run_id: str
    events: list[str] = Field(
        default_factory=lambda: [
            "computer-task-start",
            "computer-action-start",
            "action-confirm-request",
            "computer-action-end",
            "untrusted-content-flagged",
            "computer-task-end",
        ]
    )


class ComputerControlIn(StrictTypes):
    """Switch computer control (real mouse and keyboard) on or off."""

    enabled: bool


class ComputerControlOut(BaseModel):
    """Whether computer control is on, and whether computer use can work here (and why not)."""

    enabled: bool
    available: bool
    reason: str = ""
