"""Text that OCR read from a scanned page, kept by the page image's hash.

Reading a scanned page costs 1-5 s (Tesseract on the page image). A PDF is extracted again
whenever the file changes — a page appended to a scan in a watched folder, ``aria knowledge
reindex`` — and every page of it would be read again; with this cache only the pages never
seen before are. The key is the image's pixels (mode, size, bytes) and the reader's format
number, so a changed page is read afresh; the value is the text, one small file per page
under ``paths.ocr_cache_dir()`` (in ARIA's cache: files it can rebuild; private).

A page OCR could not finish (time limit, Tesseract missing) is not kept. A cache that cannot
be read or written (full disk, read-only folder) only costs the time: the page is read by OCR
as without it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from aria_desktop.adapters.knowledge.scanned_pages import PageOcr

__all__ = ["cached_page_ocr"]

_LOGGER = logging.getLogger(__name__)
_FORMAT = 1
"""Raise when the reader's output changes (language, page segmentation): old texts are not used."""


def _image_key(image: Any) -> str:
    digest = hashlib.sha256(f"ocr-{_FORMAT}:{image.mode}:{image.size}:".encode())
    digest.update(image.tobytes())
    return digest.hexdigest()


def _keep(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a temporary file renamed into place).

    Missing folders are made private (0700): the texts are the user's documents.
    """
    for parent in reversed([path.parent, *path.parent.parents]):
        if not parent.is_dir():
            parent.mkdir(mode=0o700, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".partial-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def cached_page_ocr(read: PageOcr, folder: Path) -> PageOcr:
    """``read`` with its results kept in ``folder``, by the page image's hash."""

    def read_cached(image: Any, timeout_s: float) -> str:
        path = folder / (key := _image_key(image))[:2] / f"{key}.txt"
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            pass
        except (OSError, UnicodeDecodeError) as exc:
            _LOGGER.debug("OCR cache entry %s unreadable, reading the page: %s", path, exc)
        text = read(image, timeout_s)
        try:
            _keep(path, text)
        except OSError as exc:
            _LOGGER.debug("OCR cache not written (%s): %s", folder, exc)
        return text

    return read_cached
