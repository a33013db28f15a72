"""One ``ClientTurn`` over the ``Assistant``, shared by the OpenAI and Ollama routers.

Both protocols do the same thing underneath: resolve the requested model name, start a turn
with the client's messages and tools, then either fold its events into one reply or hand them
to the router's wire format as they come. Only the wire formats differ
(``api/compat/openai_wire.py``, ``api/compat/ollama_wire.py``; ARCHITECTURE.md: api, compatible
endpoints).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from fastapi import Request

from aria_desktop.api.config import CompatModel, client_label
from aria_desktop.api.server.deps import ApiState
from aria_desktop.core.ports import Assistant, EventSubscription
from aria_desktop.domain.commands import ClientTurn
from aria_desktop.domain.errors import AriaError, NotFoundError
from aria_desktop.domain.events import Event, RunEnd
from aria_desktop.domain.transcript import TurnTranscript

__all__ = ["CompatTurn", "TurnStream", "describe", "resolve_model", "run_whole", "start_streamed"]


def resolve_model(state: ApiState, requested: str) -> CompatModel:
    """The offered model ``requested`` names (NotFoundError listing the offered ones)."""
    compat = state.config.compat
    if not compat.enabled:
        raise NotFoundError(
            "The OpenAI- and Ollama-compatible endpoints are switched off.",
            hint="Set compat.enabled = true and restart ARIA.",
        )
    model = compat.find(requested)
    if model is None:
        offered = ", ".join(m.name for m in compat.models) or "none"
        raise NotFoundError(
            f"ARIA offers no model named {requested!r}.",
            hint=f"Use one of: {offered} (setting compat.models).",
        )
    return model


@dataclass(frozen=True, kw_only=True)
class CompatTurn:
    """What a router knows about the request before the turn starts.

    Attributes:
        model: the offered model asked for.
        client: the client's label (``protocol/product``).
        private: never mine the turn for memories.
        started_s: wall-clock time the request arrived, UNIX seconds.
    """

    model: CompatModel
    client: str
    private: bool
    started_s: float


def describe(state: ApiState, request: Request, protocol: str, requested: str) -> CompatTurn:
    """The model, the client's label and its privacy for a request."""
    model = resolve_model(state, requested)
    client = client_label(protocol, request.headers.get("user-agent", ""))
    return CompatTurn(
        model=model,
        client=client,
        private=state.config.compat.is_private(model, client),
        started_s=time.time(),
    )


async def run_whole(state: ApiState, command: ClientTurn) -> TurnTranscript:
    """Run the turn to its end and return its fold (the non-streamed reply)."""
    sub = state.assistant.subscribe()
    try:
        started = await state.assistant.start_turn(command)
        turn = TurnTranscript(run_id=started.run_id, conversation_id=started.conversation_id)
        async for event in sub:
            if event.run_id == started.run_id:
                turn.add(event)
            if turn.done:
                return turn
    finally:
        sub.close()
    raise AriaError("ARIA stopped before the reply was finished.", hint="Ask again later.")


@dataclass(kw_only=True)
class TurnStream:
    """A started turn's subscription (counted as an open stream), its run id and its owner.

    Attributes:
        ended: the turn's ``run-end`` was passed on.
    """

    sub: EventSubscription
    run_id: str
    assistant: Assistant
    ended: bool = False

    async def events(self, idle_timeout_s: float) -> AsyncIterator[Event]:
        """The turn's events up to and including ``run-end``.

        Raises:
            TimeoutError: nothing happened for ``idle_timeout_s``.
            AriaError: the subscriber lagged (events were lost).
        """
        while not self.ended:
            try:
                event = await self.sub.get(timeout_s=idle_timeout_s)
            except StopAsyncIteration:
                raise AriaError("ARIA is stopping.", hint="Ask again after it restarts.") from None
            if event.run_id != self.run_id:
                continue
            self.ended = isinstance(event, RunEnd)
            yield event

    async def close(self) -> None:
        """The response is over: a client that left before the end cancels the turn.

        Closing the connection stops generation on OpenAI's and Ollama's servers too; what was
        written so far stays stored as interrupted.
        """
        if not self.ended:
            await self.assistant.cancel_turn(self.run_id)


async def start_streamed(state: ApiState, command: ClientTurn) -> TurnStream:
    """Start the turn with a stream slot held (TooManyStreamsError when none is free)."""
    sub = state.assistant.subscribe()
    state.admit_stream(sub)
    try:
        started = await state.assistant.start_turn(command)
    except BaseException:
        state.streams.release(sub)
        raise
    return TurnStream(sub=sub, run_id=started.run_id, assistant=state.assistant)
