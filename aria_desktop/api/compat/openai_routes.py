"""OpenAI-compatible endpoints: ``GET /v1/models`` and ``POST /v1/chat/completions``.

Open WebUI, editor plugins and scripts using the ``openai`` package talk to ARIA as to a model
server; behind it run ARIA's memory recall, routing chain, breakers and fallback. The security
middleware guards these paths like ``/api/v1`` (token, Host, Origin, body cap, rate limit) and
shapes their errors as OpenAI's (``api/server/protocol_errors.py``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from aria_desktop.api.compat.docs import OPENAI_ERRORS
from aria_desktop.api.compat.openai_wire import (
    ChatCompletionIn,
    chunk,
    completion,
    data_frame,
    fingerprint,
    finish_reason,
    to_command,
    tool_call_out,
    usage_of,
)
from aria_desktop.api.compat.turn import TurnStream, describe, run_whole, start_streamed
from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import StateDep
from aria_desktop.api.server.errors import status_for_code
from aria_desktop.api.server.protocol_errors import openai_error
from aria_desktop.api.server.sse import EventStreamResponse
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.events import ClientToolCall, ErrorEvent, LlmDelta, LlmThinking, RunEnd
from aria_desktop.domain.transcript import TurnTranscript

__all__ = ["router"]

_LOGGER = logging.getLogger(__name__)

router = APIRouter(prefix="/v1", tags=["openai-compatible"])

_STREAM_DOC = docs.sse_response(
    "With stream=true: text/event-stream of `data: {chat.completion.chunk}` frames ending with "
    "`data: [DONE]`; with stream_options.include_usage a last chunk with empty choices carries "
    "usage. With stream=false: one chat.completion object.",
    None,
)
_STREAM_DOC["content"]["application/json"] = {"schema": {"type": "object"}}
_COMPLETION_RESPONSES = {**OPENAI_ERRORS, 200: _STREAM_DOC}


@router.get(
    "/models", summary="The model names ARIA offers (OpenAI's model list)", responses=OPENAI_ERRORS
)
async def list_models(state: StateDep) -> dict[str, Any]:
    compat = state.config.compat
    models = compat.models if compat.enabled else ()
    return {
        "object": "list",
        "data": [
            {"id": model.name, "object": "model", "created": 0, "owned_by": "aria"}
            for model in models
        ],
    }


@router.post(
    "/chat/completions",
    summary="Chat completion through ARIA (memory, routing and fallback behind it)",
    responses=_COMPLETION_RESPONSES,
)
async def chat_completions(body: ChatCompletionIn, request: Request, state: StateDep) -> Any:
    turn = describe(state, request, protocol="openai", requested=body.model)
    command = to_command(body, turn)
    created = int(turn.started_s)
    if body.stream:
        stream = await start_streamed(state, command)
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        frames = _frames(
            stream, body.model, created, include_usage, state.config.sse_idle_timeout_s
        )
        return EventStreamResponse(frames, state.streams, stream.sub, on_close=stream.close)
    whole = await run_whole(state, command)
    if whole.status != "complete":
        return _turn_failed(whole)
    return JSONResponse(completion(whole, body.model, created), headers=_backend_headers(whole))


def _backend_headers(turn: TurnTranscript) -> dict[str, str]:
    return {"x-aria-backend": turn.backend, "x-aria-model": turn.model}


def _turn_failed(turn: TurnTranscript) -> JSONResponse:
    error = turn.error
    if error is None:
        return JSONResponse(
            openai_error(503, "cancelled", "The reply was cancelled.", "Ask again."),
            status_code=503,
        )
    status = status_for_code(error.code)
    return JSONResponse(openai_error(status, error.code, error.message, error.hint), status)


async def _frames(
    stream: TurnStream, model: str, created: int, include_usage: bool, idle_timeout_s: float
) -> AsyncIterator[bytes]:
    """The SSE frames of a streamed completion, ``[DONE]`` last (also after an error)."""
    run_id = stream.run_id
    turn = TurnTranscript(run_id=run_id)

    def frame(delta: dict[str, Any] | None, **extra: Any) -> bytes:
        return data_frame(chunk(run_id, model, created, delta, with_usage=include_usage, **extra))

    yield frame({"role": "assistant", "content": ""})
    calls = 0
    try:
        async for event in stream.events(idle_timeout_s):
            turn.add(event)
            if isinstance(event, LlmDelta):
                yield frame({"content": event.text})
            elif isinstance(event, LlmThinking):
                # llama.cpp's and DeepSeek's field for reasoning, apart from the content.
                yield frame({"reasoning_content": event.text})
            elif isinstance(event, ClientToolCall):
                yield frame({"tool_calls": [tool_call_out(event, calls)]})
                calls += 1
            elif isinstance(event, ErrorEvent):
                status = status_for_code(event.code)
                yield data_frame(openai_error(status, event.code, event.message, event.hint))
            elif isinstance(event, RunEnd) and event.status == "complete":
                yield frame({}, finish=finish_reason(turn), fingerprint_text=fingerprint(turn))
                if include_usage:
                    yield frame(None, usage=usage_of(turn), fingerprint_text=fingerprint(turn))
    except (AriaError, TimeoutError) as exc:
        message = exc.message if isinstance(exc, AriaError) else "The reply stalled."
        _LOGGER.warning("Streamed completion %s ended early: %s", run_id, message)
        yield data_frame(openai_error(503, "stream_ended", message))
    yield data_frame("[DONE]")
