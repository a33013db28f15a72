"""What a backend's failure means to the router: statuses, error bodies and broken replies.

``error_for_status`` is the one translation of an HTTP status (or a mid-stream error) into an
``LLMError`` subclass, shared by the HTTP backends and the Anthropic SDK adapter; the others
name protocol violations and replies that broke off.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Callable
from typing import Any

from aria_desktop.domain.errors import (
    AuthenticationError,
    BackendUnreachableError,
    BadRequestError,
    CapabilityMissingError,
    ContextOverflowError,
    LLMError,
    LLMTimeoutError,
    MalformedResponseError,
    ModelNotFoundError,
    RateLimitedError,
    ServerError,
    StreamInterruptedError,
)

__all__ = [
    "cannot_connect",
    "connect_timed_out",
    "connection_broke",
    "ended_early",
    "error_for_status",
    "error_message_from_body",
    "interrupted",
    "malformed",
    "parse_retry_after",
    "retry_after_from_headers",
]

#: Phrases servers use when the prompt does not fit (Ollama, llama.cpp, OpenAI, Anthropic).
_CONTEXT_PHRASES = (
    "context length",
    "context window",
    "context_length",
    "maximum context",
    "prompt is too long",
    "too many tokens",
    "exceeds the available context",
    "input is too long",
    "request too large",
)


#: Phrases servers use when the model lacks a capability the request needs.
_CAPABILITY_PHRASES = (
    "does not support tools",
    "does not support images",
    "does not support vision",
    "does not support tool",
    "tools are not supported",
    "images are not supported",
)


def parse_retry_after(value: str | None, *, now: Callable[[], float] = time.time) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta seconds or an HTTP date).

    Returns None when absent or unparsable; never negative.
    """
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - now())


def retry_after_from_headers(headers: Any) -> float | None:
    """``retry-after-ms`` (OpenAI) or ``Retry-After`` from a case-insensitive header mapping."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    result: float | None = parse_retry_after(headers.get("retry-after"))
    return result


def error_message_from_body(body: str) -> str:
    """The human message inside an error body (Ollama, OpenAI and Anthropic shapes)."""
    text = body.strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:500]
    if isinstance(data, dict):
        err = data.get("error", data.get("message"))
        if isinstance(err, str):
            return err
        if isinstance(err, dict):
            msg = err.get("message")
            kind = err.get("type")
            if isinstance(msg, str):
                return f"{kind}: {msg}" if isinstance(kind, str) and kind not in msg else msg
    return text[:500]


def error_for_status(
    status: int | None,
    message: str,
    *,
    backend: str,
    retry_after_s: float | None = None,
    auth_hint: str = "",
    model_hint: str = "",
) -> LLMError:
    """Translate an HTTP status (or a mid-stream error, ``status=None``) into an ``LLMError``.

    Retryable: 408, 429, 5xx, 529 and unknown mid-stream failures. Not retryable: auth, missing
    model, context overflow, missing capability and other request errors, which fail the same
    way on every retry.
    """
    lowered = message.lower()
    prefix = f"{backend}: " + (f"HTTP {status}: " if status is not None else "")
    text = prefix + message
    common: dict[str, Any] = {"backend": backend, "status": status}
    client_side = status is None or 400 <= status < 500
    if client_side and (status == 413 or any(p in lowered for p in _CONTEXT_PHRASES)):
        return ContextOverflowError(
            text,
            hint="Shorten the conversation or start a new one, or pick a model with a "
            "larger context window.",
            **common,
        )
    if client_side and any(p in lowered for p in _CAPABILITY_PHRASES):
        return CapabilityMissingError(
            text,
            hint="Choose a model that supports this (tools or images) for this agent.",
            **common,
        )
    if status in (401, 403):
        return AuthenticationError(text, hint=auth_hint, **common)
    if status == 404 and "model" in lowered:
        return ModelNotFoundError(text, hint=model_hint, **common)
    if status == 404:
        # Every model server names the model when it lacks one: a bare 404 ("Not Found", an
        # HTML page) means the address answers but is not this kind of server at all.
        return MalformedResponseError(
            f"{backend}: the address answers, but not as {backend} does (HTTP 404: "
            f"{message[:120]})",
            hint=f"Check the address set for {backend}: something else runs there.",
            retryable=False,
            **common,
        )
    if status == 429 or status == 529 or "overloaded" in lowered or "rate_limit" in lowered:
        return RateLimitedError(
            text,
            hint="The server asked us to slow down; ARIA retries after the delay it gave.",
            retry_after_s=retry_after_s,
            **common,
        )
    if status == 408 or status is None or status >= 500:
        return ServerError(
            text,
            hint="The server failed; it may recover on its own — check its logs if it persists.",
            retry_after_s=retry_after_s,
            retryable=True,
            **common,
        )
    return BadRequestError(text, hint="This looks like a bug in ARIA; please report it.", **common)


def interrupted(exc: LLMError, *, backend: str, partial_text: str) -> StreamInterruptedError:
    """Wrap a failure that happened after content was delivered (never retryable)."""
    if isinstance(exc, StreamInterruptedError):
        return exc
    return StreamInterruptedError(
        f"{backend}: the reply broke off after {len(partial_text)} characters: {exc.message}",
        partial_text=partial_text,
        backend=backend,
        status=exc.status,
        hint="The partial reply was kept; ask again to get a complete answer.",
    )


def malformed(backend: str, what: str, sample: str) -> MalformedResponseError:
    """A protocol violation, quoting a short sample of what arrived."""
    return MalformedResponseError(
        f"{backend}: {what}: {sample[:200]!r}",
        backend=backend,
        hint="The server does not speak the expected protocol; check its URL and version.",
    )


def ended_early(backend: str, what: str) -> MalformedResponseError:
    """The stream stopped before the protocol's last message (``what`` says which)."""
    return MalformedResponseError(
        f"{backend}: the stream ended {what}",
        backend=backend,
        hint="The server closed the reply early; check its logs if this repeats.",
    )


# --- the connection itself (httpx for the HTTP backends, httpx2 inside the Anthropic SDK) ------


def connect_timed_out(backend: str, url: str, *, hint: str) -> LLMTimeoutError:
    """Opening the connection to ``url`` took longer than the connect timeout."""
    return LLMTimeoutError(
        f"{backend}: connecting to {url} timed out", kind="connect", backend=backend, hint=hint
    )


def cannot_connect(backend: str, url: str, exc: Exception, *, hint: str) -> BackendUnreachableError:
    """Nothing answered at ``url`` (refused, DNS, no route)."""
    return BackendUnreachableError(
        f"{backend}: cannot connect to {url}: {exc}", backend=backend, hint=hint
    )


def connection_broke(backend: str, url: str, exc: Exception) -> BackendUnreachableError:
    """The open connection to ``url`` broke (reset, dropped mid-reply)."""
    return BackendUnreachableError(
        f"{backend}: the connection to {url} broke: {exc!r}",
        backend=backend,
        hint="The server closed the connection mid-reply; check its logs if this repeats.",
    )
