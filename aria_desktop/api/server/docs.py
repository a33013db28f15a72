"""OpenAPI response documentation shared by the routes, built once.

Every route documents the failures the security middleware can answer (``COMMON``), those of
a request body (``BODY``) and those of its area (memory, voice, computer). Routes combine these
groups with :func:`responses` instead of spelling the dictionaries out again, so a wording
change happens in one place and the OpenAPI document stays consistent
(``aria_desktop/ARCHITECTURE.md``, "API").
"""

from __future__ import annotations

from typing import Any

from aria_desktop.api.server.schemas.chat import ChatFailedOut
from aria_desktop.api.server.schemas.common import ErrorOut

__all__ = [
    "BODY",
    "CHAT_FAILED",
    "COMMON",
    "COMPUTER",
    "INVALID",
    "MEMORY",
    "NOT_FOUND",
    "PNG_MEDIA_TYPE",
    "VOICE",
    "WAV_MEDIA_TYPE",
    "Responses",
    "binary_content",
    "error",
    "responses",
    "sse_response",
]

Responses = dict[int | str, dict[str, Any]]
"""FastAPI's ``responses`` argument: status -> OpenAPI response object."""

WAV_MEDIA_TYPE = "audio/wav"
"""The one non-JSON request body the API takes (``POST /transcribe``)."""
PNG_MEDIA_TYPE = "image/png"


def error(description: str) -> dict[str, Any]:
    """An error response (the ``ErrorOut`` body) with its description."""
    return {"model": ErrorOut, "description": description}


COMMON: Responses = {
    400: error("The request cannot be carried out"),
    401: error("Missing or wrong API token"),
    403: error("Host or Origin not allowed"),
    429: error("Rate limited (see Retry-After)"),
    422: error("Invalid value"),
    431: error("Request headers too large"),
    503: error("ARIA is stopping or storage is unavailable"),
}
BODY: Responses = {
    413: error("Request body too large"),
    415: error("Request body is not JSON"),
}
NOT_FOUND: Responses = {404: error("No such record")}


def _chat_failed(description: str) -> dict[str, Any]:
    return {"model": ChatFailedOut, "description": description}


CHAT_FAILED: Responses = {
    400: _chat_failed("The request cannot be carried out (e.g. too long for every model)"),
    402: _chat_failed("A cloud spending limit refused the reply"),
    502: _chat_failed("The model server answered with an error"),
    503: _chat_failed("No model could answer: none is set up, or none can be reached"),
    504: _chat_failed("The model or the turn took too long"),
}
"""The failures of a whole reply (``stream=false``): the error with the turn's ids."""
INVALID: Responses = {422: error("Invalid value")}
MEMORY: Responses = {503: error("Long-term memory is not set up, or storage is unavailable")}
VOICE: Responses = {503: error("Voice is not set up, still loading, or has no audio device")}
COMPUTER: Responses = {
    503: error("Computer use is not set up, or there is no display, Tesseract or input")
}


def responses(*groups: Responses) -> Responses:
    """The groups merged in order, a later group's entry replacing an earlier one's.

    ``responses(COMMON, BODY, {409: error("...")})`` documents a route's own 409 beside the
    shared ones.
    """
    merged: Responses = {}
    for group in groups:
        merged.update(group)
    return merged


def binary_content(media_type: str) -> dict[str, Any]:
    """An OpenAPI ``content`` entry for a binary body of ``media_type``."""
    return {media_type: {"schema": {"type": "string", "format": "binary"}}}


def sse_response(description: str, names: tuple[str, ...] | None) -> dict[str, Any]:
    """A ``text/event-stream`` response whose events are named ``names`` (None: any name).

    OpenAPI before 3.2 has no event-stream type: ``schema`` describes one event.
    """
    event: dict[str, Any] = {"type": "string"}
    if names is not None:
        event["enum"] = list(names)
    schema = {
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "event": event,
            "data": {"type": "string", "contentMediaType": "application/json"},
        },
    }
    return {"description": description, "content": {"text/event-stream": {"schema": schema}}}
