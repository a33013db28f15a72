"""JSON jobs (memory extraction and the like): structured output, validation, one repair.

The request asks the backend for JSON matching a schema (``ChatRequest.response_format``: Ollama
``format`` with the schema, OpenAI-compatible ``response_format`` ``json_schema``, Anthropic a
forced tool whose ``input_schema`` is the schema). Servers enforce it to different degrees (a
grammar on llama.cpp and Ollama, nothing on some), so the reply is still parsed and checked
against the schema here. A reply that fails gets ONE repair attempt: the model is shown its
output and the problem and asked for the corrected JSON. A second failure is a
``StructuredOutputError`` (code, message, hint) and the caller stores nothing.

Validation uses ``core/schema.py`` (the core's strict JSON-Schema subset; the core imports no
third-party library, ARCHITECTURE.md: layers); a job whose schema needs more passes its own
``validate``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
from collections.abc import Callable
from typing import Any

from aria_desktop.core import schema as json_schema
from aria_desktop.core.ports import ChatModel
from aria_desktop.domain.chat import ChatMessage, ChatRequest, ResponseFormat, TextDelta
from aria_desktop.domain.errors import StructuredOutputError

__all__ = ["Validate", "complete_text", "read_json", "structured_reply"]

_LOGGER = logging.getLogger(__name__)
_SHOWN_CHARS = 4000

Validate = Callable[[Any, dict[str, Any]], list[str]]
"""Problems of a value against a JSON schema (empty when it matches)."""


def read_json(text: str, schema: dict[str, Any], validate: Validate = json_schema.validate) -> Any:
    """The JSON value in a reply, checked against ``schema``.

    The value may stand alone or inside a code fence or prose (what models add without a
    grammar): the outermost ``{...}`` is read.

    Raises:
        ValueError: no JSON object, broken JSON, or one that does not match ``schema``.
    """
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object in the reply")
    try:
        value = json.loads(text[start : end + 1])
    except ValueError as exc:
        raise ValueError(f"the JSON is not valid: {exc}") from exc
    problems = validate(value, schema)
    if problems:
        raise ValueError("; ".join(problems[:3]))
    return value


async def structured_reply(
    model: ChatModel,
    request: ChatRequest,
    *,
    schema: dict[str, Any],
    name: str,
    agent: str,
    validate: Validate = json_schema.validate,
) -> Any:
    """The model's JSON answer to ``request``, matching ``schema`` (one repair at most).

    Args:
        model: the router.
        request: the prompt; its ``response_format`` is set to ``schema`` here.
        schema: the JSON schema the answer must match (an object schema).
        name: the schema's name (OpenAI's ``json_schema.name``, Anthropic's tool name).
        agent: the fallback chain to use.
        validate: the schema check.

    Raises:
        StructuredOutputError: the answer and its one repair both failed the schema.
        LLMError: the model could not be reached (as ``ChatModel.stream`` raises).
    """
    request = dataclasses.replace(request, response_format=ResponseFormat(schema=schema, name=name))
    text = await complete_text(model, request, agent)
    try:
        return read_json(text, schema, validate)
    except ValueError as exc:
        problem = str(exc)
    _LOGGER.info("The %s reply did not match its schema (%s); asking for a repair", name, problem)
    repair = dataclasses.replace(
        request,
        messages=(
            *request.messages,
            ChatMessage(role="assistant", content=text[:_SHOWN_CHARS]),
            ChatMessage(
                role="user",
                content=f"That reply is not valid: {problem}. Answer again with ONLY the "
                "corrected JSON object, matching the schema exactly, and nothing else.",
            ),
        ),
    )
    text = await complete_text(model, repair, agent)
    try:
        return read_json(text, schema, validate)
    except ValueError as exc:
        raise StructuredOutputError(
            f"The model's {name} answer did not match its schema, even after one repair "
            f"attempt: {exc}",
            hint="Nothing was stored. A larger model, or a backend that enforces JSON "
            f"schemas (Ollama, llama.cpp), for the {agent!r} chain usually fixes this.",
        ) from exc


async def complete_text(model: ChatModel, request: ChatRequest, agent: str) -> str:
    """The whole text of a reply to ``request`` (its text deltas joined)."""
    parts: list[str] = []
    stream = model.stream(request, agent=agent)
    async with contextlib.aclosing(stream):
        async for chunk in stream:
            if isinstance(chunk, TextDelta):
                parts.append(chunk.text)
    return "".join(parts)
