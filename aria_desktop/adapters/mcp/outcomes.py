"""What an MCP server's answers and failures say, in words: results as text, errors named.

Kept beside the supervisor, which uses them for status lines and call results.
"""

from __future__ import annotations

from typing import Any

from aria_desktop.adapters.mcp.oauth import McpSignInNeeded
from aria_desktop.domain.errors import AriaError

__all__ = ["describe", "http_status", "result_text", "sign_in_needed"]


def result_text(result: Any) -> str:
    """Content blocks as text: text as-is, other blocks described, structured content as JSON."""
    import json

    parts: list[str] = []
    for block in result.content:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource":
            resource = block.resource
            parts.append(getattr(resource, "text", None) or f"[resource {resource.uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource link {block.uri}]")
        else:
            parts.append(f"[{kind} content, {getattr(block, 'mime_type', '')}]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts)


def sign_in_needed(exc: BaseException) -> bool:
    """Whether ``exc`` (or one inside a group or its causes) is a sign-in nobody was asked for."""
    pending: list[BaseException | None] = [exc]
    visited: set[int] = set()
    while pending:
        current = pending.pop()
        if current is None or id(current) in visited:
            continue
        visited.add(id(current))
        if isinstance(current, McpSignInNeeded):
            return True
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend((current.__cause__, current.__context__))
    return False


def describe(exc: BaseException) -> str:
    if isinstance(exc, AriaError):
        return exc.message
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in exc.exceptions)
    response = getattr(exc, "response", None)
    if isinstance(getattr(response, "status_code", None), int):  # httpx's HTTPStatusError
        return http_status(response)
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def http_status(response: Any) -> str:
    """``HTTP 401 Unauthorized (WWW-Authenticate: Bearer …)``: the status and any challenge."""
    text = f"HTTP {response.status_code} {response.reason_phrase or ''}".rstrip()
    challenge = response.headers.get("www-authenticate")
    return f"{text} (WWW-Authenticate: {challenge})" if challenge else text
