"""The router of a route module whose every route needs one capability (memory, voice, ...)."""

from __future__ import annotations

from fastapi import APIRouter

from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import PREFIX

__all__ = ["capability_router"]


def capability_router(tag: str, *groups: docs.Responses) -> APIRouter:
    """A router under ``PREFIX`` whose routes all document the common errors, then ``groups``.

    ``groups`` end with the capability's 503 ("not set up"), which must replace the common 503
    ("stopping"): FastAPI puts a router's responses before a route's, so both are declared here
    and a route lists only what it adds (a body, 404, 422). A route's entry for a status
    replaces the router's.
    """
    return APIRouter(prefix=PREFIX, tags=[tag], responses=docs.responses(docs.COMMON, *groups))
