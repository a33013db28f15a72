"""Word error rate for the voice tests: the benchmark's normalization (``core/voice/wer.py``)."""

from __future__ import annotations

from aria_desktop.core.voice.wer import normalize, word_errors

__all__ = ["normalize", "word_errors"]
