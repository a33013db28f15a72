"""Tool servers' questions (``mcp-question``): a dialog each, answered with the question's nonce.

An answer that does not fit (a required field empty, a number that is none) comes back refused
and the dialog stays open to correct it; the question's end (``mcp-question-answered``:
answered here or elsewhere, or timed out) closes it.
"""

from __future__ import annotations

import contextlib
import logging

from PySide6.QtCore import QObject

from aria_desktop.domain.commands import AnswerMcpQuestion
from aria_desktop.domain.errors import ConfirmationError
from aria_desktop.domain.events import Event
from aria_desktop.domain.mcp_events import McpQuestion, McpQuestionAnswered
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.views.mcp_question_dialog import McpQuestionDialogView

__all__ = ["McpQuestionController"]

_LOGGER = logging.getLogger(__name__)


class McpQuestionController(QObject):
    """Opens ``McpQuestionDialogView``s for servers' questions and sends the answers."""

    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        self.context = context
        self._open: dict[str, tuple[McpQuestion, McpQuestionDialogView]] = {}
        context.bridge.event_received.connect(self._on_event)

    def dialog(self, request_id: str) -> McpQuestionDialogView | None:
        """The dialog of an open question."""
        found = self._open.get(request_id)
        return found[1] if found is not None else None

    def _on_event(self, event: Event) -> None:
        if isinstance(event, McpQuestion) and event.request_id not in self._open:
            view = McpQuestionDialogView(
                server=event.server,
                message=event.message,
                mode=event.mode,
                fields=event.fields,
                domain=event.domain,
                url=event.url,
            )
            self._open[event.request_id] = (event, view)
            view.answered.connect(lambda action, q=event: self._answer(q, action))
            view.show()
            view.raise_()
        elif isinstance(event, McpQuestionAnswered):
            self._close(event.request_id)

    def _answer(self, question: McpQuestion, action: str) -> None:
        found = self._open.get(question.request_id)
        if found is None:
            return
        view = found[1]
        values = view.values() if action == "accept" else {}
        self.context.tasks.spawn(
            self._send(question, action, values), name=f"aria-gui-mcp-answer-{question.request_id}"
        )

    async def _send(self, question: McpQuestion, action: str, values: dict[str, object]) -> None:
        command = AnswerMcpQuestion(
            request_id=question.request_id, nonce=question.nonce, action=action, values=values
        )
        try:
            await self.context.assistant.execute(command)
        except ConfirmationError as exc:
            view = self.dialog(question.request_id)
            if view is not None and action == "accept":
                view.show_problem(exc.message)
                return
            _LOGGER.info("Answer to %s not delivered: %s", question.request_id, exc)
        self._close(question.request_id)

    def _close(self, request_id: str) -> None:
        found = self._open.pop(request_id, None)
        if found is None:
            return
        view = found[1]
        view.mark_sent()
        with contextlib.suppress(RuntimeError):
            view.answered.disconnect()
        view.close()
        view.deleteLater()

    def close_all(self) -> None:
        """Close every dialog without answering (shutdown: the core declines them)."""
        for request_id in list(self._open):
            self._close(request_id)
