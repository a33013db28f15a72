"""OpenAI's chat-completions wire format <-> ARIA's ``ClientTurn`` and turn events.

Requests are parsed leniently the way OpenAI's server is used by real clients: fields ARIA does
not know are ignored (never a 400), ``developer`` counts as ``system``, content may be a string
or parts (text and ``image_url`` data URLs), ``max_completion_tokens`` and the older
``max_tokens`` both cap the reply. Replies are ``chat.completion`` objects, or
``chat.completion.chunk`` events ending with ``data: [DONE]``; ``system_fingerprint`` names the
backend and model that answered (ARCHITECTURE.md: api, compatible endpoints).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, Literal

from pydantic import Field

from aria_desktop.api.compat.turn import CompatTurn
from aria_desktop.api.compat.wire import Lenient, ToolIn, arguments, tool_specs, with_examples
from aria_desktop.domain.chat import ChatMessage, ResponseFormat, ToolCall, ToolChoice, ToolSpec
from aria_desktop.domain.commands import ClientTurn, GenerationOptions
from aria_desktop.domain.errors import ClientRequestError
from aria_desktop.domain.events import ClientToolCall
from aria_desktop.domain.transcript import TurnTranscript

__all__ = [
    "ChatCompletionIn",
    "chunk",
    "completion",
    "data_frame",
    "image_bytes",
    "to_command",
    "usage_of",
]


class ImageUrl(Lenient):
    url: str = Field(max_length=20_000_000)


class ContentPart(Lenient):
    type: str = Field(max_length=64)
    text: str | None = None
    image_url: ImageUrl | str | None = None


class FunctionCall(Lenient):
    name: str = Field(max_length=256)
    arguments: str = Field(default="", max_length=1_000_000)


class ToolCallIn(Lenient):
    id: str = Field(default="", max_length=256)
    type: str = Field(default="function", max_length=64)
    function: FunctionCall


class MessageIn(Lenient):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[ContentPart] | None = None
    tool_calls: list[ToolCallIn] | None = None
    tool_call_id: str | None = Field(default=None, max_length=256)
    name: str | None = Field(default=None, max_length=256)


class StreamOptions(Lenient):
    include_usage: bool = False


class JsonSchemaIn(Lenient):
    name: str = Field(default="response", max_length=256)
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    strict: bool | None = None


class ResponseFormatIn(Lenient):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaIn | None = None


class ChatCompletionIn(Lenient):
    """``POST /v1/chat/completions``: the fields ARIA acts on."""

    model_config = with_examples(
        {
            "model": "aria",
            "messages": [{"role": "user", "content": "Hello"}],
            "stream": False,
        },
        {
            "model": "aria",
            "messages": [{"role": "user", "content": "Hello"}],
            "stream": True,
            "stream_options": {"include_usage": True},
        },
    )

    model: str = Field(min_length=1, max_length=256)
    messages: list[MessageIn] = Field(min_length=1, max_length=1_000)
    stream: bool = False
    stream_options: StreamOptions | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=2)
    stop: str | list[str] | None = None
    tools: list[ToolIn] | None = Field(default=None, max_length=512)
    tool_choice: str | dict[str, Any] | None = None
    response_format: ResponseFormatIn | None = None
    reasoning_effort: Literal["none", "minimal", "low", "medium", "high"] | None = None


def image_bytes(url: str) -> bytes:
    """The bytes of a ``data:`` URL image (ARIA fetches nothing from the network)."""
    head, sep, payload = url.partition(",")
    if not (url.startswith("data:") and sep and head.endswith(";base64")):
        raise ClientRequestError(
            "Images must be sent inline as base64 data URLs.",
            hint="Send image_url.url as 'data:image/png;base64,...'.",
        )
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise ClientRequestError(
            "An image's base64 data is invalid.", hint="Re-encode it."
        ) from None


def _content(content: str | list[ContentPart] | None) -> tuple[str, tuple[bytes, ...]]:
    if content is None or isinstance(content, str):
        return content or "", ()
    texts: list[str] = []
    images: list[bytes] = []
    for part in content:
        if part.type == "text" and part.text:
            texts.append(part.text)
        elif part.type == "image_url" and part.image_url is not None:
            url = part.image_url if isinstance(part.image_url, str) else part.image_url.url
            images.append(image_bytes(url))
    return "\n".join(texts), tuple(images)


def _message(message: MessageIn, names: dict[str, str]) -> ChatMessage:
    text, images = _content(message.content)
    role = "system" if message.role == "developer" else message.role
    calls = tuple(
        ToolCall(id=call.id, name=call.function.name, arguments=arguments(call.function.arguments))
        for call in message.tool_calls or ()
    )
    names.update({call.id: call.name for call in calls})
    if role == "tool":
        call_id = message.tool_call_id or ""
        name = message.name or names.get(call_id)
        return ChatMessage(role="tool", content=text, tool_call_id=call_id, name=name)
    return ChatMessage(role=role, content=text, tool_calls=calls, images=images)


def _client_tools(body: ChatCompletionIn) -> tuple[ToolSpec, ...]:
    choice = body.tool_choice
    if choice == "none":
        return ()
    tools = tool_specs(body.tools)
    if isinstance(choice, dict):
        wanted = (choice.get("function") or {}).get("name")
        return tuple(tool for tool in tools if tool.name == wanted) or tools
    return tools


def _tool_choice(body: ChatCompletionIn) -> ToolChoice | None:
    """``required`` or a named function as ARIA's ``ToolChoice`` (``auto``/``none``: None)."""
    choice = body.tool_choice
    if not body.tools:
        return None
    if choice == "required":
        return ToolChoice(mode="required")
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        if isinstance(name, str) and name in {tool.name for tool in tool_specs(body.tools)}:
            return ToolChoice(mode="tool", name=name)
    return None


