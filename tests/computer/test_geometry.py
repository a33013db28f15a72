"""Scaling for models and corner clamping (pure geometry)."""

from __future__ import annotations

import pytest

from aria_desktop.domain.computer import Point, Rect
from aria_desktop.domain.geometry import ScaleMap, clamp_point


@pytest.mark.parametrize(
    ("width", "height", "longest", "expected"),
    [
        (1280, 800, 1280, (1280, 800)),
        (2560, 1440, 1280, (1280, 720)),
        (3840, 2160, 1280, (1280, 720)),
        (1920, 1200, 1000, (1000, 625)),
        (1366, 768, 1280, (1280, 720)),
        (800, 600, 1280, (800, 600)),  # never scaled up
    ],
)
def test_fit_keeps_the_aspect_and_never_upscales(
    width: int, height: int, longest: int, expected: tuple[int, int]
) -> None:
    scale = ScaleMap.fit(Rect(0, 0, width, height), longest)
    assert (scale.model_width, scale.model_height) == expected


@pytest.mark.parametrize(
    ("region", "longest"),
    [
        (Rect(0, 0, 2560, 1440), 1280),
        (Rect(1920, 0, 1366, 768), 1280),  # a second monitor to the right
        (Rect(-1280, 200, 1280, 1024), 1000),  # a monitor left of the primary one
        (Rect(0, 0, 1281, 799), 1280),
        (Rect(0, 0, 3000, 1000), 777),
    ],
)
def test_every_model_pixel_maps_back_to_a_physical_pixel_it_showed(
    region: Rect, longest: int
) -> None:
    scale = ScaleMap.fit(region, longest)
    for mx in range(scale.model_width):
        physical = scale.to_physical(Point(mx, 0))
        assert region.x <= physical.x < region.right
        assert scale.to_model(physical).x == mx
    for my in range(scale.model_height):
        assert scale.to_model(scale.to_physical(Point(0, my))).y == my
    # and every physical pixel comes back within one model pixel's span of itself
    span_x = -(-region.width // scale.model_width)
    for px in range(region.x, region.right, 7):
        back = scale.to_physical(scale.to_model(Point(px, region.y)))
        assert abs(back.x - px) <= span_x


def test_points_outside_the_image_are_clamped_to_its_edge() -> None:
    scale = ScaleMap.fit(Rect(100, 50, 2000, 1000), 1000)
    assert scale.to_physical(Point(-20, -20)) == scale.to_physical(Point(0, 0))
    assert scale.to_physical(Point(5000, 5000)) == scale.to_physical(Point(999, 499))


def test_rect_to_model_covers_the_rect() -> None:
    scale = ScaleMap.fit(Rect(0, 0, 2560, 1600), 1280)
    assert scale.rect_to_model(Rect(100, 100, 50, 20)) == Rect(50, 50, 25, 10)
    assert scale.rect_to_model(Rect(101, 101, 1, 1)).width == 1


SCREEN = Rect(0, 0, 1280, 800)


@pytest.mark.parametrize(
    ("point", "expected"),
    [
        (Point(0, 0), Point(5, 5)),
        (Point(1279, 0), Point(1274, 5)),
        (Point(0, 799), Point(5, 794)),
        (Point(1279, 799), Point(1274, 794)),
        (Point(2, 3), Point(5, 5)),
        (Point(-50, -50), Point(5, 5)),
        (Point(5000, 400), Point(1279, 400)),  # off-screen: onto the edge, not a corner
        (Point(0, 400), Point(0, 400)),  # edges away from corners stay reachable
        (Point(640, 0), Point(640, 0)),
        (Point(640, 400), Point(640, 400)),
    ],
)
def test_corners_are_avoided(point: Point, expected: Point) -> None:
    assert clamp_point(point, SCREEN, 5) == expected


def test_clamping_on_a_screen_with_negative_origin() -> None:
    screen = Rect(-1280, 0, 2560, 800)
    assert clamp_point(Point(-1280, 0), screen, 5) == Point(-1275, 5)
    assert clamp_point(Point(1279, 799), screen, 5) == Point(1274, 794)
