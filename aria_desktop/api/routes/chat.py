"""Chat and turns: ask (streamed or whole), start, cancel, the kill switch, confirmations."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse

from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import PREFIX, AssistantDep, ClientDep, PathId, StateDep
from aria_desktop.api.server.errors import status_for_code
from aria_desktop.api.server.schemas.chat import (
    CancelIn,
    CancelOut,
    ChatFailedOut,
    ChatIn,
    ChatReply,
    ConfirmIn,
    RingingStoppedOut,
    TurnIn,
    TurnOut,
)
from aria_desktop.api.server.schemas.common import ErrorDetail, UsageOut
from aria_desktop.api.server.sse import EventStreamResponse, event_stream
from aria_desktop.domain.commands import (
    ConfirmAction,
    StartTurn,
    StopEverything,
    StopRinging,
    TurnAttachment,
)
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.events import (
    ActionConfirmRequest,
    ActionConfirmResult,
    BackendFallback,
    ErrorEvent,
    Event,
    LlmDelta,
    LlmThinking,
    RunEnd,
    RunStart,
    ToolCallEvent,
    ToolCallRejectedEvent,
    ToolResultEvent,
    UntrustedContentFlagged,
)
from aria_desktop.domain.transcript import TurnTranscript

router = APIRouter(prefix=PREFIX, tags=["chat"])

_CHAT_NAMES: dict[type[Event], str] = {
    RunStart: "start",
    LlmDelta: "text-delta",
    LlmThinking: "thinking-delta",
    ToolCallEvent: "tool-call",
    ToolResultEvent: "tool-result",
    ToolCallRejectedEvent: "tool-call-rejected",
    UntrustedContentFlagged: "untrusted-content-flagged",
    ActionConfirmRequest: "action-confirm-request",
    ActionConfirmResult: "action-confirm-result",
    BackendFallback: "fallback",
    ErrorEvent: "error",
}
"""The SSE name of each event a chat stream passes on (the others are folded, not sent)."""

_CHAT_EVENT_NAMES = (*_CHAT_NAMES.values(), "done", "close")
"""Every event name a chat stream can send."""

_CHAT_STREAM = docs.sse_response(
    "With stream=true: text/event-stream with events start, text-delta, thinking-delta "
    "(the model's reasoning, apart from the answer), tool-call, tool-result, "
    "tool-call-rejected, untrusted-content-flagged, action-confirm-request, "
    "action-confirm-result, "
    "fallback, error and finally done (status, text, backend, model, locality, usage). "
    "With stream=false: the whole reply as JSON.",
    _CHAT_EVENT_NAMES,
)


def _reply(turn: TurnTranscript) -> ChatReply:
    """A finished turn's fold as the reply body (``turn.status`` is set by its run-end)."""
    error = turn.error
    return ChatReply(
        run_id=turn.run_id or "",
        conversation_id=turn.conversation_id,
        status=turn.status or "error",
        text=turn.text,
        backend=turn.backend,
        model=turn.model,
        locality=turn.locality,
        usage=UsageOut(
            input_tokens=turn.input_tokens, output_tokens=turn.output_tokens, cost=turn.cost
        ),
        latency_ms=turn.latency_ms,
        thinking=turn.thinking,
        error=(
            ErrorDetail(code=error.code, message=error.message, hint=error.hint)
            if error is not None
            else None
        ),
    )


def _failed(turn: TurnTranscript) -> JSONResponse:
    """A whole reply that failed: the error's status from the one table, and its body.

    A program asking with ``stream=false`` sees a failure the way HTTP says it (a 503 when no
    model could answer, a 504 when it took too long), never a 200 whose body says "error";
    ``run_id`` and ``conversation_id`` let it ask again in the same conversation.
    """
    error = turn.error
    code, message, hint = (
        (error.code, error.message, error.hint)
        if error is not None
        else ("no_backend", "The reply failed without saying why.", "Ask again.")
    )
    body = ChatFailedOut(
        error=ErrorDetail(code=code, message=message, hint=hint),
        run_id=turn.run_id or None,
        conversation_id=turn.conversation_id or None,
    )
    return JSONResponse(body.model_dump(), status_code=status_for_code(code))


