"""Checks of the knowledge base: its extractors, the folder watcher and OCR are installed."""

from __future__ import annotations

import importlib.util
import shutil

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
_OCR_MODULES = (("PIL", "pillow"), ("pytesseract", "pytesseract"))
"""What reads scanned PDF pages besides the Tesseract program: (module, package)."""


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
    detail = "Markdown, text, HTML, PDF and DOCX; watched folders"
    if settings.knowledge.ocr_max_pages <= 0:
        return ok("knowledge", detail + "; scanned PDF pages not read (OCR off)")
    packages = [package for module, package in _OCR_MODULES if not _importable(module)]
    if packages or shutil.which("tesseract") is None:
        hint = "sudo apt-get install tesseract-ocr tesseract-ocr-eng"
        if packages:
            hint = f"pip install {' '.join(packages)}" + (
                f"; {hint}" if shutil.which("tesseract") is None else ""
            )
        return warn(
            "knowledge", detail + "; scanned PDF pages cannot be read (OCR is missing)", hint
        )
    return ok("knowledge", detail + "; scanned PDF pages by OCR")


def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None
