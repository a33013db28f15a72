"""Errors in the shape each protocol's clients parse (ARCHITECTURE.md: api, compatible endpoints).

Every ARIA error leaves the API as ``{"error": {code, message, hint}}`` with the status of
``api/server/errors.py``'s one table. OpenAI's clients read ``error.message``/``type``/``code`` and
Ollama's read ``error`` as a string, and both expect 400 (not 422) for a malformed request. So
on the compatible paths an ASGI ``send`` wrapper rewrites the finished error body (the security
middleware's and the routes' alike) into that protocol's shape; the status stays the table's.
Success responses pass through untouched.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from aria_desktop.domain.error_text import with_hint

__all__ = ["OLLAMA_PATHS", "OPENAI_PREFIX", "openai_error", "protocol_of", "shape_errors"]

Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]

OPENAI_PREFIX = "/v1/"
OLLAMA_PATHS = frozenset(
    {"/api/version", "/api/tags", "/api/ps", "/api/show", "/api/pull", "/api/chat", "/api/generate"}
)

_OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "invalid_request_error",
    405: "invalid_request_error",
    409: "invalid_request_error",
    413: "invalid_request_error",
    415: "invalid_request_error",
    429: "rate_limit_exceeded",
}


def protocol_of(path: str) -> str | None:
    """``openai``, ``ollama`` or None (ARIA's own API) for a request path."""
    if path.startswith(OPENAI_PREFIX):
        return "openai"
    if path in OLLAMA_PATHS:
        return "ollama"
    return None


def _sentence(message: str, hint: str) -> str:
    return with_hint(message, hint)


_OPENAI_CODES = {"llm_context_overflow": "context_length_exceeded"}
"""ARIA's error codes that OpenAI's API has its own name for (clients test for those)."""


def openai_error(status: int, code: str, message: str, hint: str = "") -> dict[str, Any]:
    """OpenAI's error object: ``{"error": {message, type, param, code}}``."""
    kind = _OPENAI_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    code = _OPENAI_CODES.get(code, code)
    return {
        "error": {"message": _sentence(message, hint), "type": kind, "param": None, "code": code}
    }


def _reshape(protocol: str, status: int, body: bytes) -> bytes | None:
    try:
        data = json.loads(body)
    except ValueError:
        return None
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict) or "code" not in error or "hint" not in error:
        return None  # not ARIA's error body (already in the protocol's shape)
    code, message, hint = str(error["code"]), str(error["message"]), str(error["hint"])
    if protocol == "openai":
        return json.dumps(openai_error(status, code, message, hint)).encode()
    return json.dumps({"error": _sentence(message, hint)}).encode()


def shape_errors(path: str, send: Send) -> Send:
    """``send`` for a request to ``path``: error bodies in the path's protocol shape."""
    protocol = protocol_of(path)
    if protocol is None:
        return send
    held: list[Message] = []

    async def shaped(message: Message) -> None:
        if message["type"] == "http.response.start":
            if message["status"] < 400:
                await send(message)
                return
            held.append(dict(message))
            return
        if not held or message["type"] != "http.response.body":
            await send(message)
            return
        if message.get("more_body", False):
            start = held.pop()
            await send(start)
            await send(message)
            return
        start = held.pop()
        status = 400 if start["status"] == 422 else int(start["status"])
        body = _reshape(protocol, status, bytes(message.get("body", b"")))
        if body is not None:
            headers = [
                (k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"
            ]
            start = {
                **start,
                "status": status,
                "headers": [*headers, (b"content-length", str(len(body)).encode())],
            }
            message = {**message, "body": body}
        await send(start)
        await send(message)

    return shaped
