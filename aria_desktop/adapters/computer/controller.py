"""The desktop controller: screen, OCR, windows and input behind one object the core drives.

It satisfies ``core.ports.ComputerPort`` structurally. Every method blocks (screen grabs, OCR,
X11 round trips, input) and is meant to run in a worker thread; ``abort`` is the exception: it
is thread-safe and returns at once, so the kill switch can stop an action in flight.

Re-verification: ``expect`` remembers, at decision time, the pixels of the target area *as the
model saw them* (cropped from the observation) and the window that was there; ``verify``, just
before acting, grabs the same area again and checks the window at the target. Any difference
beyond small rendering noise raises ``TargetChangedError`` and nothing is done.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections import OrderedDict
from typing import Any

from aria_desktop.adapters.computer import imaging
from aria_desktop.adapters.computer.accessibility import AccessibilityProbe
from aria_desktop.adapters.computer.grounding import element_at, find_text
from aria_desktop.adapters.computer.input import DryRunInput, InputBackend, PyAutoGuiInput
from aria_desktop.adapters.computer.ocr import TesseractOcr
from aria_desktop.adapters.computer.screen import MssScreen, ScreenBackend, desktop_session
from aria_desktop.adapters.computer.windows import WindowBackend, XlibWindows
from aria_desktop.domain.computer import (
    POINTER_KINDS,
    ActionContext,
    ComputerAction,
    Grounding,
    Observation,
    Point,
    Rect,
    ScreenElement,
    Screenshot,
    ScreenText,
    TargetExpectation,
    WindowInfo,
)
from aria_desktop.domain.errors import ActionAbortedError, ComputerError, TargetChangedError
from aria_desktop.domain.geometry import ScaleMap

__all__ = ["DesktopController"]

_LOGGER = logging.getLogger(__name__)
_KEEP_FRAMES = 4
_CHANGED_LIMIT = 0.12
_TARGET_PAD_PX = 6
_BAND_HALF_WIDTH_PX = 420
_BAND_HALF_HEIGHT_PX = 40


class DesktopController:
    """Screen, OCR, window facts and input for computer use.

    Args:
        screen, ocr, windows: perception backends (defaults by ``desktop_session()``: mss and
            Xlib on X11; grim and sway's IPC on sway; Tesseract on both).
        live_input: the real input backend (default pyautogui on X11, created on first use;
            the virtual pointer and wtype on sway).
        dry_input: the recording backend used for dry runs.
        accessibility: asks whether the focused field is a password field before typing.
    """

    def __init__(
        self,
        *,
        screen: ScreenBackend | None = None,
        ocr: TesseractOcr | None = None,
        windows: WindowBackend | None = None,
        live_input: InputBackend | None = None,
        dry_input: DryRunInput | None = None,
        typing_interval_s: float = 0.01,
        accessibility: AccessibilityProbe | None = None,
    ) -> None:
        """Create backends lazily; nothing touches the display until used."""
        self.ocr = ocr or TesseractOcr()
        self.accessibility = accessibility or AccessibilityProbe()
        self._live = live_input
        if desktop_session() == "sway" and screen is None and windows is None:
            self.screen, self.windows = _wlroots_backends()
            if live_input is None:
                self._live = _wlroots_input(self.screen, typing_interval_s)
        else:
            self.screen = screen or MssScreen()
            self.windows = windows or XlibWindows()
        self._typing_interval_s = typing_interval_s
        self.dry_input = dry_input or DryRunInput()
        self._ids = itertools.count(1)
        self._frames: OrderedDict[int, tuple[Any, Rect]] = OrderedDict()
        self._scales: dict[int, ScaleMap] = {}
        self._expected: dict[int, Any] = {}
        self._lock = threading.Lock()
        self._abort = threading.Event()

    # --- perception ---------------------------------------------------------------------------

    def screen_bounds(self) -> Rect:
        """The virtual screen (all monitors), physical pixels."""
        return self.screen.monitor_rect(0)

    def _grab(self, region: Rect) -> Any:
        raw, width, height = self.screen.grab(region)
        return imaging.from_bgra(raw, width, height)

    def capture(self, monitor: int = 0) -> Screenshot:
        """A PNG screenshot of all monitors (0) or one, at physical resolution."""
        region = self.screen.monitor_rect(monitor)
        started = time.perf_counter()
        frame = self._grab(region)
        capture_ms = (time.perf_counter() - started) * 1000
        return Screenshot(
            png=imaging.to_png(frame),
            region=region,
            monitor=monitor,
            captured_at=time.time(),
            capture_ms=capture_ms,
        )

    def observe(
        self, *, monitor: int = 0, longest_side_px: int = 1280, ocr: bool = True
    ) -> Observation:
        """Capture, scale for the model, read the text and note the windows."""
        region = self.screen.monitor_rect(monitor)
        started = time.perf_counter()
        frame = self._grab(region)
        capture_ms = (time.perf_counter() - started) * 1000
        scale = ScaleMap.fit(region, longest_side_px)
        observation_id = next(self._ids)
        with self._lock:
            self._frames[observation_id] = (frame, region)
            self._scales[observation_id] = scale
            while len(self._frames) > _KEEP_FRAMES:
                old, _ = self._frames.popitem(last=False)
                self._scales.pop(old, None)
        text = self.ocr.read(frame, region) if ocr else None
        windows = tuple(self.windows.windows())
        png = imaging.to_png(frame)
        model_png = (
            png
            if scale.identity
            else imaging.to_png(frame, size=(scale.model_width, scale.model_height))
        )
        return Observation(
            id=observation_id,
            screenshot=Screenshot(
                png=png,
                region=region,
                monitor=monitor,
                captured_at=time.time(),
                capture_ms=capture_ms,
            ),
            model_png=model_png,
            model_width=scale.model_width,
            model_height=scale.model_height,
            text=text,
            windows=windows,
            active=self.windows.active_window(),
            signature=imaging.signature(frame),
        )

    def to_physical(self, observation: Observation, point: Point) -> Point:
        """A point in the model's scaled image as the physical pixel it showed."""
        with self._lock:
            scale = self._scales.get(observation.id)
        if scale is None:
            scale = ScaleMap(
                observation.screenshot.region, observation.model_width, observation.model_height
            )
        return scale.to_physical(point)

    def to_model(self, observation: Observation, rect: Rect) -> Rect:
        """A physical rectangle in the model's scaled image."""
        scale = ScaleMap(
            observation.screenshot.region, observation.model_width, observation.model_height
        )
        return scale.rect_to_model(rect)

    def read(self, region: Rect | None = None) -> ScreenText:
        """OCR of the whole screen or ``region`` (clipped to the screen)."""
        bounds = self.screen_bounds()
        area = bounds if region is None else region.intersection(bounds)
        if area is None:
            raise ComputerError(f"The region {region} is outside the screen {bounds}.")
        return self.ocr.read(self._grab(area), area)

    def find(self, text: str, region: Rect | None = None) -> Grounding:
        """Where ``text`` is on screen now."""
        return find_text(self.read(region), text)

    def ground(self, text: ScreenText, query: str) -> Grounding:
        """Where ``query`` is in already-read ``text``."""
        return find_text(text, query)

    # --- context and re-verification -----------------------------------------------------------

    def context_for(self, action: ComputerAction, observation: Observation | None) -> ActionContext:
        """What is at the action's target now (window, text there and next to it)."""
        screen = self.screen_bounds()
        point = action.point
        if action.kind in POINTER_KINDS and point is not None:
            window = self.windows.window_at(point)
        else:
            window = self.windows.active_window()
            point = point or self._pointer(action)
        target_text = nearby_text = ""
        if point is not None:
            text = observation.text if observation is not None and observation.text else None
            if text is None:
                band = Rect(
                    point.x - _BAND_HALF_WIDTH_PX,
                    point.y - _BAND_HALF_HEIGHT_PX,
                    2 * _BAND_HALF_WIDTH_PX,
                    2 * _BAND_HALF_HEIGHT_PX,
                ).intersection(screen)
                text = self.ocr.read(self._grab(band), band) if band else None
            if text is not None:
                target = element_at(text, point)
                target_text = target.text if target else ""
                nearby_text = " | ".join(e.text for e in _neighbours(text.elements, point, target))
        focused_password = None
        if action.kind == "type" and window is not None:
            focused_password = self.accessibility.focused_password(window.pid)
        return ActionContext(
            window=window,
            screen=screen,
            target_text=target_text,
            nearby_text=nearby_text,
            focused_password=focused_password,
            own_pids=frozenset({os.getpid()}),
        )

    def _pointer(self, action: ComputerAction) -> Point | None:
        backend = self.dry_input if self._live is None else self._live
        try:
            return backend.pointer() or self.dry_input.pointer()
        except ComputerError:
            return None

    def expect(self, action: ComputerAction, observation: Observation | None) -> TargetExpectation:
        """Remember what the target looked like when the model saw it."""
        expectation_id = next(self._ids)
        point = action.point
        if action.kind not in POINTER_KINDS or point is None:
            active = observation.active if observation is not None else self.windows.active_window()
            return TargetExpectation(
                id=expectation_id,
                window_id=active.window_id if active else None,
                title=active.title if active else "",
                region=None,
            )
        window: WindowInfo | None
        if observation is not None:
            window = next((w for w in observation.windows if w.geometry.contains(point)), None)
        else:
            window = self.windows.window_at(point)
        region = self._target_region(point, observation)
        with self._lock:
            stored = self._frames.get(observation.id) if observation is not None else None
        if stored is not None and region is not None:
            frame, origin = stored
            crop = imaging.crop(frame, region, origin)
        elif region is not None:
            crop = self._grab(region)
        else:
            crop = None
        with self._lock:
            self._expected[expectation_id] = crop
            while len(self._expected) > 16:
                self._expected.pop(next(iter(self._expected)))
        return TargetExpectation(
            id=expectation_id,
            window_id=window.window_id if window else None,
            title=window.title if window else "",
            region=region,
        )

    def _target_region(self, point: Point, observation: Observation | None) -> Rect | None:
        bounds = self.screen_bounds()
        element = (
            element_at(observation.text, point)
            if observation is not None and observation.text is not None
            else None
        )
        area = (
            element.box.expanded(_TARGET_PAD_PX)
            if element is not None
            else Rect(point.x - 30, point.y - 15, 60, 30)
        )
        if observation is not None:
            bounds = bounds.intersection(observation.screenshot.region) or bounds
        return area.intersection(bounds)

    def verify(self, expectation: TargetExpectation, action: ComputerAction) -> None:
        """Raise ``TargetChangedError`` when the target window or pixels are not as seen."""
        point = action.point
        if expectation.region is None or point is None:
            now = self.windows.active_window()
            if expectation.window_id is not None and (
                now is None
                or now.window_id != expectation.window_id
                or now.title != expectation.title
            ):
                raise TargetChangedError(
                    f"The active window changed (now {now.title if now else 'none'!r}); "
                    "nothing was typed.",
                    hint="Look at the screen again before acting.",
                )
            return
        now_window = self.windows.window_at(point)
        if (now_window.window_id if now_window else None) != expectation.window_id or (
            now_window.title if now_window else ""
        ) != expectation.title:
            raise TargetChangedError(
                f"A different window is at the target now "
                f"({now_window.title if now_window else 'none'!r}, was {expectation.title!r}); "
                "nothing was done.",
                hint="Look at the screen again before acting.",
            )
        with self._lock:
            seen = self._expected.get(expectation.id)
        if seen is None:
            return
        current = self._grab(expectation.region)
        changed = imaging.changed_fraction(seen, current)
        if changed > _CHANGED_LIMIT:
            raise TargetChangedError(
                f"The target area changed since the screen was read ({changed:.0%} of its pixels); "
                "nothing was done.",
                hint="Look at the screen again before acting.",
            )

    # --- action --------------------------------------------------------------------------------

    def live_input(self) -> InputBackend:
        """The real input backend (created on first use)."""
        if self._live is None:
            self._live = PyAutoGuiInput(typing_interval_s=self._typing_interval_s)
        return self._live

    def perform(self, action: ComputerAction, *, dry_run: bool) -> str:
        """Do ``action`` (or record it when ``dry_run``); returns what was done, in words."""
        backend: InputBackend = self.dry_input if dry_run else self.live_input()
        if self._abort.is_set():
            raise ActionAbortedError("The action was stopped.")
        kind = action.kind
        if kind in POINTER_KINDS and action.point is None:
            raise ComputerError(f"{kind} needs a target point.")
        x, y = (action.x or 0), (action.y or 0)
        if kind == "move":
            backend.move(x, y)
        elif kind == "click":
            backend.click(x, y)
        elif kind == "double_click":
            backend.click(x, y, clicks=2)
        elif kind == "right_click":
            backend.click(x, y, button="right")
        elif kind == "drag":
            if action.to_x is None or action.to_y is None:
                raise ComputerError("drag needs an end point.")
            backend.drag(x, y, action.to_x, action.to_y)
        elif kind == "scroll":
            backend.scroll(x, y, int(action.amount))
        elif kind == "type":
            backend.type_text(action.text)
        elif kind == "key":
            backend.press(action.keys)
        elif kind == "wait":
            if self._abort.wait(min(max(float(action.amount), 0.0), 10.0)):
                raise ActionAbortedError("The action was stopped.")
        else:
            raise ComputerError(f"{kind} is not an input action.")
        return ("recorded (dry run): " if dry_run else "") + action.describe()

    def abort(self) -> None:
        """Stop the action in flight (thread-safe; returns at once)."""
        self._abort.set()
        if self._live is not None:
            self._live.abort()

    def release_all(self) -> None:
        """Let go of every key and button held by the real backend."""
        if self._live is not None:
            self._live.release_all()

    def reset(self) -> None:
        """Allow actions again after an abort."""
        self._abort.clear()
        if self._live is not None:
            self._live.reset()


def _neighbours(
    elements: tuple[ScreenElement, ...], point: Point, target: ScreenElement | None
) -> list[ScreenElement]:
    """Labels next to a target: left of it on the same row, or just above it."""
    found = [target] if target is not None else []
    for element in elements:
        if element is target:
            continue
        box = element.box
        same_row = abs(box.center.y - point.y) <= max(box.height // 2 + 4, 8)
        left_of = same_row and 0 <= point.x - box.right <= _BAND_HALF_WIDTH_PX
        above = 0 <= point.y - box.bottom <= 45 and box.x <= point.x < box.right
        if left_of or above:
            found.append(element)
    return found


def _wlroots_backends() -> tuple[ScreenBackend, WindowBackend]:
    """Screen and window facts on sway (imported only there)."""
    from aria_desktop.adapters.computer.sway import SwayIpc, SwayWindows
    from aria_desktop.adapters.computer.wlr_screen import GrimScreen

    ipc = SwayIpc()
    return GrimScreen(ipc), SwayWindows(ipc)


def _wlroots_input(screen: ScreenBackend, typing_interval_s: float) -> InputBackend:
    """The virtual pointer and wtype, moving in ``screen``'s layout."""
    from aria_desktop.adapters.computer.wlr_input import WlrootsInput

    return WlrootsInput(lambda: screen.monitor_rect(0), typing_interval_s=typing_interval_s)
