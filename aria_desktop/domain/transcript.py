"""What one turn's events add up to — decided once for every front-end.

The GUI, the CLI, the API's non-streamed reply and the voice pipeline all fold the same event
stream into "the reply so far, who answered, what it cost, how it ended". Doing that fold in
each of them let the copies disagree (which step's text counts, whether a fallback resets the
text, where the backend's locality comes from). :class:`TurnTranscript` is that fold, pure and
Qt-free: feed it events with :meth:`TurnTranscript.add`, read the fields.

Rules (one place):

* The reply is the text of the *last* model step: a ``think-start`` begins a new step, so the
  text a model wrote before a tool call is not part of the final answer (``segment_text`` keeps
  what was shown since the last tool card or notice, for renderers that draw segments).
* ``backend``/``model``/``locality`` come from the last ``think-end`` that names a backend.
* Token usage adds up over all steps.
* The first ``error`` event is the turn's error; the ``run-end`` gives status and latency.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from aria_desktop.domain import events
from aria_desktop.domain.locality import Locality

__all__ = ["ToolCallRecord", "TurnTranscript"]


@dataclass
class ToolCallRecord:
    """One tool call of the turn and, once it finished, its outcome."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    status: Literal["ok", "error", "denied"] | None = None
    result: str = ""


@dataclass
class TurnTranscript:
    """The fold of one turn's events (events of other runs are ignored once ``run_id`` is set).

    Attributes:
        run_id: the turn; taken from the first event that carries one when not given.
        conversation_id: from ``run-start``/``run-end``.
        text: the reply — the text of the current (finally: last) model step.
        segment_text: text since the last tool call, fallback or error (what a renderer
            shows in the open reply bubble).
        backend, model, locality: who answered the last step ("" until one did).
        input_tokens, output_tokens: token counts over all steps.
        cost: what the turn's model calls cost (``llm.prices``; 0 for local backends).
        thinking: the model's reasoning over all steps, kept apart from ``text``.
        tool_calls: the turn's tool calls by call id, in order.
        client_calls: calls of a client's tools the turn ended with (``ClientTurn``).
        error: the turn's first error event, if any.
        status: how the turn ended (None while it runs).
        latency_ms: run-start to run-end, milliseconds (0 while it runs).
    """

    run_id: str | None = None
    conversation_id: str = ""
    text: str = ""
    segment_text: str = ""
    backend: str = ""
    model: str = ""
    locality: Locality | Literal[""] = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    thinking: str = ""
    tool_calls: dict[str, ToolCallRecord] = field(default_factory=dict)
    client_calls: list[events.ClientToolCall] = field(default_factory=list)
    error: events.ErrorEvent | None = None
    status: events.RunStatus | None = None
    latency_ms: float = 0.0

    @property
    def done(self) -> bool:
        """Whether the turn's ``run-end`` has been seen."""
        return self.status is not None

    def accepts(self, event: events.Event) -> bool:
        """Whether ``event`` belongs to this turn (always, before a run id is known)."""
        return self.run_id is None or event.run_id is None or event.run_id == self.run_id

    def add(self, event: events.Event) -> None:
        """Fold one event in (events of another run are ignored)."""
        if event.run_id is not None and self.run_id is None:
            self.run_id = event.run_id
        elif event.run_id is not None and event.run_id != self.run_id:
            return
        if isinstance(event, events.LlmDelta):
            self.text += event.text
            self.segment_text += event.text
        elif isinstance(event, events.ThinkStart):
            self.text = ""
        elif isinstance(event, events.ThinkEnd):
            if event.backend:
                self.backend, self.model = event.backend, event.model
                self.locality = event.locality
            self.input_tokens += event.usage.input_tokens
            self.output_tokens += event.usage.output_tokens
            self.cost += event.usage.cost
        elif isinstance(event, events.LlmThinking):
            self.thinking += event.text
        elif isinstance(event, events.ToolCallEvent):
            self.segment_text = ""
            self.tool_calls[event.call_id] = ToolCallRecord(
                call_id=event.call_id, name=event.name, arguments=dict(event.arguments)
            )
        elif isinstance(event, events.ClientToolCall):
            self.client_calls.append(event)
        elif isinstance(event, events.ToolResultEvent):
            record = self.tool_calls.setdefault(
                event.call_id, ToolCallRecord(call_id=event.call_id, name=event.name, arguments={})
            )
            record.status, record.result = event.status, event.result
        elif isinstance(event, events.BackendFallback):
            self.segment_text = ""
        elif isinstance(event, events.ErrorEvent):
            self.segment_text = ""
            if self.error is None:
                self.error = event
        elif isinstance(event, events.RunStart):
            self.conversation_id = event.conversation_id
        elif isinstance(event, events.RunEnd):
            self.conversation_id = event.conversation_id or self.conversation_id
            self.status, self.latency_ms = event.status, event.latency_ms
