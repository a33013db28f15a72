"""How one backend is retried, and its circuit breaker (per backend and model).

The router (``router.py``) applies both: a retryable failure is tried again with exponential
backoff and jitter, and after ``failure_threshold`` consecutive failures the breaker fails calls
fast, without network I/O, until ``reset_s`` has passed; then one probe is let through.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["BreakerPolicy", "BreakerState", "CircuitBreaker", "RetryPolicy"]

_LOGGER = logging.getLogger(__name__)

BreakerState = Literal["closed", "open", "half_open"]
"""A breaker's state: calls pass, fail fast, or one probe is let through."""


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """How one backend is retried before the router moves on.

    Attributes:
        max_attempts: tries per backend, the first included.
        base_delay_s: backoff before the second try; doubles each time.
        max_delay_s: ceiling of the exponential backoff.
        retry_after_cap_s: ceiling on a server's ``Retry-After`` (a server asking for minutes
            should not freeze a conversation; falling back is better).
        jitter_ratio: fraction of each backoff that is randomised (0 = none, 0.5 = the delay is
            drawn from [d/2, d]) so that clients failing together do not retry together.
    """

    max_attempts: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0
    retry_after_cap_s: float = 30.0
    jitter_ratio: float = 0.5

    def delay_s(
        self, attempt: int, retry_after_s: float | None, rand: Callable[[], float]
    ) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        if retry_after_s is not None:
            return max(0.0, min(retry_after_s, self.retry_after_cap_s))
        delay = min(self.max_delay_s, self.base_delay_s * (2.0 ** (attempt - 1)))
        return delay * (1.0 - self.jitter_ratio * rand())


@dataclass(frozen=True, kw_only=True)
class BreakerPolicy:
    """When a circuit breaker opens and when it probes again.

    Attributes:
        failure_threshold: consecutive failures that open the breaker.
        reset_s: seconds an open breaker waits before letting one probe through.
    """

    failure_threshold: int = 5
    reset_s: float = 30.0


class CircuitBreaker:
    """Consecutive-failure circuit breaker for one backend and model.

    Closed: calls pass; ``failure_threshold`` consecutive failures open it. Open: calls are
    refused until ``reset_s`` has passed, then it turns half-open and lets exactly one probe
    through; the probe's success closes it, its failure re-opens it for another ``reset_s``.
    """

    def __init__(self, policy: BreakerPolicy, *, monotonic: Callable[[], float]) -> None:
        """Start closed."""
        self._policy = policy
        self._monotonic = monotonic
        self._failures = 0
        self._opened_at = 0.0
        self._open = False
        self._probing = False

    @property
    def state(self) -> BreakerState:
        """``closed``, ``open`` or ``half_open`` (open but due for, or running, a probe)."""
        if not self._open:
            return "closed"
        if self._probing or self._monotonic() - self._opened_at >= self._policy.reset_s:
            return "half_open"
        return "open"

    @property
    def failures(self) -> int:
        """Consecutive failures counted so far (each try, retries included)."""
        return self._failures

    @property
    def retry_in_s(self) -> float:
        """Seconds until an open breaker lets a probe through (0 when it would now)."""
        if not self._open:
            return 0.0
        return max(0.0, self._opened_at + self._policy.reset_s - self._monotonic())

    def allow(self) -> bool:
        """Whether a call may go out now (claims the probe slot when half-open)."""
        state = self.state
        if state == "closed":
            return True
        if state == "half_open" and not self._probing:
            self._probing = True
            return True
        return False

    def record_success(self) -> None:
        """The backend answered: close and forget past failures."""
        self._failures = 0
        self._open = False
        self._probing = False

    def record_failure(self) -> None:
        """The backend failed: count it, and open (or re-open after a failed probe)."""
        self._failures += 1
        if self._probing or self._failures >= self._policy.failure_threshold:
            if not self._open or self._probing:
                _LOGGER.debug("circuit breaker opens after %d failure(s)", self._failures)
            self._open = True
            self._opened_at = self._monotonic()
        self._probing = False

    def release(self) -> None:
        """The call ended without a verdict (cancelled): free the probe slot."""
        self._probing = False
