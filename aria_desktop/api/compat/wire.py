"""What OpenAI's and Ollama's chat requests share: lenient parsing, tools, tool arguments.

Both protocols describe a tool the same way (``{"type": "function", "function": {name,
description, parameters}}``) and both let clients send tool-call arguments as JSON text; the
protocol modules (``api/compat/openai_wire.py``, ``api/compat/ollama_wire.py``) build on these.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from aria_desktop.domain.chat import ToolSpec

__all__ = ["FunctionIn", "Lenient", "ToolIn", "arguments", "tool_specs", "with_examples"]


class Lenient(BaseModel):
    """Unknown fields are ignored; known ones are checked strictly.

    Clients send many fields ARIA has no use for; a known one of the wrong type (``0`` for
    ``false``, ``"5"`` for ``5``) is refused rather than guessed.
    """

    model_config = ConfigDict(extra="ignore", strict=True)


def with_examples(*examples: dict[str, Any]) -> ConfigDict:
    """``Lenient``'s model config plus request examples for the OpenAPI document."""
    return ConfigDict(extra="ignore", strict=True, json_schema_extra={"examples": list(examples)})


class FunctionIn(Lenient):
    name: str = Field(min_length=1, max_length=256)
    description: str = Field(default="", max_length=100_000)
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})


class ToolIn(Lenient):
    type: str = Field(default="function", max_length=64)
    function: FunctionIn


def tool_specs(tools: Sequence[ToolIn] | None) -> tuple[ToolSpec, ...]:
    """The client's function tools as ARIA's tool specs."""
    return tuple(
        ToolSpec(
            name=t.function.name,
            description=t.function.description,
            parameters=t.function.parameters,
        )
        for t in tools or ()
        if t.type == "function"
    )


def arguments(raw: dict[str, Any] | str) -> dict[str, Any]:
    """Tool-call arguments as an object; text that is not a JSON object is kept, wrapped."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return {"_raw": raw}
    return value if isinstance(value, dict) else {"_value": value}
