"""OpenAI's Responses API on ARIA's port: ``POST /v1/responses``, streamed or whole.

What the chat-completions endpoint does (memory recall, the routing chain, breakers and
fallback behind one offered model name; ``openai_routes``), in the Responses API's request and
reply shapes (``responses_wire``, ``responses_out``), with ``previous_response_id`` answered
from the conversations ARIA keeps per token (``api/server/responses_store.py``). The security
middleware guards it like every ``/v1`` path and shapes its errors as OpenAI's.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from aria_desktop.api.compat.docs import OPENAI_ERRORS
from aria_desktop.api.compat.responses_out import ResponseShape, ResponseStream
from aria_desktop.api.compat.responses_wire import ResponsesIn, function_tools, to_command
from aria_desktop.api.compat.turn import TurnStream, describe, run_whole, start_streamed
from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import ApiState, StateDep
from aria_desktop.api.server.errors import status_for_code
from aria_desktop.api.server.protocol_errors import openai_error
from aria_desktop.api.server.responses_store import token_key
from aria_desktop.api.server.sse import EventStreamResponse
from aria_desktop.domain.chat import ChatMessage, ToolCall
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.events import ClientToolCall, ErrorEvent, LlmDelta, RunEnd
from aria_desktop.domain.transcript import TurnTranscript

__all__ = ["router"]

_LOGGER = logging.getLogger(__name__)

router = APIRouter(prefix="/v1", tags=["openai-compatible"])

_STREAM_DOC = docs.sse_response(
    "With stream=true: text/event-stream of named events (response.created, "
    "response.output_text.delta, ..., response.completed or response.failed), each with a "
    "sequence_number. With stream=false: one response object.",
    None,
)
_STREAM_DOC["content"]["application/json"] = {"schema": {"type": "object"}}


def _echo(body: ResponsesIn) -> dict[str, Any]:
    """The request fields a response object repeats."""
    tools = [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "strict": None,
        }
        for tool in function_tools(body)
    ]
    return {
        "instructions": body.instructions,
        "tools": tools,
        "tool_choice": body.tool_choice,
        "previous_response_id": body.previous_response_id,
        "store": body.store,
        "metadata": body.metadata,
        "temperature": body.temperature,
        "max_output_tokens": body.max_output_tokens,
    }


def _reply_message(turn: TurnTranscript) -> ChatMessage:
    """The answer as the message a later ``previous_response_id`` continues after."""
    calls = tuple(
        ToolCall(id=call.call_id, name=call.name, arguments=call.arguments)
        for call in turn.client_calls
    )
    return ChatMessage(role="assistant", content=turn.text, tool_calls=calls)


def _not_found(response_id: str) -> JSONResponse:
    body = openai_error(
        400,
        "previous_response_not_found",
        f"There is no stored response {response_id!r} for this token.",
        "Send the whole conversation as input; responses are kept until ARIA restarts.",
    )
    body["error"]["param"] = "previous_response_id"
    return JSONResponse(body, status_code=400)


@router.post(
    "/responses",
    summary="A response through ARIA (OpenAI's Responses API; memory, routing, fallback)",
    responses={**OPENAI_ERRORS, 200: _STREAM_DOC},
)
async def create_response(body: ResponsesIn, request: Request, state: StateDep) -> Any:
    turn = describe(state, request, protocol="openai", requested=body.model)
    owner = token_key(request.headers.get("authorization", ""))
    earlier: tuple[ChatMessage, ...] = ()
    if body.previous_response_id:
        found = state.responses.get(body.previous_response_id, owner)
        if found is None:
            return _not_found(body.previous_response_id)
        earlier = found
    command, conversation = to_command(body, turn, earlier)
    shape = ResponseShape(
        id=f"resp_{uuid.uuid4().hex}",
        model=body.model,
        created_at=turn.started_s,
        request=_echo(body),
    )

    def keep(finished: TurnTranscript) -> None:
        if body.store:
            state.responses.put(shape.id, owner, [*conversation, _reply_message(finished)])

    if body.stream:
        stream = await start_streamed(state, command)
        events = _events(stream, ResponseStream(shape=shape), state, keep)
        return EventStreamResponse(events, state.streams, stream.sub, on_close=stream.close)
    whole = await run_whole(state, command)
    if whole.status != "complete":
        return _failed(whole)
    keep(whole)
    headers = {"x-aria-backend": whole.backend, "x-aria-model": whole.model}
    return JSONResponse(shape.whole(whole), headers=headers)


def _failed(turn: TurnTranscript) -> JSONResponse:
    error = turn.error
    if error is None:
        body = openai_error(503, "cancelled", "The reply was cancelled.", "Ask again.")
        return JSONResponse(body, status_code=503)
    status = status_for_code(error.code)
    return JSONResponse(openai_error(status, error.code, error.message, error.hint), status)


async def _events(
    stream: TurnStream,
    builder: ResponseStream,
    state: ApiState,
    keep: Callable[[TurnTranscript], None],
) -> AsyncIterator[bytes]:
    """The SSE frames of a streamed response, ``response.completed`` or ``.failed`` last."""
    turn = TurnTranscript(run_id=stream.run_id)
    for frame in builder.start():
        yield frame
    try:
        async for event in stream.events(state.config.sse_idle_timeout_s):
            turn.add(event)
            frames: list[bytes] = []
            if isinstance(event, LlmDelta) and event.text:
                frames = builder.text(event.text)
            elif isinstance(event, ClientToolCall):
                frames = builder.call(event)
            elif isinstance(event, RunEnd):
                if event.status == "complete" and turn.error is None:
                    keep(turn)
                    frames = builder.completed(turn)
                else:
                    reason = turn.error or ErrorEvent(
                        run_id=stream.run_id,
                        code="cancelled",
                        message=f"The reply ended: {event.status}.",
                    )
                    frames = builder.failed(reason)
            for frame in frames:
                yield frame
    except (AriaError, TimeoutError) as exc:
        message = exc.message if isinstance(exc, AriaError) else "The reply stalled."
        _LOGGER.warning("Streamed response %s ended early: %s", stream.run_id, message)
        ended = ErrorEvent(run_id=stream.run_id, code="stream_ended", message=message)
        for frame in builder.failed(ended):
            yield frame
