"""Ollama-compatible endpoints: what Home Assistant's Ollama integration and ``ollama`` call.

``GET /api/version``, ``/api/tags`` (ARIA's offered names, tagged ``:latest``), ``/api/ps``,
``POST /api/show``, ``/api/pull`` (success for a name ARIA offers, a clear 404 otherwise) and
``/api/chat`` and ``/api/generate`` (NDJSON stream by default, one object with ``stream:
false``). The security
middleware guards these paths like ``/api/v1`` and shapes their errors as Ollama's
``{"error": "..."}`` (``api/server/protocol_errors.py``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse

from aria_desktop.api.compat.docs import OLLAMA_ERRORS, ndjson_response
from aria_desktop.api.compat.ollama_wire import (
    API_VERSION,
    ChatIn,
    GenerateIn,
    ModelIn,
    PullIn,
    chat_line,
    done_line,
    generate_command,
    generate_done,
    generate_line,
    model_entry,
    show,
    to_command,
)
from aria_desktop.api.compat.turn import (
    TurnStream,
    describe,
    resolve_model,
    run_whole,
    start_streamed,
)
from aria_desktop.api.server.deps import StateDep
from aria_desktop.api.server.errors import status_for_code
from aria_desktop.api.server.sse import EventStreamResponse
from aria_desktop.domain.error_text import with_hint
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.events import ClientToolCall, ErrorEvent, LlmDelta, LlmThinking, RunEnd
from aria_desktop.domain.transcript import TurnTranscript

__all__ = ["router"]

_LOGGER = logging.getLogger(__name__)
_NDJSON = "application/x-ndjson"

router = APIRouter(prefix="/api", tags=["ollama-compatible"])

_NDJSON_DOC = ndjson_response(
    "With stream=true (the default): application/x-ndjson, one JSON object per line, the last "
    "with done=true. With stream=false: one JSON object."
)


def _line(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


@router.get("/version", summary="Ollama API version ARIA answers like", responses=OLLAMA_ERRORS)
async def version() -> dict[str, str]:
    return {"version": API_VERSION}


@router.get(
    "/tags", summary="ARIA's model names (Ollama's installed models)", responses=OLLAMA_ERRORS
)
async def tags(state: StateDep) -> dict[str, Any]:
    compat = state.config.compat
    return {"models": [model_entry(m) for m in compat.models] if compat.enabled else []}


@router.get("/ps", summary="ARIA's model names as loaded models", responses=OLLAMA_ERRORS)
async def running(state: StateDep) -> dict[str, Any]:
    compat = state.config.compat
    return {
        "models": [model_entry(m, loaded=True) for m in compat.models] if compat.enabled else []
    }


@router.post(
    "/show",
    summary="A model's details and capabilities",
    responses=OLLAMA_ERRORS,
)
async def show_model(body: ModelIn, state: StateDep) -> dict[str, Any]:
    return show(resolve_model(state, body.requested), state.config.compat)


@router.post(
    "/pull",
    summary="Succeeds for a name ARIA offers (nothing is downloaded)",
    responses={**OLLAMA_ERRORS, 200: _NDJSON_DOC},
)
async def pull(body: PullIn, state: StateDep) -> Any:
    model = resolve_model(state, body.requested)
    steps = [{"status": "pulling manifest"}, {"status": f"{model.tagged} is ARIA's"}]
    steps.append({"status": "success"})
    if not body.stream:
        return {"status": "success"}

    async def lines() -> AsyncIterator[bytes]:
        for step in steps:
            yield _line(step)

    return StreamingResponse(lines(), media_type=_NDJSON)


@router.post(
    "/chat",
    summary="Chat through ARIA (memory, routing and fallback behind it)",
    responses={**OLLAMA_ERRORS, 200: _NDJSON_DOC},
)
async def chat(body: ChatIn, request: Request, state: StateDep) -> Any:
    turn = describe(state, request, "ollama", body.model)
    model_name = turn.model.tagged if ":" not in body.model else body.model
    if not body.messages:
        # Ollama answers an empty chat (used to load a model) with a done line at once.
        empty = TurnTranscript()
        return JSONResponse(done_line(model_name, empty, turn.started_s, whole=True))
    command = to_command(body, turn, state.config.compat)
    if body.stream:
        stream = await start_streamed(state, command)
        lines = _lines(stream, model_name, turn.started_s, state.config.sse_idle_timeout_s)
        return EventStreamResponse(
            lines, state.streams, stream.sub, media_type=_NDJSON, on_close=stream.close
        )
    whole = await run_whole(state, command)
    if whole.status != "complete":
        return _failed(whole)
    return JSONResponse(
        done_line(model_name, whole, turn.started_s, whole=True),
        headers={"x-aria-backend": whole.backend, "x-aria-model": whole.model},
    )


def _failed(whole: TurnTranscript) -> JSONResponse:
    error = whole.error
    if error is None:
        return JSONResponse({"error": "The reply was cancelled."}, status_code=503)
    text = with_hint(error.message, error.hint)
    return JSONResponse({"error": text}, status_code=status_for_code(error.code))


@router.post(
    "/generate",
    summary="Generate a reply to a prompt through ARIA (memory, routing and fallback behind it)",
    responses={**OLLAMA_ERRORS, 200: _NDJSON_DOC},
)
async def generate(body: GenerateIn, request: Request, state: StateDep) -> Any:
    turn = describe(state, request, "ollama", body.model)
    model_name = turn.model.tagged if ":" not in body.model else body.model
    if not body.prompt and not body.images:
        # Ollama answers an empty prompt (used to load a model) with a done line at once.
        empty = generate_done(model_name, TurnTranscript(), turn.started_s, reason="load")
        return JSONResponse(empty)
    command = generate_command(body, turn, state.config.compat)
    if body.stream:
        stream = await start_streamed(state, command)
        lines = _generate_lines(stream, model_name, turn.started_s, state.config.sse_idle_timeout_s)
        return EventStreamResponse(
            lines, state.streams, stream.sub, media_type=_NDJSON, on_close=stream.close
        )
    whole = await run_whole(state, command)
    if whole.status != "complete":
        return _failed(whole)
    return JSONResponse(
        generate_done(model_name, whole, turn.started_s, whole=True),
        headers={"x-aria-backend": whole.backend, "x-aria-model": whole.model},
    )


async def _generate_lines(
    stream: TurnStream, model: str, started_s: float, idle_timeout_s: float
) -> AsyncIterator[bytes]:
    """NDJSON lines of a streamed generate: pieces, then the done line (or one error line)."""
    turn = TurnTranscript(run_id=stream.run_id)
    try:
        async for event in stream.events(idle_timeout_s):
            turn.add(event)
            if isinstance(event, LlmDelta):
                yield _line(generate_line(model, event.text))
            elif isinstance(event, LlmThinking):
                yield _line(generate_line(model, thinking=event.text))
            elif isinstance(event, ErrorEvent):
                yield _line({"error": with_hint(event.message, event.hint)})
            elif isinstance(event, RunEnd) and turn.error is None:
                if event.status == "complete":
                    yield _line(generate_done(model, turn, started_s))
                else:
                    yield _line({"error": f"The reply ended: {event.status}."})
    except (AriaError, TimeoutError) as exc:
        message = exc.message if isinstance(exc, AriaError) else "The reply stalled."
        _LOGGER.warning("Streamed generate %s ended early: %s", stream.run_id, message)
        yield _line({"error": message})


async def _lines(
    stream: TurnStream, model: str, started_s: float, idle_timeout_s: float
) -> AsyncIterator[bytes]:
    """NDJSON lines of a streamed chat: pieces, client tool calls, the done line (or an error)."""
    turn = TurnTranscript(run_id=stream.run_id)
    calls: list[ClientToolCall] = []
    try:
        async for event in stream.events(idle_timeout_s):
            turn.add(event)
            if isinstance(event, LlmDelta):
                yield _line(chat_line(model, event.text))
            elif isinstance(event, LlmThinking):
                yield _line(chat_line(model, thinking=event.text))
            elif isinstance(event, ClientToolCall):
                calls.append(event)
            elif isinstance(event, ErrorEvent):
                # The one error line ends what the client reads; run-end still follows here.
                yield _line({"error": with_hint(event.message, event.hint)})
            elif isinstance(event, RunEnd) and turn.error is None:
                if calls:
                    # Ollama sends a step's tool calls whole, in one line.
                    yield _line(chat_line(model, calls=calls))
                if event.status == "complete":
                    yield _line(done_line(model, turn, started_s))
                else:
                    yield _line({"error": f"The reply ended: {event.status}."})
    except (AriaError, TimeoutError) as exc:
        message = exc.message if isinstance(exc, AriaError) else "The reply stalled."
        _LOGGER.warning("Streamed chat %s ended early: %s", stream.run_id, message)
        yield _line({"error": message})
