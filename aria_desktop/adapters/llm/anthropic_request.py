"""The Anthropic Messages API request: the prompt, tools, thinking and a forced answer tool.

The stable system prompt and the tool schemas are marked ``cache_control: ephemeral`` (tools,
then system: the cache prefix order); an assistant message with tool calls is sent back with
its signed thinking block, as Anthropic requires in tool loops. A structured answer is forced
through a tool (``answer_tool``), since the API has no ``response_format``.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from aria_desktop.domain.chat import ChatMessage, ChatRequest, ResponseFormat

__all__ = [
    "MIN_THINKING_BUDGET",
    "answer_text",
    "answer_tool",
    "build_messages",
    "build_params",
    "tool_choice",
]

#: Wraps a structured answer whose schema is not an object (a tool's input must be one).
_WRAPPED_KEY = "value"


def answer_tool(fmt: ResponseFormat) -> dict[str, Any]:
    """The tool a structured answer is forced through (Anthropic has no ``response_format``).

    The schema becomes the tool's ``input_schema`` and ``tool_choice`` names the tool, so the
    model's answer is the tool's input (ARCHITECTURE.md: structured output). A schema that is
    not an object is wrapped as ``{"value": ...}`` and unwrapped again when read.
    """
    name = re.sub(r"[^A-Za-z0-9_-]", "_", fmt.name)[:64] or "response"
    schema = fmt.schema or {"type": "object"}
    if schema.get("type") != "object":
        schema = {"type": "object", "properties": {_WRAPPED_KEY: schema}, "required": ["value"]}
    return {
        "name": name,
        "description": "Give your answer: call this tool with the answer as its input.",
        "input_schema": schema,
    }


def tool_choice(request: ChatRequest) -> dict[str, Any] | None:
    """Anthropic's ``tool_choice`` for the request (``any`` for required, ``tool`` for one)."""
    if request.response_format is not None:
        return {"type": "tool", "name": answer_tool(request.response_format)["name"]}
    choice = request.tool_choice
    if choice is None or not request.tools:
        return None
    if choice.mode == "tool":
        return {"type": "tool", "name": choice.name}
    return {"type": "any"}


def answer_text(fmt: ResponseFormat, arguments: dict[str, Any]) -> str:
    """A forced answer tool's input as the JSON text of the answer."""
    schema = fmt.schema or {"type": "object"}
    value = arguments.get(_WRAPPED_KEY) if schema.get("type") != "object" else arguments
    return json.dumps(value, ensure_ascii=False)


def _merge_user(messages: list[dict[str, Any]], blocks: list[dict[str, Any]]) -> None:
    """Append user content blocks, merging into a preceding user message (roles must alternate)."""
    if messages and messages[-1]["role"] == "user":
        messages[-1]["content"].extend(blocks)
    else:
        messages.append({"role": "user", "content": blocks})


def build_messages(
    messages: tuple[ChatMessage, ...],
) -> tuple[str, list[dict[str, Any]]]:
    """Split the prompt into Anthropic's ``system`` string and ``messages`` list.

    Tool results become ``tool_result`` blocks of a user message, assistant tool calls become
    ``tool_use`` blocks; consecutive user-side messages are merged because the API wants roles
    to alternate.
    """
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            system.append(message.content)
        elif message.role == "user":
            image_blocks: list[dict[str, Any]] = [
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": base64.b64encode(image).decode("ascii"),
                    },
                }
                for image in message.images
            ]
            _merge_user(out, [*image_blocks, {"type": "text", "text": message.content}])
        elif message.role == "tool":
            _merge_user(
                out,
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": message.tool_call_id or "",
                        "content": message.content,
                    }
                ],
            )
        else:
            blocks: list[dict[str, Any]] = []
            if message.tool_calls and message.thinking_signature:
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": message.thinking,
                        "signature": message.thinking_signature,
                    }
                )
            if message.content:
                blocks.append({"type": "text", "text": message.content})
            blocks.extend(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
                for call in message.tool_calls
            )
            if blocks:
                out.append({"role": "assistant", "content": blocks})
    return "\n\n".join(s for s in system if s), out


_EPHEMERAL = {"type": "ephemeral"}


#: Anthropic's smallest thinking budget.
MIN_THINKING_BUDGET = 1024


def build_params(
    request: ChatRequest, *, model: str, capabilities: frozenset[str]
) -> dict[str, Any]:
    """The Messages API parameters for ``request`` (public for tests).

    The system prompt goes as one text block and the last tool schema carries
    ``cache_control`` so both are read from Anthropic's prompt cache on the next call. With
    thinking on, ``thinking.budget_tokens`` is added on top of ``max_tokens`` (which must exceed
    it) and no temperature is sent (Anthropic allows none with thinking).
    """
    system, messages = build_messages(request.messages)
    choice = tool_choice(request)
    # Anthropic refuses thinking together with a forced tool (a structured answer is one).
    think = request.thinks_on(capabilities) and choice is None
    budget = max(MIN_THINKING_BUDGET, request.think_budget_tokens)
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens + (budget if think else 0),
        "messages": messages,
    }
    if system:
        params["system"] = [{"type": "text", "text": system, "cache_control": _EPHEMERAL}]
    if request.stop:
        params["stop_sequences"] = list(request.stop)
    if think:
        params["thinking"] = {"type": "enabled", "budget_tokens": budget}
    elif request.temperature is not None:
        # SDK 2.x dropped ``temperature`` from ``create()``'s signature; the API still takes it
        # for models that support sampling parameters.
        params["extra_body"] = {"temperature": request.temperature}
    if request.tools:
        tools: list[dict[str, Any]] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
        params["tools"] = tools
    if request.response_format is not None:
        params["tools"] = [*params.get("tools", []), answer_tool(request.response_format)]
    if params.get("tools"):
        params["tools"][-1]["cache_control"] = _EPHEMERAL
    if choice is not None:
        params["tool_choice"] = choice
    return params
