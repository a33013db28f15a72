"""What every operation of the API client's table is made of: ``Operation`` and its helpers.

The tables themselves live beside this module, one per area, so that a command imports the
domain types of its own area only (ARCHITECTURE.md: start-up cost).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import httpx

from aria_desktop.api.client.wire import from_json, list_from_json

__all__ = [
    "API_PREFIX",
    "Caller",
    "HttpArgs",
    "Operation",
    "at",
    "many",
    "member",
    "nothing",
    "one",
    "only_set",
]

_A = TypeVar("_A")
_R = TypeVar("_R")
_T = TypeVar("_T")

API_PREFIX = "/api/v1"
"""Where the API's paths begin; an operation's ``path`` is below it."""

HttpArgs = dict[str, Any]
"""Keyword arguments of ``httpx.AsyncClient.request``: json, params, content, headers, timeout."""


def _no_body(_arg: object) -> HttpArgs:
    return {}


@dataclass(frozen=True, kw_only=True)
class Operation(Generic[_A, _R]):
    """One call over the API.

    Attributes:
        method: the HTTP method.
        path: the path under ``/api/v1`` for the call's argument.
        decode: the answer as a domain value (from the response and the argument).
        encode: the request's query, body and headers for the argument.
        after_streams: wait until the client's event streams are connected first, so a
            subscriber sees every event the call causes (turns, clicks, tasks).
    """

    method: str
    path: Callable[[_A], str]
    decode: Callable[[httpx.Response, _A], _R]
    encode: Callable[[_A], HttpArgs] = _no_body
    after_streams: bool = False


class Caller(Protocol):
    """What carries operations out: ``ApiTransport``, or the ``ApiClient`` composed on it.

    Parts of the client that only run operations (``KnowledgeClient``) take this, not the
    client, so they need not import the client's module.
    """

    async def call(self, operation: Operation[_A, _R], arg: _A) -> _R:
        """Carry out ``operation`` for ``arg`` and return its decoded answer."""
        ...


def at(path: str) -> Callable[[object], str]:
    """The same ``path`` whatever the argument."""
    return lambda _arg: path


def one(cls: type[_T], key: str | None = None) -> Callable[[httpx.Response, object], _T]:
    """Decode the body (or its member ``key``) as ``cls``."""

    def decode(response: httpx.Response, _arg: object) -> _T:
        data = response.json()
        return from_json(cls, data[key] if key else data)

    return decode


def one_or_none(cls: type[_T]) -> Callable[[httpx.Response, object], _T | None]:
    """Decode the body as ``cls``, or None when it is JSON ``null``."""

    def decode(response: httpx.Response, _arg: object) -> _T | None:
        data = response.json()
        return None if data is None else from_json(cls, data)

    return decode


def many(cls: type[_T]) -> Callable[[httpx.Response, object], list[_T]]:
    """Decode the body, a JSON array, as a list of ``cls``."""
    return lambda response, _arg: list_from_json(cls, response.json())


def nothing(_response: httpx.Response, _arg: object) -> None:
    """Decode nothing: the call answers with a status only."""
    return None


def member(key: str, cast: Callable[[Any], _T]) -> Callable[[httpx.Response, object], _T]:
    """Decode the body's member ``key`` with ``cast``."""
    return lambda response, _arg: cast(response.json()[key])


def only_set(**values: Any) -> dict[str, Any]:
    """Only the values that are set (the API's defaults apply to the others)."""
    return {name: value for name, value in values.items() if value is not None}
