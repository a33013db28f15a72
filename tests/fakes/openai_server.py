"""A fake OpenAI-compatible server (``POST /v1/chat/completions`` SSE, ``GET /v1/models``).

Streamed replies are ``data: {chat.completion.chunk}`` events ending with ``data: [DONE]``;
tool calls arrive as fragments (``index``, then ``id`` + ``function.name`` once, then
``function.arguments`` string pieces) and the choice ends with a ``finish_reason``; with
``stream_options.include_usage`` a last chunk with empty ``choices`` carries ``usage``.
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
    "DONE",
    "Drop",
    "FakeOpenAI",
    "Hang",
    "Reply",
    "Send",
    "Sleep",
    "chunk",
    "finish",
    "openai_error",
    "openai_stream",
    "openai_text",
    "text_steps",
    "tool_call_steps",
]

SSE_HEADERS = {"Content-Type": "text/event-stream"}
DONE = Send(b"data: [DONE]\n\n")


def chunk(
    delta: dict[str, Any],
    *,
    model: str = "smollm2",
    finish_reason: str | None = None,
    usage: dict[str, int] | None = None,
    choices: bool = True,
) -> Send:
    """One ``chat.completion.chunk`` SSE event."""
    obj: dict[str, Any] = {
        "id": "chatcmpl-fake01",
        "object": "chat.completion.chunk",
        "created": 1735689600,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
        if choices
        else [],
    }
    if usage is not None:
        obj["usage"] = usage
    return Send(f"data: {json.dumps(obj)}\n\n".encode())


def text_steps(
    text: str, *, chunks: int = 4, model: str = "smollm2", delay_s: float = 0.0
) -> list[Step]:
    steps: list[Step] = [chunk({"role": "assistant", "content": ""}, model=model)]
    for piece in split_text(text, chunks):
        if delay_s:
            steps.append(Sleep(delay_s))
        steps.append(chunk({"content": piece}, model=model))
    return steps


def tool_call_steps(
    index: int,
    name: str,
    arguments: dict[str, Any] | str,
    *,
    call_id: str = "call_fake01",
    pieces: int = 3,
    model: str = "smollm2",
) -> list[Step]:
    """A tool call as fragments; ``arguments`` may be a raw (broken) string."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    steps: list[Step] = [
        chunk(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }
                ]
            },
            model=model,
        )
    ]
    for piece in split_text(raw, pieces):
        steps.append(
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}, model=model)
        )
    return steps


def finish(
    reason: str = "stop",
    *,
    model: str = "smollm2",
    prompt_tokens: int = 9,
    completion_tokens: int = 5,
) -> list[Step]:
    """The finishing chunk, the usage chunk and ``[DONE]``."""
    return [
        chunk({}, model=model, finish_reason=reason),
        chunk(
            {},
            model=model,
            choices=False,
            usage={
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        ),
        DONE,
    ]


def openai_stream(steps: list[Step], status: int = 200) -> Reply:
    return Reply(status=status, headers=dict(SSE_HEADERS), steps=steps)


def openai_text(text: str, *, model: str = "smollm2", chunks: int = 4) -> Reply:
    return openai_stream([*text_steps(text, chunks=chunks, model=model), *finish(model=model)])


def openai_error(status: int, message: str, *, retry_after: str | None = None) -> Reply:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    body = {"error": {"message": message, "type": "server_error", "code": None}}
    return json_reply(status, body, headers)


class FakeOpenAI(FakeHTTPServer):
    """Fake OpenAI-compatible server; unscripted completions get a short text reply."""

    def __init__(self, *, models: list[str] | None = None) -> None:
        super().__init__()
        self.models = models if models is not None else ["smollm2", "qwen2.5"]
        self.routes[("POST", "/v1/chat/completions")] = self._default
        self.routes[("GET", "/v1/models")] = lambda r: json_reply(
            200,
            {
                "object": "list",
                "data": [
                    {"id": m, "object": "model", "created": 1735689600, "owned_by": "fake"}
                    for m in self.models
                ],
            },
        )

    def _default(self, request: RecordedRequest) -> Reply:
        return openai_text("Hello from fake OpenAI.", model=str(request.json().get("model")))
