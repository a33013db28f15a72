"""Chat window behaviour: conversations, sending, streaming, Stop, links, tool cards, errors."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QListWidgetItem, QMessageBox

from aria_desktop.core.ports import Assistant
from aria_desktop.domain import events
from aria_desktop.domain.commands import StartTurn, TurnAttachment
from aria_desktop.domain.error_text import WORKS_WITHOUT_MODEL, for_people
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.intents import SKILLS_BACKEND
from aria_desktop.domain.transcript import TurnTranscript
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.controllers.chat_attach import AttachController, Attached, attached_note
from aria_desktop.gui.controllers.citations import CitationTracker
from aria_desktop.gui.dates import clock_time, conversation_date
from aria_desktop.gui.error_card import ErrorCard, action_of, error_card
from aria_desktop.gui.format import reply_badge, state_label, tool_card, tool_output
from aria_desktop.gui.views.chat_window import CONVERSATION_ID_ROLE, ChatWindowView
from aria_desktop.gui.views.code_copy import COPY_SCHEME
from aria_desktop.gui.views.question import ask_before
from aria_desktop.gui.views.transcript import SUGGESTION_LINK

__all__ = ["ChatController"]

_LOGGER = logging.getLogger(__name__)
FLUSH_INTERVAL_MS = 33
"""Streamed text is re-rendered at most this often (30 Hz): smooth, and cheap at any rate."""
_SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_SEGMENT_ENDS = (events.ToolCallEvent, events.BackendFallback, events.ErrorEvent)
"""Events drawn below the reply text so far: that text is closed before they are shown."""


@dataclass
class _ShownTurn:
    """The turn streaming into this window: its events folded, and the text drawn so far."""

    run_id: str
    transcript: TurnTranscript
    rendered: str = ""
    thinking_card: str | None = None
    """The link key of the reasoning card streaming now (None when none is open)."""
    thinking_from: int = 0
    """Where the open card's reasoning starts in ``transcript.thinking``."""

    @classmethod
    def start(cls, run_id: str, conversation_id: str) -> _ShownTurn:
        """Follow turn ``run_id`` (events of other turns are ignored by its transcript)."""
        return cls(run_id, TurnTranscript(run_id=run_id, conversation_id=conversation_id))


