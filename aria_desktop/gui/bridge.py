"""Bus events -> Qt signals.

One task reads the Assistant's event subscription and emits each event on the GUI thread
(qasync runs asyncio on Qt's thread, so slots run directly). Controllers pick the event types
they know with ``isinstance`` and ignore the rest, so event types added later (voice, computer
use) never break the GUI. ``state-changed`` is also emitted as ``state_changed`` for the tray.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from PySide6.QtCore import QObject, Signal

from aria_desktop.core.ports import Assistant, EventSubscription
from aria_desktop.domain.events import StateChanged
from aria_desktop.gui.tasks import current_loop

__all__ = ["EventBridge"]

_LOGGER = logging.getLogger(__name__)


class EventBridge(QObject):
    """Emits every event of an Assistant as a Qt signal while started."""

    event_received = Signal(object)
    state_changed = Signal(str, str, str)
    """``(state, backend, locality)`` from ``state-changed`` events."""
    stream_lost = Signal(str)
    """The event stream ended unexpectedly (a daemon went away); the text says so."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._task: asyncio.Task[None] | None = None
        self._subscription: EventSubscription | None = None

    @property
    def running(self) -> bool:
        """Whether events are being forwarded."""
        return self._task is not None and not self._task.done()

    def start(self, assistant: Assistant) -> None:
        """Subscribe now (events published from here on are forwarded in order)."""
        self.stop()
        subscription = assistant.subscribe()
        self._subscription = subscription
        self._task = current_loop().create_task(
            self._pump(subscription), name="aria-gui-event-bridge"
        )

    def stop(self) -> None:
        """Stop forwarding and close the subscription."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        subscription, self._subscription = self._subscription, None
        if subscription is not None:
            subscription.close()

    async def aclose(self) -> None:
        """Stop and wait for the forwarding task to end."""
        task = self._task
        self.stop()
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait([task], timeout=2.0)

    async def _pump(self, subscription: EventSubscription) -> None:
        try:
            async for event in subscription:
                if isinstance(event, StateChanged):
                    self.state_changed.emit(event.state, event.backend, event.locality)
                self.event_received.emit(event)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            _LOGGER.warning("Event stream lost: %s", exc)
            self.stream_lost.emit(f"The connection to ARIA was lost ({exc}).")
            return
        if self._subscription is subscription:
            self.stream_lost.emit("ARIA closed the event stream.")
