"""Image work for computer use (the one module that imports Pillow).

Frames stay Pillow images inside the ``computer`` package (OCR and comparisons use them
directly); everything that leaves it is PNG bytes. Never logs image content.
"""

from __future__ import annotations

import io
from typing import Any

from PIL import Image, ImageChops

from aria_desktop.domain.computer import Rect

__all__ = [
    "bgrx_from_ppm",
    "changed_fraction",
    "crop",
    "fit_pixels",
    "from_bgra",
    "from_png",
    "has_vertical_edge",
    "ocr_ready",
    "signature",
    "thumbnail_jpeg",
    "to_png",
]

Frame = Any  # a PIL.Image.Image; kept opaque so callers need not import Pillow


def from_bgra(raw: bytes, width: int, height: int) -> Frame:
    """An RGB image from raw BGRA (BGRX) pixels as screen grabbers deliver them."""
    return Image.frombytes("RGB", (width, height), raw, "raw", "BGRX")


def bgrx_from_ppm(data: bytes) -> tuple[bytes, int, int]:
    """Raw BGRX pixels and the size of a binary PPM (what ``grim -t ppm`` writes)."""
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB").tobytes("raw", "BGRX"), image.width, image.height


def from_png(data: bytes) -> Frame:
    """Decode PNG (or any Pillow format) bytes."""
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def to_png(image: Frame, *, size: tuple[int, int] | None = None) -> bytes:
    """PNG bytes, optionally resized (fast compression: screenshots are sent, not archived)."""
    if size is not None and size != image.size:
        image = image.resize(size, Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def crop(image: Frame, box: Rect, origin: Rect) -> Frame:
    """The part of ``image`` (which shows ``origin`` of the screen) under screen rect ``box``."""
    left, top = box.x - origin.x, box.y - origin.y
    return image.crop((left, top, left + box.width, top + box.height))


def fit_pixels(image: Frame, max_pixels: int) -> Frame:
    """``image`` scaled down (aspect kept) to at most ``max_pixels`` pixels; smaller: as is."""
    pixels = image.width * image.height
    if pixels <= max_pixels:
        return image
    scale = (max_pixels / pixels) ** 0.5
    size = (max(1, int(image.width * scale)), max(1, int(image.height * scale)))
    return image.resize(size, Image.Resampling.LANCZOS)


def ocr_ready(image: Frame, upscale: float) -> Frame:
    """Grayscale, enlarged by ``upscale``: Tesseract reads 9–11 pt UI text far better at 2x."""
    gray = image.convert("L")
    if upscale != 1.0:
        size = (max(1, round(gray.width * upscale)), max(1, round(gray.height * upscale)))
        gray = gray.resize(size, Image.Resampling.LANCZOS)
    return gray


def changed_fraction(a: Frame, b: Frame, *, threshold: int = 40) -> float:
    """Fraction of pixels (0..1) whose gray level differs by more than ``threshold``."""
    if a.size != b.size:
        return 1.0
    diff = ImageChops.difference(a.convert("L"), b.convert("L"))
    histogram = diff.histogram()
    changed = int(sum(histogram[threshold + 1 :]))
    return changed / max(1, int(a.width * a.height))


def has_vertical_edge(image: Frame, gap: Rect, origin: Rect, *, contrast: int = 40) -> bool:
    """Whether a vertical line (a field or button border) crosses screen area ``gap``.

    A column counts as a line when at least 80% of its pixels differ from the area's median
    gray by more than ``contrast``: borders span the text height, letters never sit in a gap.
    """
    if gap.width <= 0 or gap.height <= 0:
        return False
    area = crop(image, gap, origin).convert("L")
    width, height = area.size
    pixels = area.load()
    values = sorted(pixels[x, y] for x in range(width) for y in range(height))
    median = values[len(values) // 2]
    for x in range(width):
        differing = sum(1 for y in range(height) if abs(pixels[x, y] - median) > contrast)
        if differing >= 0.8 * height:
            return True
    return False


def signature(image: Frame, size: tuple[int, int] = (64, 40)) -> bytes:
    """A tiny grayscale rendering (row-major bytes) to tell "same screen" cheaply."""
    return bytes(image.convert("L").resize(size, Image.Resampling.BILINEAR).tobytes())


def thumbnail_jpeg(png: bytes, longest_side_px: int = 320, quality: int = 60) -> bytes:
    """A small JPEG of a PNG screenshot (audit thumbnails)."""
    image = from_png(png)
    image.thumbnail((longest_side_px, longest_side_px), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=quality)
    return out.getvalue()
