"""The default clock (``core.ports.Clock``); tests and benchmarks inject their own."""

from __future__ import annotations

import time


class SystemClock:
    """Real time: ``time.monotonic`` and ``time.time``."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin, never going backwards."""
        return time.monotonic()

    def time(self) -> float:
        """Wall-clock UNIX seconds."""
        return time.time()
