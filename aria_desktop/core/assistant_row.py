"""The assistant message of a streaming reply, persisted without slowing the stream down.

The row is created concurrently with the model request and its text is flushed in the
background at most every ``flush_interval_s`` while streaming (status ``interrupted`` until
the reply completes), so a cut, cancelled or crashed reply stays in storage as ``interrupted``
(ARCHITECTURE.md: one chat turn).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from aria_desktop.core.ports import Clock, ConversationStore
from aria_desktop.domain.chat import MessageBody, NewMessage

__all__ = ["AssistantRow"]


class AssistantRow:
    """The assistant message being streamed, persisted without slowing the stream down."""

    def __init__(
        self,
        store: ConversationStore,
        conversation_id: str,
        *,
        after: Awaitable[object] | None,
        flush_interval_s: float,
        clock: Clock,
    ) -> None:
        self._store = store
        self._clock = clock
        self._interval_s = flush_interval_s
        self._conversation_id = conversation_id
        self._text: Callable[[], str] = str
        self._last_flush = clock.monotonic()
        self._flush_task: asyncio.Task[None] | None = None
        self._created = asyncio.create_task(self._create(after), name="aria-assistant-row")

    async def _create(self, after: Awaitable[object] | None) -> int:
        if after is not None:
            await after
        message = await self._store.add_message(
            self._conversation_id, NewMessage(role="assistant", content="", status="interrupted")
        )
        return message.id

    def text_changed(self, text: Callable[[], str]) -> None:
        """Note new text; schedules a background save at most every ``flush_interval_s``."""
        self._text = text
        now = self._clock.monotonic()
        if now - self._last_flush < self._interval_s:
            return
        if self._flush_task is None or self._flush_task.done():
            self._last_flush = now
            self._flush_task = asyncio.create_task(self._flush(), name="aria-stream-flush")

    async def _flush(self) -> None:
        message_id = await self._created
        await self._store.update_message(
            message_id, MessageBody(content=self._text(), status="interrupted")
        )

    async def finish(self, body: MessageBody) -> int:
        """Write the final state of the message; returns its id."""
        if self._flush_task is not None:
            with contextlib.suppress(Exception):
                await self._flush_task
        message_id = await self._created
        await self._store.update_message(message_id, body)
        return message_id
