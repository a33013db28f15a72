"""Out-of-band confirmation of consequential actions.

A request is published as an ``action-confirm-request`` event carrying a random nonce that the
model never sees. Only a ``ConfirmAction`` command echoing that nonce (from the GUI dialog or
an authenticated API call) can approve it; no answer before the timeout means deny.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
from dataclasses import dataclass

from aria_desktop.core.bus import EventBus
from aria_desktop.domain.errors import ConfirmationError
from aria_desktop.domain.events import ActionConfirmRequest, ActionConfirmResult

__all__ = ["ConfirmationBroker", "ConfirmationOutcome"]

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class ConfirmationOutcome:
    """How a confirmation request ended: ``approved``, or denied (``timed_out`` if unanswered)."""

    request_id: str
    approved: bool
    timed_out: bool


@dataclass
class _Pending:
    nonce: str
    future: asyncio.Future[bool]


class ConfirmationBroker:
    """Issues confirmation requests and matches answers to them by id and nonce."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._pending: dict[str, _Pending] = {}

    async def request(
        self, *, run_id: str | None, tool: str, summary: str, reason: str, timeout_s: float
    ) -> ConfirmationOutcome:
        """Ask the user and wait for the answer; deny on timeout or cancellation."""
        request_id = secrets.token_hex(8)
        nonce = secrets.token_urlsafe(24)
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = _Pending(nonce=nonce, future=future)
        self._bus.publish(
            ActionConfirmRequest(
                run_id=run_id,
                request_id=request_id,
                nonce=nonce,
                tool=tool,
                summary=summary,
                reason=reason,
                timeout_s=timeout_s,
            )
        )
        timed_out = False
        try:
            async with asyncio.timeout(timeout_s):
                approved = await future
        except TimeoutError:
            approved, timed_out = False, True
        finally:
            self._pending.pop(request_id, None)
        self._bus.publish(
            ActionConfirmResult(
                run_id=run_id, request_id=request_id, approved=approved, timed_out=timed_out
            )
        )
        return ConfirmationOutcome(request_id=request_id, approved=approved, timed_out=timed_out)

    def answer(self, request_id: str, nonce: str, approved: bool) -> None:
        """Resolve a pending request; ConfirmationError for unknown ids or a wrong nonce."""
        pending = self._pending.get(request_id)
        if pending is None or pending.future.done():
            raise ConfirmationError(
                f"No pending confirmation request {request_id!r}.",
                hint="It may have timed out (which counts as deny); ask again.",
            )
        if not hmac.compare_digest(pending.nonce.encode(), nonce.encode()):
            _LOGGER.warning("Confirmation for request %s refused: wrong nonce", request_id)
            raise ConfirmationError("The confirmation nonce does not match the request.")
        pending.future.set_result(approved)

    def deny_all(self) -> None:
        """Deny every pending request (kill switch, shutdown)."""
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_result(False)