class ChatController(QObject):
    """Drives a ``ChatWindowView`` through the Assistant and the event bridge."""

    action_requested = Signal(str)
    """An error card's "Open settings" or "Set up a model" (the desktop opens the window)."""
    turn_finished = Signal(str, str)
    """``(run_id, status)`` once a turn shown in this window has ended."""
    reply_rendered = Signal(str)
    """The streamed reply's text each time it is redrawn (for tests and accessibility)."""

    def __init__(self, view: ChatWindowView, context: GuiContext) -> None:
        super().__init__(view)
        self.view = view
        self.context = context
        self.conversation_id: str | None = None
        self._titles: list[tuple[str, str]] = []
        self._dates: dict[str, str] = {}
        self._run: _ShownTurn | None = None
        self._awaiting: str | None = None
        self._retry_text = ""
        """The question a Retry sends again (the last one asked or shown)."""
        self.no_model = ""
        """Why no model can answer ("" while one can): the status line never says Ready then."""
        self.no_model_shown = False
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FLUSH_INTERVAL_MS)
        self._flush_timer.timeout.connect(self._flush)
        self._link_box: QMessageBox | None = None
        self._delete_box: QMessageBox | None = None
        self.citations = CitationTracker(view.transcript, context)
        self.attach = AttachController(view, context, self.show_problem)
        self._sending: tuple[Attached, ...] = ()

        view.send_button.clicked.connect(self.send_from_composer)
        view.composer.submitted.connect(self.send_from_composer)
        view.stop_button.clicked.connect(self.stop)
        view.new_button.clicked.connect(self.new_conversation)
        view.rename_button.clicked.connect(self._rename_current)
        view.delete_button.clicked.connect(self._ask_delete_current)
        view.search.textChanged.connect(self._apply_filter)
        view.conversations.currentItemChanged.connect(self._on_selected)
        view.conversations.itemChanged.connect(self._on_item_edited)
        view.transcript.anchorClicked.connect(self.ask_open_link)
        context.bridge.event_received.connect(self._on_event)
        context.bridge.state_changed.connect(self._on_state)
        context.on_attach(self._on_attached)
        self._set_ready(False)

    # --- connection ---------------------------------------------------------------------------

    def _on_attached(self, assistant: Assistant) -> None:
        self._set_ready(True)
        state = assistant.state
        self.view.status.setText(self._idle_label() if state == "idle" else state_label(state))
        self.refresh_conversations()

    def _set_ready(self, ready: bool) -> None:
        for widget in (self.view.send_button, self.view.new_button):
            widget.setEnabled(ready)
        if not ready:
            self.view.status.setText(self.context.connection_problem or "Not connected")

    def show_problem(self, message: str, hint: str = "") -> None:
        """Say what went wrong in the transcript and the status line."""
        self.view.transcript.append_error(for_people(message, ""), for_people("", hint))
        self.view.status.setText(for_people(message, ""))

    def show_error(self, card: ErrorCard) -> None:
        """An error card: the plain sentence, its buttons, the detail folded under it."""
        transcript = self.view.transcript
        transcript.append_error(card.message, actions=card.actions, detail=card.detail)
        self.view.status.setText(card.message)

    def show_no_model(self, reason: str) -> None:
        """No model can answer (``reason``; "" once one can): said before the first message.

        With what still works without one and the one button that sets a model up; the status
        line never says "Ready" meanwhile.
        """
        self.no_model = reason
        transcript = self.view.transcript
        if reason and transcript.is_placeholder and self._run is None:
            transcript.show_placeholder("")
            button = (("Set up a model", "aria-action:set_up_model"),)
            transcript.append_error(reason, WORKS_WITHOUT_MODEL, actions=button, notice=True)
            self.no_model_shown = True
        elif not reason and self.no_model_shown and self.conversation_id is None:
            transcript.show_placeholder()
            self.no_model_shown = False
        if self._run is None:
            self.view.status.setText(self._idle_label())

    def _idle_label(self) -> str:
        if self.no_model:
            return "No model can answer · everyday commands still work"
        return "Ready"

    def run_action(self, link: str) -> bool:
        """An error card's button: Retry sends the failed question again; others go up."""
        action = action_of(link)
        if action is None:
            return False
        if action == "retry":
            if self._retry_text and self._run is None and self.context.connected:
                self.send(self._retry_text)
        else:
            self.action_requested.emit(action)
        return True

    # --- conversations ------------------------------------------------------------------------

    def refresh_conversations(self) -> None:
        """Reload the conversation list."""
        self.context.tasks.spawn(self._load_conversations(), name="aria-gui-list-conversations")

    async def _load_conversations(self) -> None:
        conversations = await self.context.assistant.list_conversations(limit=200)
        self._titles = [(c.id, c.title) for c in conversations]
        now = time.time()
        self._dates = {c.id: conversation_date(c.updated_at, now) for c in conversations}
        self._apply_filter(self.view.search.text())

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        shown = [(cid, title) for cid, title in self._titles if needle in title.lower()]
        self.view.set_conversations(shown, self.conversation_id, self._dates)

    def new_conversation(self, *, end_previous: bool = True) -> None:
        """Start afresh: the next message creates a conversation.

        The one left is done: its episode is kept now (``end_previous``), not after it idles.
        """
        previous, self.conversation_id = self.conversation_id, None
        if previous is not None and end_previous:
            self.context.tasks.spawn(self._end(previous), name="aria-gui-end-conversation")
        self.view.conversations.clearSelection()
        self.view.conversations.setCurrentRow(-1)
        self.view.transcript.show_placeholder()
        self.view.composer.setFocus()

    def redraw(self) -> None:
        """Draw the open conversation again: its colours were painted for the old palette."""
        if self._run is None and self.conversation_id is not None:
            self.open_conversation(self.conversation_id)
        elif self._run is None and self.view.transcript.is_placeholder:
            transcript = self.view.transcript
            transcript.show_placeholder(transcript.placeholder_text, transcript.suggestion)

    def suggest(self, text: str) -> None:
        """A new conversation offering ``text`` to try (clicking it sends it)."""
        self.new_conversation()
        self.view.transcript.show_placeholder(
            "Ask ARIA anything, or try this. It works on this computer, even without a model:",
            text,
        )

    def open_conversation(self, conversation_id: str) -> None:
        """Show a stored conversation."""
        self.conversation_id = conversation_id
        self._apply_filter(self.view.search.text())
        self.context.tasks.spawn(
            self._load_messages(conversation_id), name="aria-gui-load-messages"
        )

    def _on_selected(self, current: QListWidgetItem | None, _previous: object) -> None:
        if current is None:
            return
        conversation_id = str(current.data(CONVERSATION_ID_ROLE))
        if conversation_id != self.conversation_id:
            self.open_conversation(conversation_id)

    def _show_stored_failure(self, code: str, message: str) -> None:
        """A failed reply from history: why it failed (when it was kept), and Retry."""
        transcript = self.view.transcript
        if not code:  # failed before ARIA kept reasons
            reason = "This reply failed; why was not kept."
            transcript.append_error(reason, actions=(("Retry", "aria-action:retry"),))
            return
        card = error_card(code, message)
        actions = card.actions
        if not any(link == "aria-action:retry" for _, link in actions):
            actions = (("Retry", "aria-action:retry"), *actions)
        transcript.append_error(card.message, actions=actions, detail=card.detail)

    async def _load_messages(self, conversation_id: str) -> None:
        messages = await self.context.assistant.list_messages(conversation_id, limit=200)
        cited = await self.citations.load(conversation_id)
        if conversation_id != self.conversation_id:
            return
        transcript = self.view.transcript
        transcript.show_placeholder("This conversation is empty.")
        calls: dict[str, tuple[str, dict[str, Any]]] = {}
        for message in messages:
            if message.role == "user":
                transcript.append_user(message.content)
                self._retry_text = message.content
            elif message.role == "assistant" and message.status == "error" and not message.content:
                self._show_stored_failure(message.error_code, message.error_message)
            elif message.role == "assistant":
                for call in message.tool_calls:
                    calls[call.id] = (call.name, call.arguments)
                if message.thinking:
                    transcript.append_thinking(message.thinking)
                if message.content or not message.tool_calls:
                    note = {
                        "interrupted": "This reply was cut off.",
                        "error": "This reply failed.",
                    }.get(message.status, "")
                    # Where a stored reply ran is not stored: name the backend, never guess.
                    badge = reply_badge(message.model, message.backend, "", None)
                    badge = f"{clock_time(message.created_at)} · {badge}".rstrip(" ·")
                    linked, used = self.citations.stored_reply(message.content, cited)
                    transcript.append_reply(linked, badge, note=note)
                    self.citations.show_sources(used)
            elif message.role == "tool":
                name, arguments = calls.get(message.tool_call_id or "", (message.name or "", {}))
                card = tool_card(name, arguments, message.content)
                output = tool_output(name, message.content)
                transcript.append_tool_card(*card, "ok", output)
        if self._run is not None and self._run.transcript.conversation_id == conversation_id:
            transcript.begin_reply()
            self._flush()

    def _rename_current(self) -> None:
        item: QListWidgetItem | None = self.view.conversations.currentItem()
        if item is not None:
            self.view.conversations.editItem(item)

    def _on_item_edited(self, item: QListWidgetItem) -> None:
        conversation_id = str(item.data(CONVERSATION_ID_ROLE))
        title = " ".join(item.text().split())
        if not title:
            self.refresh_conversations()
            return
        self.context.tasks.spawn(
            self._rename(conversation_id, title), name="aria-gui-rename-conversation"
        )

    async def _rename(self, conversation_id: str, title: str) -> None:
        await self.context.assistant.rename_conversation(conversation_id, title)
        await self._load_conversations()

    def _ask_delete_current(self) -> None:
        item: QListWidgetItem | None = self.view.conversations.currentItem()
        if item is None:
            return
        conversation_id = str(item.data(CONVERSATION_ID_ROLE))
        self._delete_box = ask_before(
            self.view,
            "Delete conversation",
            f"Delete “{item.text()}” and all its messages? This cannot be undone.",
            "Delete",
            lambda: self.delete_conversation(conversation_id),
        )

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete a conversation (after the user confirmed)."""
        if conversation_id == self.conversation_id:
            self.new_conversation(end_previous=False)
        self.context.tasks.spawn(self._delete(conversation_id), name="aria-gui-delete")

    async def _end(self, conversation_id: str) -> None:
        try:
            await self.context.assistant.end_conversation(conversation_id)
        except AriaError as exc:  # the episode is written later, when the conversation idles
            _LOGGER.info("Could not keep the episode of %s now: %s", conversation_id, exc)

    async def _delete(self, conversation_id: str) -> None:
        await self.context.assistant.delete_conversation(conversation_id)
        await self._load_conversations()

    # --- sending and streaming ----------------------------------------------------------------

    def send_from_composer(self) -> None:
        """Send what is in the composer."""
        text = self.view.composer.toPlainText().strip()
        if not text:
            return
        if self._run is not None:
            self.view.status.setText("ARIA is still answering — press Stop to interrupt it.")
            return
        if not self.context.connected:
            self.view.status.setText(self.context.connection_problem or "Not connected.")
            return
        self.view.composer.clear()
        self.send(text)

    def send(self, text: str) -> None:
        """Start a turn with ``text`` in the open conversation (or a new one).

        What is attached (the Attach button) goes with it, and is listed under the message.
        """
        self._sending = self.attach.take()
        note = attached_note([name for name, _ in self._sending])
        attachments = tuple(attachment for _, attachment in self._sending)
        self.view.transcript.append_user(text, note=note)
        self._awaiting = text
        self._retry_text = text
        self.view.set_busy(True)
        self.view.status.setText("Sending…")
        self.context.tasks.spawn(
            self._start(text, attachments), name="aria-gui-start-turn", on_error=self._start_failed
        )

    async def _start(self, text: str, attachments: tuple[TurnAttachment, ...] = ()) -> None:
        started = await self.context.assistant.start_turn(
            StartTurn(
                text=text,
                conversation_id=self.conversation_id,
                source="text",
                attachments=attachments,
            )
        )
        self._awaiting = None
        if self._run is None:
            self._run = _ShownTurn.start(started.run_id, started.conversation_id)
        if self.conversation_id != started.conversation_id:
            self.conversation_id = started.conversation_id
            self.refresh_conversations()

    def _start_failed(self, message: str, hint: str) -> None:
        """The question did not reach ARIA: say so, with Retry (a terminal's hint stays out)."""
        self._awaiting = None
        self.attach.restore(self._sending)  # what was attached goes with a Retry too
        self.view.set_busy(False)
        plain_hint = "" if "`" in hint else hint
        retry = (("Retry", "aria-action:retry"),)
        self.view.transcript.append_error(message, plain_hint, actions=retry)
        self.view.status.setText(message)

    def stop(self) -> None:
        """Cancel the reply in progress."""
        run = self._run
        if run is None:
            return
        self.view.status.setText("Stopping…")
        self.context.tasks.spawn(
            self.context.assistant.cancel_turn(run.run_id), name="aria-gui-cancel-turn"
        )

    @property
    def current_run_id(self) -> str | None:
        """The run shown as streaming, if any."""
        return self._run.run_id if self._run is not None else None

    def _on_state(self, state: str, _backend: str, _locality: str) -> None:
        if self._run is None:
            self.view.status.setText(self._idle_label() if state == "idle" else state_label(state))

    def _on_event(self, event: events.Event) -> None:
        if isinstance(event, events.RunStart):
            self._adopt(event)
            return
        run = self._run
        if run is None or event.run_id != run.run_id:
            return
        if isinstance(event, _SEGMENT_ENDS):
            self._close_segment()
        run.transcript.add(event)
        self._show(run, event)

    def _show(self, run: _ShownTurn, event: events.Event) -> None:
        """Draw what ``event`` (already folded into ``run``'s transcript) changed."""
        transcript = self.view.transcript
        if isinstance(event, events.LlmThinking):
            self._show_thinking(run, event)
            return
        if run.thinking_card is not None:
            transcript.end_thinking(run.thinking_card)
            run.thinking_card = None
        if isinstance(event, events.LlmDelta):
            if not self._flush_timer.isActive():
                self._flush_timer.start()
            self.view.status.setText("Answering…")
        elif isinstance(event, events.ToolCallEvent):
            self.view.status.setText(f"Using {event.name}…")
        elif isinstance(event, events.ToolResultEvent):
            call = run.transcript.tool_calls[event.call_id]
            card = tool_card(call.name, call.arguments, event.result)
            transcript.append_tool_card(*card, event.status, tool_output(call.name, event.result))
        elif isinstance(event, events.BackendFallback):
            transcript.append_notice(
                f"{event.from_backend} did not answer ({event.reason.replace('_', ' ')}); "
                f"trying {event.to_backend}."
            )
        elif isinstance(event, events.UntrustedContentFlagged):
            transcript.append_notice(event.warning())
        elif isinstance(event, events.ActionConfirmRequest):
            self.view.status.setText("Waiting for you to approve or deny an action…")
        elif isinstance(event, events.ErrorEvent):
            self.show_error(error_card(event.code, event.message))
        elif isinstance(event, events.RunEnd):
            self._finish(run, event.status)

    def _show_thinking(self, run: _ShownTurn, event: events.LlmThinking) -> None:
        """Reasoning goes into its own folded card, never into the reply."""
        transcript = self.view.transcript
        if run.thinking_card is None:
            self._close_segment()
            run.thinking_card = transcript.begin_thinking()
            # The turn's reasoning so far is folded in already, this event's text last.
            run.thinking_from = len(run.transcript.thinking) - len(event.text)
        transcript.set_thinking(run.thinking_card, run.transcript.thinking[run.thinking_from :])
        self.view.status.setText("Thinking…")

    def _adopt(self, event: events.RunStart) -> None:
        """Show a turn started elsewhere (voice, quick ask) in the open conversation."""
        if self._run is not None and self._run.run_id == event.run_id:
            return
        if self._run is None and event.run_id is not None and self._awaiting is not None:
            if event.source == "text" and event.text == self._awaiting:
                # Over the HTTP API the events can overtake the answer to start_turn.
                self._run = _ShownTurn.start(event.run_id, event.conversation_id)
            return
        if (
            self._run is None
            and event.run_id is not None
            and event.conversation_id == self.conversation_id
            and event.source != "text"
        ):
            self._run = _ShownTurn.start(event.run_id, event.conversation_id)
            self.view.transcript.append_user(event.text)
            self.view.set_busy(True)

    def _flush(self) -> None:
        run = self._run
        if run is None or run.transcript.segment_text == run.rendered:
            return
        text = run.transcript.segment_text
        if not self.view.transcript.reply_open:
            self.view.transcript.begin_reply()
        self.view.transcript.set_reply_markdown(text)
        run.rendered = text
        self.reply_rendered.emit(text)

    def _close_segment(self) -> None:
        """End the reply text shown so far (a tool card or notice follows it)."""
        self._flush_timer.stop()
        self._flush()
        if self.view.transcript.reply_open:
            self.view.transcript.end_reply()
        if self._run is not None:
            self._run.rendered = ""

    def _finish(self, run: _ShownTurn, status: events.RunStatus) -> None:
        self._flush_timer.stop()
        self._flush()
        transcript, folded = self.view.transcript, run.transcript
        badge = reply_badge(folded.model, folded.backend, folded.locality, folded.latency_ms)
        badge = f"{clock_time(time.time())} · {badge}".rstrip(" ·")  # when it was answered
        linked, used = self.citations.link_reply(folded.conversation_id, run.rendered)
        if status == "complete":
            if transcript.reply_open:
                if used:
                    transcript.set_reply_markdown(linked)
                transcript.end_reply(badge)
                self.citations.show_sources(used)
            elif folded.backend == SKILLS_BACKEND:
                transcript.append_notice("Okay.")  # "never mind": a skill ended the turn quietly
            else:
                transcript.append_notice(f"Done · {badge}")
        elif status == "cancelled":
            if transcript.reply_open:
                transcript.end_reply(note="Stopped — what arrived is kept.")
            else:
                transcript.append_notice("Stopped.")
        elif status == "interrupted":
            transcript.end_reply(note="The reply was cut off; what arrived is kept.")
        else:
            transcript.end_reply()
        self._run = None
        self.view.set_busy(False)
        if status != "error":  # a failed turn's status line keeps saying why
            self.view.status.setText({"cancelled": "Stopped"}.get(status, self._idle_label()))
        self.refresh_conversations()
        self.turn_finished.emit(run.run_id, status)

    # --- links --------------------------------------------------------------------------------

    def ask_open_link(self, url: QUrl) -> None:
        """Links in replies open only after the user agrees (replies are untrusted).

        A tool card's own "Show output" link expands the card instead. A citation's link was
        made by ARIA (the knowledge base's file or URL), not by the model: it opens at once.
        """
        if url.scheme() == "aria-tool" and self.view.transcript.toggle_output(url.toString()):
            return
        if self.run_action(url.toString()):
            return
        if url.scheme() == COPY_SCHEME:
            code = self.view.transcript.code_blocks.get(url.toString())
            if code is not None:
                QGuiApplication.clipboard().setText(code)
                self.view.status.setText("Code copied.")
            return
        if url.toString() == SUGGESTION_LINK:
            if self.view.transcript.suggestion and self._run is None and self.context.connected:
                self.send(self.view.transcript.suggestion)
            return
        if self.citations.handles(url):
            self.citations.open(url)
            return
        if url.scheme().lower() not in _SAFE_SCHEMES:
            self.view.status.setText(f"ARIA does not open {url.scheme() or 'relative'} links.")
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Open link",
            f"Open this link in your browser?\n\n{url.toString()}",
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
            self.view,
        )
        box.setWindowModality(Qt.WindowModality.WindowModal)

        def finished() -> None:
            if box.clickedButton() is box.button(QMessageBox.StandardButton.Open):
                QDesktopServices.openUrl(url)
            if self._link_box is box:
                self._link_box = None
            box.deleteLater()

        box.finished.connect(finished)
        self._link_box = box
        box.open()
