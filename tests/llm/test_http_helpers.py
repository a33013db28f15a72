"""Pure helpers of adapters/llm/_http.py: Retry-After parsing and status -> error mapping."""

from __future__ import annotations

import email.utils

import pytest

from aria_desktop.adapters.llm._errors import (
    error_for_status,
    error_message_from_body,
    parse_retry_after,
)
from aria_desktop.domain.errors import (
    AuthenticationError,
    BadRequestError,
    CapabilityMissingError,
    ContextOverflowError,
    LLMError,
    ModelNotFoundError,
    RateLimitedError,
    ServerError,
)


def test_retry_after_delta_seconds() -> None:
    assert parse_retry_after("12") == 12.0
    assert parse_retry_after(" 1.5 ") == 1.5
    assert parse_retry_after("-4") == 0.0


def test_retry_after_http_date_is_relative_to_now() -> None:
    now = 1_700_000_000.0
    header = email.utils.formatdate(now + 90, usegmt=True)
    assert parse_retry_after(header, now=lambda: now) == pytest.approx(90.0)
    past = email.utils.formatdate(now - 90, usegmt=True)
    assert parse_retry_after(past, now=lambda: now) == 0.0


@pytest.mark.parametrize("value", [None, "", "soon", "Mon, 99 Foo 2025"])
def test_retry_after_garbage_is_none(value: str | None) -> None:
    assert parse_retry_after(value) is None


@pytest.mark.parametrize(
    ("status", "message", "cls", "retryable"),
    [
        (400, "bad field", BadRequestError, False),
        (400, "prompt is too long: 300000 tokens > 200000 maximum", ContextOverflowError, False),
        (400, "model llama2 does not support tools", CapabilityMissingError, False),
        (400, "gemma does not support images", CapabilityMissingError, False),
        (401, "nope", AuthenticationError, False),
        (403, "nope", AuthenticationError, False),
        (404, "model not found", ModelNotFoundError, False),
        (408, "timeout", ServerError, True),
        (413, "request too large", ContextOverflowError, False),
        (429, "slow", RateLimitedError, True),
        (500, "boom", ServerError, True),
        (503, "busy", ServerError, True),
        (529, "overloaded_error: Overloaded", RateLimitedError, True),
        (None, "unexpected EOF", ServerError, True),
    ],
)
def test_status_mapping(
    status: int | None, message: str, cls: type[LLMError], retryable: bool
) -> None:
    error = error_for_status(status, message, backend="b", retry_after_s=2.0)
    assert type(error) is cls
    assert error.retryable is retryable
    assert error.backend == "b"
    assert error.status == status


def test_error_message_from_known_body_shapes() -> None:
    assert error_message_from_body('{"error": "model not found"}') == "model not found"
    assert (
        error_message_from_body(
            '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
        )
        == "overloaded_error: Overloaded"
    )
    assert error_message_from_body('{"error": {"message": "bad key", "type": null}}') == "bad key"
    assert error_message_from_body("<html>502</html>") == "<html>502</html>"