@router.post(
    "/chat",
    response_model=ChatReply,
    summary="Ask ARIA (Server-Sent Events, or one JSON reply with stream=false)",
    responses=docs.responses(
        docs.COMMON, docs.BODY, docs.NOT_FOUND, docs.CHAT_FAILED, {200: _CHAT_STREAM}
    ),
)
async def chat(body: ChatIn, state: StateDep, client: ClientDep) -> Any:
    assistant = state.assistant
    sub = assistant.subscribe()
    if body.stream:
        state.admit_stream(sub, client)
    try:
        started = await assistant.start_turn(
            StartTurn(
                text=body.message,
                conversation_id=body.conversation_id,
                backend=body.backend,
                source="api",
            )
        )
    except BaseException:
        state.streams.release(sub)
        raise
    turn = TurnTranscript(run_id=started.run_id, conversation_id=started.conversation_id)

    def select(event: Event) -> tuple[str, dict[str, Any], bool] | None:
        if event.run_id != started.run_id:
            return None
        turn.add(event)
        if isinstance(event, RunEnd):
            return "done", _reply(turn).model_dump(), True
        name = _CHAT_NAMES.get(type(event))
        return (name, event.to_dict(), False) if name else None

    if body.stream:

        async def cancel_unfinished() -> None:
            # A client that leaves before ``done`` stops the model, as closing the connection
            # does on OpenAI's and Ollama's servers; what was written stays, as interrupted.
            if not turn.done:
                await assistant.cancel_turn(started.run_id)

        return EventStreamResponse(
            event_stream(sub, state.streams, state.config, select),
            state.streams,
            sub,
            on_close=cancel_unfinished,
        )
    try:
        async for event in sub:
            if event.run_id == started.run_id:
                turn.add(event)
            if turn.done:
                return _failed(turn) if turn.status == "error" else _reply(turn)
    finally:
        sub.close()
    raise AriaError("ARIA stopped before the reply was finished.", hint="Ask again later.")


@router.post(
    "/turns",
    status_code=202,
    summary="Start a turn and return at once (follow it on /events by run_id)",
    responses=docs.responses(docs.COMMON, docs.BODY, docs.NOT_FOUND),
)
async def start_turn(body: TurnIn, assistant: AssistantDep) -> TurnOut:
    started = await assistant.start_turn(
        StartTurn(
            text=body.message,
            conversation_id=body.conversation_id,
            backend=body.backend,
            source=body.source,
            attachments=tuple(
                TurnAttachment(source=item.source, text=item.text) for item in body.attachments
            ),
        )
    )
    return TurnOut(run_id=started.run_id, conversation_id=started.conversation_id)


@router.post(
    "/turns/cancel",
    summary="Stop one turn, or all (run_id null)",
    responses=docs.responses(docs.COMMON, docs.BODY),
)
async def cancel(body: CancelIn, assistant: AssistantDep) -> CancelOut:
    return CancelOut(cancelled=await assistant.cancel_turn(body.run_id))


@router.post(
    "/stop",
    summary="Kill switch: stop everything ARIA is doing",
    responses=docs.responses(docs.COMMON, docs.BODY),
)
async def stop_everything(assistant: AssistantDep) -> CancelOut:
    result = await assistant.execute(StopEverything())
    return CancelOut(cancelled=result if isinstance(result, int) else 0)


@router.post(
    "/ringing/stop",
    summary="Silence a ringing timer or alarm (only the ring: turns and speech go on)",
    responses=docs.responses(docs.COMMON, docs.BODY),
)
async def stop_ringing(assistant: AssistantDep) -> RingingStoppedOut:
    return RingingStoppedOut(was_ringing=bool(await assistant.execute(StopRinging())))


@router.post(
    "/actions/{request_id}/confirm",
    status_code=204,
    response_class=Response,
    summary="Approve or deny an action (echo the request's nonce)",
    responses=docs.responses(
        docs.COMMON,
        docs.BODY,
        {409: docs.error("No such pending request, or the nonce does not match")},
    ),
)
async def confirm(
    request_id: PathId,
    body: ConfirmIn,
    assistant: AssistantDep,
) -> Response:
    await assistant.confirm_action(
        ConfirmAction(request_id=request_id, nonce=body.nonce, approved=body.approved)
    )
    return Response(status_code=204)
