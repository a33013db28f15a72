"""Ollama's REST wire format <-> ARIA's ``ClientTurn`` and turn events.

Shaped after what Home Assistant's Ollama integration and the ``ollama`` Python package send
and parse: ``/api/chat`` takes ``messages`` (images as base64, tool calls with arguments as JSON
objects, tool results as ``role: tool``), ``tools``, ``format`` (``"json"`` or a JSON schema),
``options`` (``num_ctx``, ``num_predict``, ``temperature``, ``stop``; the rest ignored),
``keep_alive`` (seconds or a duration such as ``"5m"``; ARIA keeps its own backends warm) and
``think``; ``stream`` defaults to true (NDJSON). Model listings describe ARIA's offered names
(ARCHITECTURE.md: api, compatible endpoints).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import time
from typing import Any, Literal

from pydantic import Field

from aria_desktop.api.compat.turn import CompatTurn
from aria_desktop.api.compat.wire import Lenient, ToolIn, arguments, tool_specs, with_examples
from aria_desktop.api.config import CompatConfig, CompatModel
from aria_desktop.domain.chat import ChatMessage, ResponseFormat, ToolCall, ToolSpec
from aria_desktop.domain.commands import ClientTurn, GenerationOptions
from aria_desktop.domain.errors import ClientRequestError
from aria_desktop.domain.events import ClientToolCall
from aria_desktop.domain.transcript import TurnTranscript

__all__ = [
    "API_VERSION",
    "ChatIn",
    "GenerateIn",
    "ModelIn",
    "PullIn",
    "chat_line",
    "done_line",
    "generate_command",
    "generate_done",
    "generate_line",
    "model_entry",
    "show",
    "to_command",
]

API_VERSION = "0.12.6"
"""The Ollama API version ARIA answers like (``/api/version``)."""

_MODIFIED_AT = "2025-01-01T00:00:00Z"


class ToolFunctionCall(Lenient):
    name: str = Field(max_length=256)
    arguments: dict[str, Any] | str = Field(default_factory=dict)


class ToolCallIn(Lenient):
    function: ToolFunctionCall


class MessageIn(Lenient):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = ""
    images: list[str] | None = Field(default=None, max_length=64)
    tool_calls: list[ToolCallIn] | None = None
    tool_name: str | None = Field(default=None, max_length=256)
    thinking: str | None = None


class OptionsIn(Lenient):
    num_ctx: int | None = Field(default=None, ge=1)
    num_predict: int | None = None
    temperature: float | None = Field(default=None, ge=0)
    stop: list[str] | None = Field(default=None, max_length=16)


class ChatIn(Lenient):
    """``POST /api/chat``: the fields ARIA acts on."""

    model_config = with_examples(
        {"model": "aria:latest", "messages": [{"role": "user", "content": "Hi"}]},
        {
            "model": "aria",
            "messages": [{"role": "user", "content": "Hi"}],
            "stream": False,
            "keep_alive": "5m",
            "options": {"num_ctx": 8192},
        },
    )

    model: str = Field(min_length=1, max_length=256)
    messages: list[MessageIn] = Field(default_factory=list, max_length=1_000)
    tools: list[ToolIn] | None = Field(default=None, max_length=512)
    format: Literal["", "json"] | dict[str, Any] | None = None
    options: OptionsIn | None = None
    stream: bool = True
    keep_alive: float | str | None = None
    think: bool | Literal["low", "medium", "high"] | None = None


class GenerateIn(Lenient):
    """``POST /api/generate``: a prompt (and system text, images) without a conversation.

    ``raw``, ``suffix`` and the deprecated ``context`` are accepted and not acted on: ARIA
    always answers through the model's chat template, and a conversation is ``/api/chat``'s.
    """

    model_config = with_examples(
        {"model": "aria", "prompt": "Why is the sky blue?"},
        {"model": "aria", "prompt": "Why is the sky blue?", "system": "Be brief.", "stream": False},
    )

    model: str = Field(min_length=1, max_length=256)
    prompt: str = Field(default="", max_length=1_000_000)
    system: str | None = Field(default=None, max_length=1_000_000)
    images: list[str] | None = Field(default=None, max_length=64)
    format: Literal["", "json"] | dict[str, Any] | None = None
    options: OptionsIn | None = None
    stream: bool = True
    raw: bool = False
    suffix: str | None = None
    keep_alive: float | str | None = None
    think: bool | Literal["low", "medium", "high"] | None = None


class ModelIn(Lenient):
    """``POST /api/show``: ``model`` (``name`` in older clients)."""

    model_config = with_examples({"model": "aria:latest"})

    model: str = Field(default="", max_length=256)
    name: str = Field(default="", max_length=256)

    @property
    def requested(self) -> str:
        return self.model or self.name


class PullIn(ModelIn):
    """``POST /api/pull``."""

    stream: bool = True
    insecure: bool = False


def _images(raw: list[str] | None) -> tuple[bytes, ...]:
    try:
        return tuple(base64.b64decode(item, validate=True) for item in raw or ())
    except (binascii.Error, ValueError):
        raise ClientRequestError(
            "An image is not valid base64.", hint="Send images as base64 strings."
        ) from None


def _message(message: MessageIn, index: int) -> ChatMessage:
    calls = tuple(
        ToolCall(
            id=f"call_{index}_{n}",
            name=call.function.name,
            arguments=arguments(call.function.arguments),
        )
        for n, call in enumerate(message.tool_calls or ())
    )
    return ChatMessage(
        role=message.role,
        content=message.content or "",
        tool_calls=calls,
        name=message.tool_name,
        images=_images(message.images),
    )


def _pair_tool_results(messages: list[ChatMessage]) -> tuple[ChatMessage, ...]:
    """Give tool results the id of the call they answer (Ollama sends none), in call order."""
    paired: list[ChatMessage] = []
    waiting: list[ToolCall] = []
    for message in messages:
        if message.tool_calls:
            waiting = list(message.tool_calls)
        elif message.role == "tool" and waiting:
            match = next((c for c in waiting if c.name == message.name), waiting[0])
            waiting.remove(match)
            message = ChatMessage(
                role="tool", content=message.content, tool_call_id=match.id, name=match.name
            )
        paired.append(message)
    return tuple(paired)


def _format(value: str | dict[str, Any] | None) -> ResponseFormat | None:
    if value is None or value == "":
        return None
    if isinstance(value, dict):
        return ResponseFormat(schema=value)
    return ResponseFormat()


def to_command(body: ChatIn, turn: CompatTurn, config: CompatConfig) -> ClientTurn:
    """The ``ClientTurn`` an Ollama ``/api/chat`` request asks for."""
    messages = _pair_tool_results([_message(m, i) for i, m in enumerate(body.messages)])
    return _command(body, messages, tool_specs(body.tools), turn, config)


def generate_command(body: GenerateIn, turn: CompatTurn, config: CompatConfig) -> ClientTurn:
    """The ``ClientTurn`` an Ollama ``/api/generate`` request asks for (system, then prompt)."""
    system = [ChatMessage(role="system", content=body.system)] if body.system else []
    prompt = ChatMessage(role="user", content=body.prompt, images=_images(body.images))
    return _command(body, (*system, prompt), (), turn, config)


def _command(
    body: ChatIn | GenerateIn,
    messages: tuple[ChatMessage, ...],
    tools: tuple[ToolSpec, ...],
    turn: CompatTurn,
    config: CompatConfig,
) -> ClientTurn:
    last_user = next((m.content for m in reversed(messages) if m.role == "user"), "")
    options = body.options or OptionsIn()
    num_ctx = options.num_ctx
    return ClientTurn(
        text=last_user,
        source="client",
        messages=messages,
        client_tools=tools,
        client=turn.client,
        private=turn.private,
        agent=turn.model.agent,
        options=GenerationOptions(
            max_tokens=options.num_predict if (options.num_predict or 0) > 0 else None,
            temperature=options.temperature,
            stop=tuple(s for s in options.stop or () if s),
            response_format=_format(body.format),
            context_tokens=min(num_ctx, config.max_context_tokens) if num_ctx else None,
            # A client's think=true asks for thinking where the model can (a model without the
            # capability would refuse a forced think); false turns it off.
            think=None if body.think is None else ("off" if body.think is False else "auto"),
        ),
    )


def _details() -> dict[str, Any]:
    return {
        "parent_model": "",
        "format": "aria",
        "family": "aria",
        "families": ["aria"],
        "parameter_size": "",
        "quantization_level": "",
    }


def model_entry(model: CompatModel, *, loaded: bool = False) -> dict[str, Any]:
    """One entry of ``/api/tags`` (``loaded``: of ``/api/ps``)."""
    entry: dict[str, Any] = {
        "name": model.tagged,
        "model": model.tagged,
        "modified_at": _MODIFIED_AT,
        "size": 0,
        "digest": hashlib.sha256(model.tagged.encode()).hexdigest(),
        "details": _details(),
    }
    if loaded:
        entry.pop("modified_at")
        entry["expires_at"] = "2099-01-01T00:00:00Z"
        entry["size_vram"] = 0
    return entry


def show(model: CompatModel, config: CompatConfig) -> dict[str, Any]:
    """``/api/show``: capabilities (tools, vision, completion) and the context length."""
    return {
        "modelfile": f"# ARIA: {model.tagged} -> agent {model.agent}\n",
        "parameters": "",
        "template": "",
        "details": _details(),
        "model_info": {
            "general.architecture": "aria",
            "aria.context_length": config.context_tokens,
        },
        "capabilities": ["completion", "tools", "vision"],
        "modified_at": _MODIFIED_AT,
    }


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def chat_line(
    model: str,
    content: str = "",
    calls: list[ClientToolCall] | None = None,
    *,
    thinking: str = "",
) -> dict[str, Any]:
    """One streamed ``/api/chat`` object (``done: false``); reasoning in ``message.thinking``."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking:
        message["thinking"] = thinking
    if calls:
        message["tool_calls"] = [
            {"function": {"name": call.name, "arguments": call.arguments}} for call in calls
        ]
    return {"model": model, "created_at": _now(), "message": message, "done": False}


