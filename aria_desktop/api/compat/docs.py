"""OpenAPI documentation of the compatible endpoints' responses (their own error shapes).

The failures are the same as on ``/api/v1`` (``api/server/docs.py``: token, Host, Origin, rate
limit, body), but their bodies are in each protocol's shape (``api/server/protocol_errors.py``)
and a malformed request is a 400, so the OpenAPI document — and schemathesis checking against
it — says so.
"""

from __future__ import annotations

from typing import Any

from aria_desktop.api.server.docs import Responses

__all__ = ["OLLAMA_ERRORS", "OPENAI_ERRORS", "ndjson_response"]


_OPENAI_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["message", "type"],
            "properties": {
                "message": {"type": "string"},
                "type": {"type": "string"},
                "param": {"type": ["string", "null"]},
                "code": {"type": ["string", "null"]},
            },
        }
    },
}
"""OpenAI's error body."""

_OLLAMA_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {"error": {"type": "string"}},
}
"""Ollama's error body: one sentence."""

_FAILURES = {
    400: "The request is malformed or cannot be carried out",
    401: "Missing or wrong API token",
    403: "Host or Origin not allowed",
    404: "No such model (or the endpoints are switched off)",
    413: "Request body too large",
    415: "Request body is not JSON",
    429: "Rate limited (see Retry-After)",
    431: "Request headers too large",
    502: "No backend of the routing chain could answer",
    503: "ARIA is stopping, or too many streams are open",
}


def _errors(schema: dict[str, Any]) -> Responses:
    content = {"application/json": {"schema": schema}}
    return {
        status: {"description": description, "content": content}
        for status, description in _FAILURES.items()
    }


OPENAI_ERRORS: Responses = _errors(_OPENAI_ERROR_SCHEMA)
OLLAMA_ERRORS: Responses = _errors(_OLLAMA_ERROR_SCHEMA)


def ndjson_response(description: str) -> dict[str, Any]:
    """A 200 that is one JSON object, or NDJSON lines when streamed."""
    return {
        "description": description,
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "application/x-ndjson": {"schema": {"type": "string"}},
        },
    }
