"""Screen geometry as pure code: scaling screenshots for models, mapping back, corner clamps.

A model sees the screen scaled so that its longest side is at most N pixels (1280 by default):
large screens cost fewer tokens and most vision models are trained near that size. A point
the model names in the scaled image must land on the *same* physical pixel span it saw, so the
mapping is integer arithmetic, not floats: every model pixel ``m`` covers the physical pixels
``p`` with ``floor(p * model / physical) == m``, and ``to_physical`` returns the middle of that
span, so ``to_model(to_physical(m)) == m`` holds exactly for every model pixel.
"""

from __future__ import annotations

from dataclasses import dataclass

from aria_desktop.domain.computer import Point, Rect

__all__ = ["ScaleMap", "clamp_point", "union"]


def _ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


@dataclass(frozen=True)
class ScaleMap:
    """How a physical screen region maps onto the (smaller) image a model is shown.

    Attributes:
        region: the physical area captured, pixels of the virtual screen.
        model_width, model_height: size of the scaled image, pixels.
    """

    region: Rect
    model_width: int
    model_height: int

    @classmethod
    def fit(cls, region: Rect, longest_side_px: int) -> ScaleMap:
        """Scale ``region`` down (never up) so its longest side is at most ``longest_side_px``."""
        if region.width <= 0 or region.height <= 0:
            raise ValueError(f"empty region {region}")
        longest = max(region.width, region.height)
        if longest_side_px <= 0 or longest <= longest_side_px:
            return cls(region, region.width, region.height)
        width = max(1, round(region.width * longest_side_px / longest))
        height = max(1, round(region.height * longest_side_px / longest))
        return cls(region, width, height)

    @property
    def identity(self) -> bool:
        """The model sees physical pixels (no scaling)."""
        return (self.model_width, self.model_height) == (self.region.width, self.region.height)

    def to_model(self, point: Point) -> Point:
        """The model pixel showing physical ``point`` (clamped into the image)."""
        dx = min(max(point.x - self.region.x, 0), self.region.width - 1)
        dy = min(max(point.y - self.region.y, 0), self.region.height - 1)
        return Point(
            dx * self.model_width // self.region.width,
            dy * self.model_height // self.region.height,
        )

    def to_physical(self, point: Point) -> Point:
        """The physical pixel at the middle of what model pixel ``point`` shows.

        Coordinates outside the image are clamped to its edge first (a model may overshoot).
        """
        mx = min(max(point.x, 0), self.model_width - 1)
        my = min(max(point.y, 0), self.model_height - 1)
        return Point(
            self.region.x + _span_middle(mx, self.region.width, self.model_width),
            self.region.y + _span_middle(my, self.region.height, self.model_height),
        )

    def rect_to_model(self, rect: Rect) -> Rect:
        """A physical rectangle as model pixels (covering at least one pixel)."""
        top_left = self.to_model(Point(rect.x, rect.y))
        bottom_right = self.to_model(Point(rect.right - 1, rect.bottom - 1))
        return Rect(
            top_left.x,
            top_left.y,
            bottom_right.x - top_left.x + 1,
            bottom_right.y - top_left.y + 1,
        )


def _span_middle(model_px: int, physical: int, model: int) -> int:
    """Middle of the physical pixels ``p`` with ``floor(p * model / physical) == model_px``."""
    first = _ceil_div(model_px * physical, model)
    last = _ceil_div((model_px + 1) * physical, model) - 1
    return (first + max(first, last)) // 2


def clamp_point(point: Point, screen: Rect, corner_margin_px: int) -> Point:
    """``point`` inside ``screen`` and at least ``corner_margin_px`` away from its corners.

    pyautogui aborts (its fail-safe) whenever the pointer sits in a screen corner, and a
    corner is never where a careful click belongs; edges away from corners stay reachable
    (panels, scroll bars).
    """
    if screen.width <= 0 or screen.height <= 0:
        return point
    x = min(max(point.x, screen.x), screen.right - 1)
    y = min(max(point.y, screen.y), screen.bottom - 1)
    margin = max(0, min(corner_margin_px, (screen.width - 1) // 2, (screen.height - 1) // 2))
    near_left, near_right = x < screen.x + margin, x > screen.right - 1 - margin
    near_top, near_bottom = y < screen.y + margin, y > screen.bottom - 1 - margin
    if (near_left or near_right) and (near_top or near_bottom):
        x = screen.x + margin if near_left else screen.right - 1 - margin
        y = screen.y + margin if near_top else screen.bottom - 1 - margin
    return Point(x, y)


def union(rects: list[Rect]) -> Rect:
    """The smallest rectangle covering all of ``rects`` (which must not be empty)."""
    left = min(r.x for r in rects)
    top = min(r.y for r in rects)
    right = max(r.right for r in rects)
    bottom = max(r.bottom for r in rects)
    return Rect(left, top, right - left, bottom - top)