def done_line(
    model: str, turn: TurnTranscript, started_s: float, *, whole: bool = False
) -> dict[str, Any]:
    """The final ``/api/chat`` object (with the whole reply when not streamed)."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.text if whole else ""}
    if whole and turn.thinking:
        message["thinking"] = turn.thinking
    if whole and turn.client_calls:
        message["tool_calls"] = chat_line(model, calls=turn.client_calls)["message"]["tool_calls"]
    total_ns = int((time.time() - started_s) * 1e9)
    return {
        "model": model,
        "created_at": _now(),
        "message": message,
        "done": True,
        "done_reason": "stop",
        "total_duration": total_ns,
        "load_duration": 0,
        "prompt_eval_count": turn.input_tokens,
        "prompt_eval_duration": 0,
        "eval_count": turn.output_tokens,
        "eval_duration": total_ns,
        "aria_backend": turn.backend,
        "aria_model": turn.model,
    }


def generate_line(model: str, text: str = "", *, thinking: str = "") -> dict[str, Any]:
    """One streamed ``/api/generate`` object (``done: false``)."""
    line: dict[str, Any] = {"model": model, "created_at": _now(), "response": text, "done": False}
    if thinking:
        line["thinking"] = thinking
    return line


def generate_done(
    model: str,
    turn: TurnTranscript,
    started_s: float,
    *,
    whole: bool = False,
    reason: str = "stop",
) -> dict[str, Any]:
    """The final ``/api/generate`` object (with the whole reply when not streamed).

    ``context`` is empty: Ollama's token context is deprecated, and a conversation is what
    ``/api/chat`` is for.
    """
    done = done_line(model, turn, started_s, whole=whole)
    del done["message"]
    line: dict[str, Any] = {"model": model, "created_at": done.pop("created_at")}
    line["response"] = turn.text if whole else ""
    if whole and turn.thinking:
        line["thinking"] = turn.thinking
    return {**line, **done, "done_reason": reason, "context": []}
