"""Value types of computer use: screen geometry, screen text, windows, actions, decisions.

All coordinates are integer **physical pixels of the virtual screen** (the union of all
monitors, origin at the top-left of the bounding box as X11 reports it) unless a name says
otherwise (``model_`` values are pixels of the scaled image the model saw). Only the standard
library is used: the core, the adapters and the front-ends all exchange these. The tools a
model is offered to act with, and how their calls read, are in ``domain.computer_tools``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "ActionClass",
    "ActionContext",
    "ActionKind",
    "ComputerAction",
    "ComputerDecision",
    "ComputerTaskStatus",
    "Grounding",
    "Monitor",
    "OcrBlock",
    "OcrLine",
    "OcrWord",
    "Point",
    "Rect",
    "ScreenElement",
    "ScreenText",
    "Screenshot",
    "TextMatch",
    "WindowInfo",
]

ActionKind = Literal[
    "move",
    "click",
    "double_click",
    "right_click",
    "drag",
    "scroll",
    "type",
    "key",
    "screenshot",
    "read",
    "find",
    "wait",
]
ActionClass = Literal["read_only", "reversible", "consequential"]
ComputerTaskStatus = Literal[
    "complete",
    "aborted",
    "target_changed",
    "stuck",
    "error",
    "budget_exhausted",
    "timed_out",
]
POINTER_KINDS: frozenset[str] = frozenset(
    {"move", "click", "double_click", "right_click", "drag", "scroll"}
)
"""Action kinds that act at a screen point."""
READ_ONLY_KINDS: frozenset[str] = frozenset({"screenshot", "read", "find", "wait"})
"""Action kinds that only look."""


@dataclass(frozen=True)
class Point:
    """A screen point in physical pixels."""

    x: int
    y: int


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle in pixels: ``x``/``y`` top-left, ``width``/``height`` size."""

    x: int
    y: int
    width: int
    height: int

    @property
    def right(self) -> int:
        """First column to the right of the rectangle (exclusive)."""
        return self.x + self.width

    @property
    def bottom(self) -> int:
        """First row below the rectangle (exclusive)."""
        return self.y + self.height

    @property
    def center(self) -> Point:
        """The centre, rounded down to whole pixels."""
        return Point(self.x + self.width // 2, self.y + self.height // 2)

    def contains(self, point: Point) -> bool:
        """Whether ``point`` lies inside (right and bottom edges excluded)."""
        return self.x <= point.x < self.right and self.y <= point.y < self.bottom

    def intersection(self, other: Rect) -> Rect | None:
        """The overlap with ``other``, or None when they do not overlap."""
        left, top = max(self.x, other.x), max(self.y, other.y)
        right, bottom = min(self.right, other.right), min(self.bottom, other.bottom)
        if right <= left or bottom <= top:
            return None
        return Rect(left, top, right - left, bottom - top)

    def expanded(self, margin_px: int) -> Rect:
        """This rectangle grown by ``margin_px`` on every side."""
        return Rect(
            self.x - margin_px,
            self.y - margin_px,
            self.width + 2 * margin_px,
            self.height + 2 * margin_px,
        )

    def as_list(self) -> list[int]:
        """``[x, y, width, height]`` (JSON form)."""
        return [self.x, self.y, self.width, self.height]


@dataclass(frozen=True, kw_only=True)
class Monitor:
    """One monitor (``index`` from 1 as mss numbers them) and where it sits on the screen."""

    index: int
    rect: Rect
    primary: bool = False


@dataclass(frozen=True, kw_only=True)
class Screenshot:
    """A captured screen area.

    Attributes:
        png: the image, PNG-encoded, at physical resolution (``region.width`` x
            ``region.height`` pixels).
        region: the captured area of the virtual screen, physical pixels.
        monitor: 0 for all monitors, else the monitor index.
        captured_at: wall-clock UNIX seconds.
        capture_ms: how long the grab took, milliseconds.
    """

    png: bytes = field(repr=False)
    region: Rect
    monitor: int = 0
    captured_at: float = 0.0
    capture_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class OcrWord:
    """One recognised word.

    Attributes:
        text: the word as read.
        confidence: Tesseract's confidence, 0..100.
        box: where it is, physical screen pixels.
        block, line: ids of its block and line in the ``ScreenText``.
    """

    text: str
    confidence: float
    box: Rect
    block: int
    line: int


@dataclass(frozen=True, kw_only=True)
class _OcrGroup:
    """What a line and a block share: their number, the text they read and where it is."""

    id: int
    text: str
    box: Rect


@dataclass(frozen=True, kw_only=True)
class OcrLine(_OcrGroup):
    """Words on one text line, left to right (``text`` joins them with single spaces)."""

    block: int
    words: tuple[OcrWord, ...]


@dataclass(frozen=True, kw_only=True)
class OcrBlock(_OcrGroup):
    """A block of lines as Tesseract's layout analysis found it."""

    lines: tuple[OcrLine, ...]


@dataclass(frozen=True, kw_only=True)
class ScreenElement:
    """A run of words read as one label (a button caption, a field label), numbered for models.

    Attributes:
        id: number from 1, in reading order (top to bottom, left to right).
        text: the words.
        box: where they are, physical pixels.
        confidence: lowest word confidence, 0..100.
    """

    id: int
    text: str
    box: Rect
    confidence: float


@dataclass(frozen=True, kw_only=True)
class ScreenText:
    """What OCR read in a screen area.

    Attributes:
        region: the area read, physical pixels.
        words, lines, blocks: the text at three levels of grouping.
        elements: word runs separated by wide gaps (what a model can point at by number).
        ocr_ms: recognition time, milliseconds.
    """

    region: Rect
    words: tuple[OcrWord, ...] = ()
    lines: tuple[OcrLine, ...] = ()
    blocks: tuple[OcrBlock, ...] = ()
    elements: tuple[ScreenElement, ...] = ()
    ocr_ms: float = 0.0

    @property
    def text(self) -> str:
        """All lines, one per line of text."""
        return "\n".join(line.text for line in self.lines)

    def element(self, element_id: int) -> ScreenElement | None:
        """The element numbered ``element_id``, or None."""
        for element in self.elements:
            if element.id == element_id:
                return element
        return None


@dataclass(frozen=True, kw_only=True)
class TextMatch:
    """One place where a phrase was found.

    Attributes:
        text: the text found there.
        box: its box, physical pixels; center: where a click should land.
        score: similarity to the query, 0..1 (1 = same text ignoring case and spacing).
        exact: the normalised texts are equal.
    """

    text: str
    box: Rect
    center: Point
    score: float
    exact: bool


@dataclass(frozen=True, kw_only=True)
class Grounding:
    """The answer to "where on screen is this text?".

    Attributes:
        query: what was looked for.
        status: ``found`` (exactly one best match), ``ambiguous`` (several equally good: never
            guessed), ``not_found``.
        matches: candidates, best first (all of them when ambiguous).
    """

    query: str
    status: Literal["found", "ambiguous", "not_found"]
    matches: tuple[TextMatch, ...] = ()

    @property
    def best(self) -> TextMatch | None:
        """The match when ``status`` is ``found``, else None."""
        return self.matches[0] if self.status == "found" and self.matches else None

    def as_json(self) -> dict[str, Any]:
        """JSON form (the CLI's ``--json`` and the chat tool ``screen_find`` print the same)."""
        return {
            "query": self.query,
            "status": self.status,
            "matches": [
                {
                    "text": m.text,
                    "box": m.box.as_list(),
                    "center": [m.center.x, m.center.y],
                    "score": m.score,
                    "exact": m.exact,
                }
                for m in self.matches
            ],
        }


@dataclass(frozen=True, kw_only=True)
class WindowInfo:
    """Facts about a top-level window.

    Attributes:
        window_id: the windowing system's id.
        title: window title ("" if none).
        app: application class (X11 WM_CLASS class, "" if unknown).
        process: executable name of the owning process ("" if unknown).
        pid: owning process id, None if unknown.
        geometry: where it is, physical pixels.
        elevated: the process or one of its descendants runs as root (root terminals).
    """

    window_id: int
    title: str
    app: str = ""
    process: str = ""
    pid: int | None = None
    geometry: Rect = field(default_factory=lambda: Rect(0, 0, 0, 0))
    elevated: bool = False


@dataclass(frozen=True, kw_only=True)
class ComputerAction:
    """One thing to do with the mouse or keyboard (or to look at the screen).

    Attributes:
        kind: what to do (see ``ActionKind``).
        x, y: target point, physical pixels (pointer actions; None for keyboard-only actions).
        to_x, to_y: drag end point, physical pixels.
        text: text to type (``type``).
        keys: key combination, pressed in order and released in reverse (``key``), e.g.
            ``("ctrl", "s")``.
        amount: scroll clicks, positive = up (``scroll``); seconds for ``wait``.
        target: what the proposer says it is aiming at (e.g. "Send button"); used by the
            policy alongside what is actually on screen there.
    """

    kind: ActionKind
    x: int | None = None
    y: int | None = None
    to_x: int | None = None
    to_y: int | None = None
    text: str = field(default="", repr=False)
    keys: tuple[str, ...] = ()
    amount: float = 0
    target: str = ""

    @property
    def point(self) -> Point | None:
        """The target point, if the action has one."""
        if self.x is None or self.y is None:
            return None
        return Point(self.x, self.y)

    def describe(self) -> str:
        """Plain words for confirmation dialogs and logs (typed text shown by length only)."""
        where = f" at ({self.x}, {self.y})" if self.point is not None else ""
        aim = f" on {self.target!r}" if self.target else ""
        if self.kind == "type":
            return f"type {len(self.text)} characters{aim}{where}"
        if self.kind == "key":
            return f"press {'+'.join(self.keys)}{aim}"
        if self.kind == "drag":
            return f"drag{aim}{where} to ({self.to_x}, {self.to_y})"
        if self.kind == "scroll":
            return f"scroll {'up' if self.amount > 0 else 'down'} {abs(self.amount):g}{where}"
        return f"{self.kind.replace('_', ' ')}{aim}{where}"

    def redacted(self) -> dict[str, Any]:
        """JSON form for events and the audit log: typed text is never included."""
        data: dict[str, Any] = {"kind": self.kind}
        for name in ("x", "y", "to_x", "to_y"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        if self.kind == "type":
            data["text_chars"] = len(self.text)
        if self.keys:
            data["keys"] = list(self.keys)
        if self.amount:
            data["amount"] = self.amount
        if self.target:
            data["target"] = self.target[:200]
        return data


@dataclass(frozen=True, kw_only=True)
class ActionContext:
    """What is on screen where an action would land, gathered just before deciding.

    Attributes:
        window: the top-level window at the target point (or the focused window for keyboard
            actions); None when unknown.
        screen: the virtual screen's bounds, physical pixels.
        target_text: text on screen at the target point ("" when none is there).
        nearby_text: text around the target (labels left of or above a field).
        focused_password: accessibility's answer to "is the focused element a password
            field?"; None when no accessibility information is available.
        own_pids: process ids of ARIA itself (its own windows are never operated).
    """

    window: WindowInfo | None = None
    screen: Rect = field(default_factory=lambda: Rect(0, 0, 0, 0))
    target_text: str = ""
    nearby_text: str = ""
    focused_password: bool | None = None
    own_pids: frozenset[int] = frozenset()


@dataclass(frozen=True, kw_only=True)
class ComputerDecision:
    """The computer-use policy's verdict on one action.

    Attributes:
        verdict: allow, deny or confirm (confirmation out of band; no answer = deny).
        rule: the rule that decided (named in denials, events and the audit log).
        reason: plain words.
        action_class: read_only, reversible or consequential.
        action: the action to perform if allowed (coordinates may have been clamped away from
            the screen corners).
    """

    verdict: Literal["allow", "deny", "confirm"]
    rule: str
    reason: str
    action_class: ActionClass
    action: ComputerAction


@dataclass(frozen=True, kw_only=True)
class ComputerActionOutcome:
    """How one action ended (``ClickText`` returns this; the agent loop tells the model).

    Attributes:
        status: ok, denied, error, aborted or target_changed.
        action: the action as performed or refused (typed text redacted).
        rule: the policy rule that decided.
        detail: plain words (why it was denied or failed, what was done).
        dry_run: recorded, not performed.
    """

    status: Literal["ok", "denied", "error", "aborted", "target_changed"]
    action: dict[str, Any]
    rule: str = ""
    detail: str = ""
    dry_run: bool = False


@dataclass(frozen=True, kw_only=True)
class ComputerTaskStarted:
    """A started computer-use task (the task runs on in the background).

    Attributes:
        run_id: carried by every event of the task, so a front-end can follow just this one.
    """

    run_id: str


@dataclass(frozen=True, kw_only=True)
class Observation:
    """One look at the screen, as a model is shown it.

    Attributes:
        id: identifies the observation (re-verification compares against it).
        screenshot: the capture at physical resolution.
        model_png: the image scaled for the model (``model_width`` x ``model_height`` px).
        text: what OCR read (None when not requested).
        windows: visible top-level windows, topmost first, at capture time.
        active: the window receiving keyboard input at capture time.
        signature: a tiny grayscale rendering, to tell "same screen as before" cheaply.
    """

    id: int
    screenshot: Screenshot
    model_png: bytes = field(repr=False)
    model_width: int
    model_height: int
    text: ScreenText | None = None
    windows: tuple[WindowInfo, ...] = ()
    active: WindowInfo | None = None
    signature: bytes = field(default=b"", repr=False)


@dataclass(frozen=True, kw_only=True)
class TargetExpectation:
    """What must still be true just before acting (else the action aborts: target_changed).

    Attributes:
        id: identifies the stored pixels of ``region`` as the model saw them.
        window_id, title: the window at the target (or the active one for keys) when seen.
        region: the target area, physical pixels (None for keyboard actions).
    """

    id: int
    window_id: int | None
    title: str
    region: Rect | None
