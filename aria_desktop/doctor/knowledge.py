"""Checks of the knowledge base: its extractors and the folder watcher are installed."""

from __future__ import annotations

import importlib.util

from aria_desktop.doctor.result import CheckResult, ok, warn
from aria_desktop.settings import Settings

__all__ = ["check_knowledge"]

_PARTS = (
    ("pypdf", "pypdf", "PDF"),
    ("docx", "python-docx", "DOCX"),
    ("bs4", "beautifulsoup4", "HTML"),
    ("watchfiles", "watchfiles", "watched folders"),
)
"""(module, package, what needs it)."""


def check_knowledge(settings: Settings) -> CheckResult:
    """Which document formats and watching work (Markdown and plain text always do)."""
    if not settings.knowledge.enabled:
        return ok("knowledge", "switched off (knowledge.enabled = false)")
    missing = [(package, what) for module, package, what in _PARTS if not _importable(module)]
    if missing:
        return warn(
            "knowledge",
            "not available: " + ", ".join(what for _, what in missing),
            "pip install 'aria-desktop[knowledge]' (or: pip install "
            + " ".join(package for package, _ in missing)
            + ")",
        )
    return ok("knowledge", "Markdown, text, HTML, PDF and DOCX; watched folders")


def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None
