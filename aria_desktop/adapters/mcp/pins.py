"""Approved MCP tool definitions (pins), kept in a JSON file beside the database.

A pin is written the first time the user approves a tool (core/mcp/bridge.py); ``aria mcp
review --accept`` replaces it after the user looked at the difference. The file is re-read
when it changed on disk, so a review made by the CLI reaches a running owner at once, and it
is written atomically (``files.atomic_write``), read and merged right before each write.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from aria_desktop.domain.mcp import McpPin
from aria_desktop.files import atomic_write

__all__ = ["JsonPinStore"]

_LOGGER = logging.getLogger(__name__)


class JsonPinStore:
    """Pins by ``server__tool`` in one JSON file."""

    def __init__(self, path: Path) -> None:
        """Use ``path`` (created on the first pin)."""
        self._path = path
        self._stamp: float | None = None
        self._pins: dict[str, McpPin] = {}

    def _load(self) -> dict[str, McpPin]:
        try:
            stamp = self._path.stat().st_mtime_ns
        except FileNotFoundError:
            return self._pins
        if stamp != self._stamp:
            try:
                raw: dict[str, Any] = json.loads(self._path.read_text(encoding="utf-8"))
                self._pins = {
                    name: McpPin(hash=str(entry["hash"]), definition=dict(entry["definition"]))
                    for name, entry in raw.items()
                }
            except (OSError, ValueError, KeyError, TypeError) as exc:
                _LOGGER.error(
                    "MCP pins in %s unreadable (%s); every tool asks again", self._path, exc
                )
                self._pins = {}
            self._stamp = stamp
        return self._pins

    def get(self, qualified: str) -> McpPin | None:
        """The pin of ``server__tool``, or None."""
        return self._load().get(qualified)

    def all(self) -> dict[str, McpPin]:
        """Every pin."""
        return dict(self._load())

    def put(self, qualified: str, pin: McpPin) -> None:
        """Store (or replace) a pin."""
        pins = dict(self._load())
        pins[qualified] = pin
        data = {name: {"hash": p.hash, "definition": p.definition} for name, p in pins.items()}
        self._path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self._path, json.dumps(data, indent=1, sort_keys=True).encode(), mode=0o600)
        self._pins = pins
        self._stamp = self._path.stat().st_mtime_ns
