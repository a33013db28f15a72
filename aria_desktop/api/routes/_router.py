"""The router of a route module whose every route needs one capability (memory, voice, ...)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter

from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import PREFIX, AssistantDep
from aria_desktop.domain.errors import StorageError

__all__ = ["assistant_skill", "capability_router"]


def capability_router(tag: str, *groups: docs.Responses) -> APIRouter:
    """A router under ``PREFIX`` whose routes all document the common errors, then ``groups``.

    ``groups`` end with the capability's 503 ("not set up"), which must replace the common 503
    ("stopping"): FastAPI puts a router's responses before a route's, so both are declared here
    and a route lists only what it adds (a body, 404, 422). A route's entry for a status
    replaces the router's.
    """
    return APIRouter(prefix=PREFIX, tags=[tag], responses=docs.responses(docs.COMMON, *groups))


def assistant_skill(attribute: str, what: str) -> Callable[[Any], Awaitable[Any]]:
    """A dependency handing a route the assistant's ``attribute`` (its timers, lists, ...).

    An ARIA built without it answers 503 (``StorageError``): "``what`` are not set up".
    """

    async def skill(assistant: AssistantDep) -> Any:
        part = getattr(assistant, attribute, None)
        if part is None:
            raise StorageError(
                f"{what} are not set up in this ARIA.", hint="Restart ARIA; `aria doctor` says why."
            )
        return part

    return skill
