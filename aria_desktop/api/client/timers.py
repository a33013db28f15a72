"""The timers over HTTP: ``core.ports.TimerAccess`` through the API's operations.

What ``aria timers`` and an attached desktop app (the tray's countdown) use while another
process owns the data (``ApiClient.timers``); each method is one call into
``operations/timers.py``.
"""

from __future__ import annotations

from aria_desktop.api.client.operations import timers as ops
from aria_desktop.api.client.operations.base import Caller
from aria_desktop.domain.timers import Timer

__all__ = ["TimersClient"]


class TimersClient:
    """``TimerAccess`` over the owner's API."""

    def __init__(self, client: Caller) -> None:
        """Carry every call out through ``client`` (an ``ApiClient`` or its transport)."""
        self._client = client

    async def list_timers(self) -> list[Timer]:
        """Running and paused timers."""
        return await self._client.call(ops.LIST_TIMERS, None)

    async def start_timer(
        self, duration_s: float, *, name: str = "", language: str = "en"
    ) -> Timer:
        """Start a timer on the owner (it rings there)."""
        return await self._client.call(ops.START_TIMER, (duration_s, name, language))

    async def pause_timer(self, timer: str) -> Timer:
        """Pause a timer by id or name."""
        return await self._client.call(ops.CHANGE_TIMER, (timer, "pause"))

    async def resume_timer(self, timer: str) -> Timer:
        """Resume a paused timer."""
        return await self._client.call(ops.CHANGE_TIMER, (timer, "resume"))

    async def cancel_timer(self, timer: str) -> Timer:
        """Cancel a timer."""
        return await self._client.call(ops.CHANGE_TIMER, (timer, "cancel"))

    async def cancel_all_timers(self) -> list[Timer]:
        """Cancel every timer."""
        return await self._client.call(ops.CANCEL_ALL_TIMERS, None)
