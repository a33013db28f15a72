"""One model step of a turn: the streamed reply, its events and its row in storage.

Each kind of stream chunk has one small handler (text, thinking, a tool call, a rejected call,
a fallback notice, a fitted prompt, the end); the step looks the handler up by the chunk's type.
Whatever happens to the stream, the step's assistant row gets its final state and the step's
``think-end`` is published (``core/agent.py`` describes the persistence).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aria_desktop.core.assistant_row import AssistantRow
from aria_desktop.core.bus import EventBus
from aria_desktop.core.ports import ChatModel, Clock, ConversationStore
from aria_desktop.domain import chat, events
from aria_desktop.domain.errors import AriaError, StreamInterruptedError

__all__ = ["ModelSteps", "StepReply", "pass_on_first_piece"]

_LOGGER = logging.getLogger(__name__)


async def pass_on_first_piece() -> None:
    """Let front-ends send a step's first piece before the agent parses what came with it.

    A model server often delivers several pieces in one read; without a turn of the event loop
    here the agent would publish them all, and store the row, before any subscriber could write
    the first one out (ARCHITECTURE.md: first-chunk latency).
    """
    await asyncio.sleep(0)


@dataclass(frozen=True, kw_only=True)
class StepReply:
    """What one completed step brought.

    Attributes:
        text: the reply text.
        calls: the tool calls, in order.
        end: the stream's end (who answered, usage).
        thought: the reasoning and its signature (empty when the model did not think).
        rejected: tool calls written as text that could not be used (``core/text_calls.py``).
    """

    text: str
    calls: list[chat.ToolCall]
    end: chat.StreamEnd
    thought: chat.ThinkingDelta
    rejected: list[chat.ToolCallRejected]


@dataclass(frozen=True, kw_only=True)
class _StepIds:
    run_id: str
    conversation_id: str
    step: int


class _StepStream:
    """What one step's stream has brought so far, and what each kind of chunk does."""

    def __init__(
        self, *, bus: EventBus, clock: Clock, row: AssistantRow, ids: _StepIds, started: float
    ) -> None:
        self._bus, self._clock, self._row, self._ids = bus, clock, row, ids
        self._started = started
        self.first_token_ms: float | None = None
        self.parts: list[str] = []
        self.calls: list[chat.ToolCall] = []
        self.thinking: list[str] = []
        self.signature = ""
        self.rejected: list[chat.ToolCallRejected] = []
        self.end: chat.StreamEnd | None = None
        self._handlers: dict[type[object], Callable[[Any], Awaitable[None]]] = {
            chat.TextDelta: self._on_text,
            chat.ThinkingDelta: self._on_thinking,
            chat.ToolCallChunk: self._on_tool_call,
            chat.ToolCallRejected: self._on_rejected,
            chat.FallbackNotice: self._on_fallback,
            chat.PromptBudgeted: self._on_prompt_fitted,
            chat.StreamEnd: self._on_end,
        }

    def text(self) -> str:
        """The reply text so far."""
        return "".join(self.parts)

    async def consume(self, stream: AsyncGenerator[chat.LLMChunk, None]) -> chat.StreamEnd:
        """Handle every chunk of ``stream``; returns its end (a stream without one is cut)."""
        async with contextlib.aclosing(stream):
            async for chunk in stream:
                handler = self._handlers.get(type(chunk))
                if handler is not None:
                    await handler(chunk)
        if self.end is None:
            raise StreamInterruptedError(
                "The reply stream ended without finishing.", partial_text=self.text()
            )
        return self.end

    def _elapsed_ms(self) -> float:
        return (self._clock.monotonic() - self._started) * 1000

    async def _on_text(self, chunk: chat.TextDelta) -> None:
        """Reply text: published and saved as it comes; the first piece goes out on its own."""
        first = self.first_token_ms is None
        if first:
            self.first_token_ms = self._elapsed_ms()
        self.parts.append(chunk.text)
        self._bus.publish(events.LlmDelta(run_id=self._ids.run_id, text=chunk.text))
        self._row.text_changed(self.text)
        if first:
            await pass_on_first_piece()

    async def _on_thinking(self, chunk: chat.ThinkingDelta) -> None:
        """Reasoning: its own event and column, never part of the answer."""
        if chunk.text:
            self.thinking.append(chunk.text)
            self._bus.publish(events.LlmThinking(run_id=self._ids.run_id, text=chunk.text))
        self.signature = chunk.signature or self.signature

    async def _on_tool_call(self, chunk: chat.ToolCallChunk) -> None:
        """A complete tool call, kept for after the stream (a call counts as a first token)."""
        if self.first_token_ms is None:
            self.first_token_ms = self._elapsed_ms()
        self.calls.append(chunk.call)

    async def _on_rejected(self, chunk: chat.ToolCallRejected) -> None:
        """A tool call written as text that cannot be used: the agent tells the model."""
        self.rejected.append(chunk)

    async def _on_fallback(self, chunk: chat.FallbackNotice) -> None:
        """The router moved on to the next backend: the user sees who answers instead."""
        self._bus.publish(
            events.BackendFallback(
                run_id=self._ids.run_id,
                from_backend=chunk.from_backend,
                to_backend=chunk.to_backend,
                reason=chunk.reason,
            )
        )

    async def _on_prompt_fitted(self, chunk: chat.PromptBudgeted) -> None:
        """What the router left out of the prompt, as the turn's ``prompt-fitted`` event."""
        _LOGGER.info(
            "run %s: prompt fitted to %s's %d-token window (%d history message(s) left out)",
            self._ids.run_id,
            chunk.backend,
            chunk.context_tokens,
            chunk.dropped_messages,
        )
        self._bus.publish(events.PromptFitted(run_id=self._ids.run_id, fit=chunk))

    async def _on_end(self, chunk: chat.StreamEnd) -> None:
        """The reply finished cleanly."""
        self.end = chunk

    async def save(self, status: chat.MessageStatus, failure: BaseException | None = None) -> None:
        """Give the row its final state and publish ``message-saved`` and ``think-end``.

        A reply that failed keeps why (``failure``'s code and message) for history to say.
        """
        end, ids = self.end, self._ids
        code, reason = _failure_reason(status, failure)
        # Tool calls from a reply that did not complete are never kept or executed.
        saved_calls = tuple(self.calls) if status == "complete" else ()
        message_id = await asyncio.shield(
            self._row.finish(
                chat.MessageBody(
                    content=self.text(),
                    status=status,
                    tool_calls=saved_calls,
                    backend=end.backend if end else "",
                    model=end.model if end else "",
                    usage=end.usage if end else None,
                    thinking="".join(self.thinking),
                    error_code=code,
                    error_message=reason,
                )
            )
        )
        self._bus.publish(
            events.MessageSaved(
                run_id=ids.run_id,
                conversation_id=ids.conversation_id,
                message_id=message_id,
                role="assistant",
                status=status,
                backend=end.backend if end else "",
                model=end.model if end else "",
            )
        )
        self._bus.publish(
            events.ThinkEnd(
                run_id=ids.run_id,
                step=ids.step,
                backend=end.backend if end else "",
                model=end.model if end else "",
                locality=end.locality if end else "",
                usage=end.usage if end else chat.Usage(),
                first_token_ms=self.first_token_ms,
                latency_ms=self._elapsed_ms(),
            )
        )


