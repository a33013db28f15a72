"""Quick ask behaviour: one question, the streamed answer under it."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, QUrl, Signal

from aria_desktop.domain.commands import StartTurn
from aria_desktop.domain.error_text import WORKS_WITHOUT_MODEL, for_people
from aria_desktop.domain.events import ErrorEvent, Event, LlmDelta, RunEnd, RunStart
from aria_desktop.domain.transcript import TurnTranscript
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.error_card import action_of, error_card
from aria_desktop.gui.format import reply_badge
from aria_desktop.gui.views.quick_ask import QuickAskView

__all__ = ["QuickAskController"]


class QuickAskController(QObject):
    """Sends the prompt as a new conversation and streams the answer into the view."""

    answered = Signal(str, str)
    """``(run_id, status)`` when the answer is complete."""
    action_requested = Signal(str)
    """An error card's "Open settings" or "Set up a model" (the desktop opens the window)."""

    def __init__(self, view: QuickAskView, context: GuiContext) -> None:
        super().__init__(view)
        self.view = view
        self.context = context
        self.run_id: str | None = None
        self._awaiting: str | None = None
        self._transcript = TurnTranscript()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(33)
        self._timer.timeout.connect(self._flush)
        view.submitted.connect(self.ask)
        view.escape_pressed.connect(self.close)
        view.answer.anchorClicked.connect(self._on_link)
        self._asked = ""
        self.no_model = ""
        context.bridge.event_received.connect(self._on_event)

    def open(self) -> None:
        """Show the prompt (and, while no model can answer, what still works)."""
        self.view.present()
        if self.no_model:
            self.view.show_answer_area()
            button = (("Set up a model", "aria-action:set_up_model"),)
            self.view.answer.append_error(
                self.no_model, WORKS_WITHOUT_MODEL, actions=button, notice=True
            )

    def show_no_model(self, reason: str) -> None:
        """Why no model can answer ("" once one can): shown when the prompt opens."""
        self.no_model = reason

    def close(self) -> None:
        """Hide the prompt (a running answer still completes and is saved)."""
        self.view.hide()

    def ask(self, text: str) -> None:
        """Send ``text``."""
        if self.run_id is not None:
            self.view.hint.setText("Still answering the previous question…")
            return
        self.view.prompt.clear()
        self.view.show_answer_area()
        self.view.answer.show_placeholder("")
        self.view.answer.append_user(text)
        self.view.hint.setText("Thinking…")
        self._transcript = TurnTranscript()
        self._awaiting = self._asked = text
        self.context.tasks.spawn(
            self._start(text), name="aria-gui-quick-ask", on_error=self._failed
        )

    async def _start(self, text: str) -> None:
        started = await self.context.assistant.start_turn(StartTurn(text=text, source="text"))
        self._awaiting = None
        if self.run_id is None:
            self.run_id = started.run_id

    def _failed(self, message: str, hint: str) -> None:
        self._awaiting = None
        self.view.answer.append_error(for_people(message, ""), for_people("", hint))
        self.view.hint.setText("")

    def _on_event(self, event: Event) -> None:
        if isinstance(event, RunStart) and self.run_id is None and self._awaiting is not None:
            if event.text == self._awaiting and event.source == "text":
                self.run_id = event.run_id
            return
        if self.run_id is None or event.run_id != self.run_id:
            return
        answer = self._transcript
        answer.add(event)
        if isinstance(event, LlmDelta):
            if not self._timer.isActive():
                self._timer.start()
        elif isinstance(event, ErrorEvent):
            card = error_card(event.code, event.message)
            self.view.answer.append_error(card.message, actions=card.actions, detail=card.detail)
        elif isinstance(event, RunEnd):
            self._timer.stop()
            self._flush()
            badge = reply_badge(answer.model, answer.backend, answer.locality, answer.latency_ms)
            self.view.answer.end_reply(badge if event.status == "complete" else "")
            self.view.hint.setText("" if event.status == "complete" else event.status.capitalize())
            run_id, self.run_id = self.run_id, None
            self.answered.emit(run_id, event.status)

    def _on_link(self, url: QUrl) -> None:
        """The card's buttons (Retry asks again) and its "Details" fold."""
        link = url.toString()
        if url.scheme() == "aria-tool":
            self.view.answer.toggle_output(link)
            return
        action = action_of(link)
        if action == "retry" and self._asked:
            self.ask(self._asked)
        elif action is not None:
            self.close()
            self.action_requested.emit(action)

    def _flush(self) -> None:
        """Draw the answer so far: the text of the current model step (the transcript's rule)."""
        if not self._transcript.text:
            return
        self.view.answer.set_reply_markdown(self._transcript.text)
        self.view.hint.setText("")
