"""``llm.think``'s modes and the one rule of whether a backend is asked to think.

Apart from ``domain/chat.py`` so the settings schema can name the modes without loading the
chat types (ARCHITECTURE.md: start-up cost); ``domain.chat`` re-exports them.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["THINK_MODES", "ThinkMode", "thinking_enabled"]

ThinkMode = Literal["auto", "on", "off"]
"""``llm.think``: reason before answering always, never, or when the model can (``auto``)."""
THINK_MODES: tuple[ThinkMode, ...] = ("auto", "on", "off")


def thinking_enabled(mode: ThinkMode, capabilities: frozenset[str]) -> bool:
    """Whether a backend with ``capabilities`` is asked to think under ``mode``.

    The one place the rule lives (every backend asks it): ``on`` and ``off`` are what they say,
    ``auto`` is on only for a model that has the ``thinking`` capability.
    """
    if mode == "auto":
        return "thinking" in capabilities
    return mode == "on"
