"""A fake Anthropic Messages API (``POST /v1/messages`` streaming SSE, ``GET /v1/models``).

The streamed event sequence follows the documented protocol: ``message_start``, then per
content block ``content_block_start`` / ``content_block_delta`` (``text_delta`` or, for
``tool_use`` blocks, ``input_json_delta`` with ``partial_json`` pieces) / ``content_block_stop``,
a ``ping`` now and then, ``message_delta`` (stop_reason, usage) and ``message_stop``. Errors are an
HTTP status with ``{"type": "error", "error": {"type": ..., "message": ...}}``.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.http_server import (
    Drop,
    FakeHTTPServer,
    Hang,
    RecordedRequest,
    Reply,
    Send,
    Sleep,
    Step,
    json_reply,
    split_text,
)

__all__ = [
    "Drop",
    "FakeAnthropic",
    "Hang",
    "Reply",
    "Send",
    "Sleep",
    "anthropic_error",
    "anthropic_stream",
    "anthropic_text",
    "message_start",
    "message_stop",
    "sse",
    "text_block",
    "thinking_block",
    "tool_use_block",
]

SSE_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def sse(event: str, data: dict[str, Any]) -> Send:
    """One SSE event (``event:`` + ``data:`` + blank line) as a chunk."""
    return Send(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())


def message_start(
    model: str, *, input_tokens: int = 25, cache_read: int = 0, cache_write: int = 0
) -> Send:
    """The ``message_start`` event, with prompt-cache token counts when given."""
    usage: dict[str, int] = {"input_tokens": input_tokens, "output_tokens": 1}
    if cache_read or cache_write:
        usage["cache_read_input_tokens"] = cache_read
        usage["cache_creation_input_tokens"] = cache_write
    return sse(
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_fake01",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": model,
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            },
        },
    )


def text_block(index: int, text: str, *, chunks: int = 4, delay_s: float = 0.0) -> list[Step]:
    """A text content block streamed in ``chunks`` text_delta events."""
    steps: list[Step] = [
        sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        sse("ping", {"type": "ping"}),
    ]
    for piece in split_text(text, chunks):
        if delay_s:
            steps.append(Sleep(delay_s))
        steps.append(
            sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": piece},
                },
            )
        )
    steps.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    return steps


def thinking_block(index: int, thinking: str, *, signature: str, chunks: int = 3) -> list[Step]:
    """A thinking block: ``thinking_delta`` pieces, then one ``signature_delta``."""
    steps: list[Step] = [
        sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            },
        )
    ]
    deltas = [{"type": "thinking_delta", "thinking": p} for p in split_text(thinking, chunks)]
    deltas.append({"type": "signature_delta", "signature": signature})
    steps.extend(
        sse(
            "content_block_delta",
            {"type": "content_block_delta", "index": index, "delta": delta},
        )
        for delta in deltas
    )
    steps.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    return steps


def tool_use_block(
    index: int,
    name: str,
    arguments: dict[str, Any] | str,
    *,
    tool_id: str = "toolu_fake01",
    pieces: int = 3,
    stop: bool = True,
) -> list[Step]:
    """A tool_use block whose JSON input arrives in ``pieces`` input_json_delta events.

    ``arguments`` may be a raw string to send broken JSON; ``stop=False`` omits the
    ``content_block_stop`` (for truncation tests).
    """
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    steps: list[Step] = [
        sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": tool_id, "name": name, "input": {}},
            },
        )
    ]
    for piece in split_text(raw, pieces):
        steps.append(
            sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                },
            )
        )
    if stop:
        steps.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    return steps


def message_stop(stop_reason: str = "end_turn", *, output_tokens: int = 15) -> list[Step]:
    return [
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        ),
        sse("message_stop", {"type": "message_stop"}),
    ]


def anthropic_stream(steps: list[Step], status: int = 200) -> Reply:
    return Reply(status=status, headers=dict(SSE_HEADERS), steps=steps)


def anthropic_text(
    text: str,
    *,
    model: str = "claude-sonnet-5-5",
    chunks: int = 4,
    delay_s: float = 0.0,
    input_tokens: int = 25,
    output_tokens: int = 15,
) -> Reply:
    """A complete streamed text reply."""
    return anthropic_stream(
        [
            message_start(model, input_tokens=input_tokens),
            *text_block(0, text, chunks=chunks, delay_s=delay_s),
            *message_stop("end_turn", output_tokens=output_tokens),
        ]
    )


def anthropic_error(
    status: int, message: str, *, error_type: str | None = None, retry_after: str | None = None
) -> Reply:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    headers["request-id"] = "req_fake01"
    body = {
        "type": "error",
        "error": {"type": error_type or _ERROR_TYPES.get(status, "api_error"), "message": message},
    }
    return json_reply(status, body, headers)


class FakeAnthropic(FakeHTTPServer):
    """Fake Anthropic API. Unscripted ``/v1/messages`` requests get a short text reply."""

    def __init__(self, *, models: list[str] | None = None) -> None:
        super().__init__()
        self.models = models if models is not None else ["claude-sonnet-5-5", "claude-haiku-4-5"]
        self.routes[("POST", "/v1/messages")] = self._default
        self.routes[("GET", "/v1/models")] = self._models

    def _default(self, request: RecordedRequest) -> Reply:
        model = str(request.json().get("model", "claude-sonnet-5-5"))
        return anthropic_text("Hello from fake Claude.", model=model)

    def _models(self, request: RecordedRequest) -> Reply:
        data = [
            {
                "type": "model",
                "id": name,
                "display_name": name.replace("-", " ").title(),
                "created_at": "2025-09-29T00:00:00Z",
            }
            for name in self.models
        ]
        return json_reply(
            200,
            {
                "data": data,
                "has_more": False,
                "first_id": data[0]["id"] if data else None,
                "last_id": data[-1]["id"] if data else None,
            },
        )
