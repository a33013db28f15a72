"""Confirmation requests: a dialog per request, answered with the request's nonce.

No answer before the request's timeout is a deny: the dialog sends the deny itself a moment
before the orchestrator would time out, so the decision is explicit and audited as the user's
(non-)answer either way. The dialog never takes the keyboard focus.
"""

from __future__ import annotations

import contextlib
import logging
import time

from PySide6.QtCore import QObject, QTimer, Signal

from aria_desktop.domain.commands import ConfirmAction
from aria_desktop.domain.errors import ConfirmationError
from aria_desktop.domain.events import ActionConfirmRequest, ActionConfirmResult, Event
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.views.confirm_dialog import ConfirmDialogView

__all__ = ["ConfirmController"]

_LOGGER = logging.getLogger(__name__)
DENY_MARGIN_S = 0.3
"""The dialog denies this long before the request's own timeout (so the deny is delivered)."""


class _Pending:
    def __init__(self, request: ActionConfirmRequest, view: ConfirmDialogView) -> None:
        self.request = request
        self.view = view
        self.deadline = time.monotonic() + max(0.1, request.timeout_s - DENY_MARGIN_S)
        self.timer = QTimer(view)
        self.done = False


class ConfirmController(QObject):
    """Opens ``ConfirmDialogView``s for ``action-confirm-request`` events."""

    answered = Signal(str, bool, bool)
    """``(request_id, approved, automatic)`` once an answer was sent."""

    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        self.context = context
        self._pending: dict[str, _Pending] = {}
        context.bridge.event_received.connect(self._on_event)

    @property
    def open_requests(self) -> list[str]:
        """Ids of requests with a dialog on screen."""
        return list(self._pending)

    def dialog(self, request_id: str) -> ConfirmDialogView | None:
        """The dialog of a request, if it is open."""
        pending = self._pending.get(request_id)
        return pending.view if pending is not None else None

    def _on_event(self, event: Event) -> None:
        if isinstance(event, ActionConfirmRequest):
            self._open(event)
        elif isinstance(event, ActionConfirmResult):
            self._close(event.request_id)

    def _open(self, request: ActionConfirmRequest) -> None:
        if request.request_id in self._pending:
            return
        view = ConfirmDialogView(tool=request.tool, summary=request.summary, reason=request.reason)
        pending = _Pending(request, view)
        self._pending[request.request_id] = pending
        view.answered.connect(lambda approved: self.answer(request.request_id, approved))
        pending.timer.setInterval(250)
        pending.timer.timeout.connect(lambda: self._tick(request.request_id))
        pending.timer.start()
        self._tick(request.request_id)
        view.place(len(self._pending) - 1)
        view.show()  # shown without activation: the focus stays where the user is typing

    def _tick(self, request_id: str) -> None:
        pending = self._pending.get(request_id)
        if pending is None:
            return
        remaining = pending.deadline - time.monotonic()
        if remaining <= 0:
            self.answer(request_id, False, automatic=True)
            return
        pending.view.set_remaining(int(remaining + 0.999))

    def answer(self, request_id: str, approved: bool, *, automatic: bool = False) -> None:
        """Send the answer for one request (once) and close its dialog."""
        pending = self._pending.get(request_id)
        if pending is None or pending.done:
            return
        pending.done = True
        request = pending.request
        self._close(request_id)
        self.context.tasks.spawn(
            self._send(request, approved, automatic), name=f"aria-gui-confirm-{request_id}"
        )

    async def _send(self, request: ActionConfirmRequest, approved: bool, automatic: bool) -> None:
        try:
            await self.context.assistant.confirm_action(
                ConfirmAction(request_id=request.request_id, nonce=request.nonce, approved=approved)
            )
        except ConfirmationError as exc:
            # Already answered elsewhere or timed out: the outcome is a deny either way.
            _LOGGER.info("Confirmation %s not delivered: %s", request.request_id, exc)
        self.answered.emit(request.request_id, approved, automatic)

    def _close(self, request_id: str) -> None:
        pending = self._pending.pop(request_id, None)
        if pending is None:
            return
        pending.done = True
        pending.timer.stop()
        with contextlib.suppress(RuntimeError):  # already deleted by Qt
            pending.view.answered.disconnect()
        pending.view.close()
        pending.view.deleteLater()

    def close_all(self) -> None:
        """Close every dialog without answering (shutdown: the core denies them)."""
        for request_id in list(self._pending):
            self._close(request_id)
