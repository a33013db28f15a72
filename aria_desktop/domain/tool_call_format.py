"""A required tool call asked for as structured output, for models without native tool calls.

A small local model whose chat template has no tool support ignores ``tools`` and
``tool_choice``; the server can still constrain its reply with a JSON schema (llama.cpp and
Ollama turn it into a grammar). When a reply MUST be a tool call, the router asks for a JSON
object ``{"name": <tool>, "arguments": {...}}`` instead — one of the shapes the text-call filter
reads (``adapters/llm/text_call_filter.py``), which then turns it into a real, validated call
(ARCHITECTURE.md: tool calls written as text).
"""

from __future__ import annotations

from typing import Any

from aria_desktop.domain.chat import ResponseFormat, ToolChoice, ToolSpec

__all__ = ["tool_call_format"]


def _call_schema(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string", "const": tool.name},
            "arguments": tool.parameters or {"type": "object"},
        },
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


def tool_call_format(tools: tuple[ToolSpec, ...], choice: ToolChoice) -> ResponseFormat | None:
    """The structured output that makes a reply one call of ``tools`` as ``choice`` demands.

    None when no offered tool can satisfy ``choice`` (a named tool that is not offered).
    """
    picked = [t for t in tools if choice.mode == "required" or t.name == choice.name]
    if not picked:
        return None
    schemas = [_call_schema(tool) for tool in picked]
    schema = schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
    return ResponseFormat(schema=schema, name="tool_call")
