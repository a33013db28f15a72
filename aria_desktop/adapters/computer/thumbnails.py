"""Audit thumbnails: a small JPEG of the screen for every acting step, kept locally for a while.

Stored in a private directory (0700, files 0600) under ARIA's data directory; files older than
the retention are deleted whenever a new one is saved (and by ``prune``). Thumbnails never go
to logs, the database or any model.
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from pathlib import Path

from aria_desktop.adapters.computer import imaging

__all__ = ["ThumbnailStore"]

_LOGGER = logging.getLogger(__name__)
_PRUNE_EVERY_S = 60.0


class ThumbnailStore:
    """Writes thumbnails and deletes expired ones.

    Args:
        directory: where thumbnails go (created private on first save).
        retention_days: age after which a thumbnail is deleted; 0 disables thumbnails.
        longest_side_px: thumbnail size.
    """

    def __init__(self, directory: Path, *, retention_days: float, longest_side_px: int = 320):
        """No I/O until the first save."""
        self.directory = directory
        self.retention_days = retention_days
        self._longest = longest_side_px
        self._last_prune = 0.0

    @property
    def enabled(self) -> bool:
        """Whether thumbnails are kept at all."""
        return self.retention_days > 0

    def save(self, png: bytes, *, label: str) -> str:
        """Store a thumbnail of ``png``; returns its file name ("" when disabled)."""
        if not self.enabled:
            return ""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        name = f"{time.strftime('%Y%m%d-%H%M%S')}-{label[:24]}-{secrets.token_hex(3)}.jpg"
        path = self.directory / name
        data = imaging.thumbnail_jpeg(png, self._longest)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        now = time.time()
        if now - self._last_prune >= _PRUNE_EVERY_S:
            self._last_prune = now
            self.prune(now)
        return name

    def prune(self, now: float | None = None) -> int:
        """Delete thumbnails older than the retention; returns how many."""
        if not self.directory.is_dir():
            return 0
        cutoff = (now if now is not None else time.time()) - self.retention_days * 86400
        removed = 0
        for path in self.directory.glob("*.jpg"):
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
                    removed += 1
            except OSError as exc:
                _LOGGER.warning("Could not delete old thumbnail %s: %s", path.name, exc)
        return removed
