"""The bases every body builds on, and the bodies every area shares (errors, health, usage).

Three bases say how strictly a request body is read: ``Strict`` refuses unknown fields,
``StrictTypes`` also refuses coercion, and ``FromDomain`` builds a response from a domain
dataclass's attributes.
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict

__all__ = [
    "ErrorDetail",
    "ErrorOut",
    "FromDomain",
    "HealthOut",
    "Strict",
    "StrictTypes",
    "UsageOut",
]


class Strict(BaseModel):
    """No unknown fields: a misspelt field is an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


class FromDomain(BaseModel):
    """A response body read from the domain value's attributes (nested values too).

    One conversion for every body whose fields mirror a domain dataclass, instead of a
    hand-written field-by-field copy per class.
    """

    model_config = ConfigDict(from_attributes=True)

    @classmethod
    def of(cls, value: object) -> Self:
        """From the domain value (its attributes of the same names)."""
        return cls.model_validate(value)


class StrictTypes(BaseModel):
    """No unknown fields and no coercion (``false`` is not an importance, ``"5"`` no limit)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ErrorDetail(BaseModel):
    """What went wrong: a stable ``code`` and a message with a hint for people."""

    code: str
    message: str
    hint: str = ""


class ErrorOut(BaseModel):
    """Every error response other than request validation (422)."""

    error: ErrorDetail


class HealthOut(BaseModel):
    """Liveness: only the status and the version (no token needed)."""

    status: Literal["ok"]
    version: str


class UsageOut(FromDomain):
    """Token counts, and their cost from ``llm.prices`` (0 for local backends)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float = 0.0