def _response_format(body: ChatCompletionIn) -> ResponseFormat | None:
    fmt = body.response_format
    if fmt is None or fmt.type == "text":
        return None
    if fmt.type == "json_object" or fmt.json_schema is None:
        return ResponseFormat()
    return ResponseFormat(
        schema=fmt.json_schema.json_schema,
        name=fmt.json_schema.name,
        strict=bool(fmt.json_schema.strict),
    )


def to_command(body: ChatCompletionIn, turn: CompatTurn) -> ClientTurn:
    """The ``ClientTurn`` an OpenAI request asks for."""
    names: dict[str, str] = {}
    messages = tuple(_message(m, names) for m in body.messages)
    last_user = next((m.content for m in reversed(messages) if m.role == "user"), "")
    stop = [body.stop] if isinstance(body.stop, str) else list(body.stop or ())
    return ClientTurn(
        text=last_user,
        source="client",
        messages=messages,
        client_tools=_client_tools(body),
        client=turn.client,
        private=turn.private,
        agent=turn.model.agent,
        options=GenerationOptions(
            max_tokens=body.max_completion_tokens or body.max_tokens,
            temperature=body.temperature,
            stop=tuple(s for s in stop if s)[:4],
            response_format=_response_format(body),
            tool_choice=_tool_choice(body),
            # OpenAI's reasoning switch: "none" turns thinking off, any effort asks for it
            # where the model can think.
            think=None
            if body.reasoning_effort is None
            else ("off" if body.reasoning_effort == "none" else "auto"),
        ),
    )


def usage_of(turn: TurnTranscript) -> dict[str, int]:
    """OpenAI's usage object for a finished turn."""
    return {
        "prompt_tokens": turn.input_tokens,
        "completion_tokens": turn.output_tokens,
        "total_tokens": turn.input_tokens + turn.output_tokens,
    }


def fingerprint(turn: TurnTranscript) -> str | None:
    """Which backend and model answered (``system_fingerprint``), None before one did."""
    return f"aria:{turn.backend}:{turn.model}" if turn.backend else None


def tool_call_out(call: ClientToolCall, index: int | None = None) -> dict[str, Any]:
    """One client tool call as OpenAI sends it (``index`` only in stream chunks)."""
    out: dict[str, Any] = {
        "id": call.call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
    }
    if index is not None:
        out["index"] = index
    return out


def finish_reason(turn: TurnTranscript) -> str:
    """``tool_calls`` when the turn ended with client tool calls, else ``stop``."""
    return "tool_calls" if turn.client_calls else "stop"


def completion(turn: TurnTranscript, model: str, created: int) -> dict[str, Any]:
    """The whole ``chat.completion`` object of a finished turn."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.text, "refusal": None}
    if turn.thinking:
        message["reasoning_content"] = turn.thinking
    if turn.client_calls:
        message["content"] = turn.text or None
        message["tool_calls"] = [tool_call_out(call) for call in turn.client_calls]
    return {
        "id": f"chatcmpl-{turn.run_id}",
        "object": "chat.completion",
        "created": created,
        "model": model,
        "system_fingerprint": fingerprint(turn),
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish_reason(turn), "logprobs": None}
        ],
        "usage": usage_of(turn),
    }


def chunk(
    run_id: str,
    model: str,
    created: int,
    delta: dict[str, Any] | None,
    *,
    finish: str | None = None,
    usage: dict[str, int] | None = None,
    with_usage: bool = False,
    fingerprint_text: str | None = None,
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` (``delta`` None: the usage chunk with no choices)."""
    out: dict[str, Any] = {
        "id": f"chatcmpl-{run_id}",
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "system_fingerprint": fingerprint_text,
        "choices": []
        if delta is None
        else [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
    }
    if with_usage:
        out["usage"] = usage
    return out


def data_frame(data: dict[str, Any] | str) -> bytes:
    """One SSE ``data:`` frame (OpenAI streams carry no event names)."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    return f"data: {text}\n\n".encode()
