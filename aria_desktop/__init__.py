"""ARIA Desktop: a local-first desktop AI assistant."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