@dataclass(frozen=True, kw_only=True)
class ModelSteps:
    """Streams the model steps of turns; owned by the agent loop.

    Attributes:
        model: streams the replies.
        store: keeps each step's assistant row.
        bus: carries the step's events.
        clock: times the step and its flushes.
        flush_interval_s: how often streamed text is saved while it arrives, seconds.
    """

    model: ChatModel
    store: ConversationStore
    bus: EventBus
    clock: Clock
    flush_interval_s: float

    async def run(
        self,
        request: chat.ChatRequest,
        *,
        run_id: str,
        conversation_id: str,
        step: int,
        agent: str,
        backend: str | None,
        after: Awaitable[object] | None,
    ) -> StepReply:
        """Stream one reply to ``request``; its row is written after ``after`` (the user's)."""
        bus, clock = self.bus, self.clock
        ids = _StepIds(run_id=run_id, conversation_id=conversation_id, step=step)
        bus.publish(events.ThinkStart(run_id=run_id, step=step))
        started = clock.monotonic()
        row = AssistantRow(
            self.store,
            conversation_id,
            after=after,
            flush_interval_s=self.flush_interval_s,
            clock=clock,
        )
        reply = _StepStream(bus=bus, clock=clock, row=row, ids=ids, started=started)
        status: chat.MessageStatus = "error"
        failure: BaseException | None = None
        try:
            end = await reply.consume(self.model.stream(request, agent=agent, backend=backend))
            status = "complete"
        except StreamInterruptedError as exc:
            if not reply.parts and exc.partial_text:
                reply.parts.append(exc.partial_text)
            status = "interrupted"
            raise
        except BaseException as exc:
            status = "interrupted" if reply.parts else "error"
            failure = exc
            raise
        finally:
            await reply.save(status, failure)
        thought = chat.ThinkingDelta(text="".join(reply.thinking), signature=reply.signature)
        return StepReply(
            text=reply.text(), calls=reply.calls, end=end, thought=thought, rejected=reply.rejected
        )


def _failure_reason(status: chat.MessageStatus, failure: BaseException | None) -> tuple[str, str]:
    """The stored reason of a failed reply: an ``AriaError``'s code and message, else none."""
    if status != "error" or not isinstance(failure, AriaError):
        return "", ""
    return failure.code, failure.message
