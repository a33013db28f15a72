"""A wrong method on a fixed path is 405, even when a path template also matches the path.

Starlette takes the first route whose path and method both match, so ``GET
/api/v1/memories/search`` (only ``POST`` exists there) reached ``GET /memories/{memory_id}``
and answered 404 for a memory called "search"; ``PATCH`` and ``DELETE`` would have tried to
change it. This layer sits between the security middleware and the routes: for each fixed
path that some template also matches, a method the fixed path does not have is answered 405
with its ``Allow`` header, like every other wrong method (``api/server/errors.py``). The shadowed
paths are found from the routes when the app is built, so a new router is covered as well.
"""

from __future__ import annotations

from collections.abc import Sequence

from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute

from aria_desktop.api.server.security import ASGIApp, Receive, Scope, Send, error_body

__all__ = ["FixedPathMethods", "shadowed_paths"]


def shadowed_paths(routes: Sequence[APIRoute]) -> dict[str, frozenset[str]]:
    """Fixed paths that a template also matches -> the methods the fixed path answers."""
    fixed: dict[str, set[str]] = {}
    for route in routes:
        if "{" not in route.path:
            fixed.setdefault(route.path, set()).update(route.methods or ())
    templates = [route for route in routes if "{" in route.path]
    return {
        path: frozenset(methods)
        for path, methods in fixed.items()
        if any(template.path_regex.match(path) for template in templates)
    }


class FixedPathMethods:
    """ASGI layer answering 405 for a method a shadowed fixed path does not have.

    Args:
        app: the application.
        routes: its API routes.
    """

    def __init__(self, app: ASGIApp, routes: Sequence[APIRoute]) -> None:
        self.app = app
        self.allowed = shadowed_paths(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 405 here, or hand the request on."""
        if scope["type"] == "http":
            methods = self.allowed.get(scope["path"])
            if methods is not None and scope["method"] not in methods:
                response = JSONResponse(
                    error_body("method_not_allowed", "Method Not Allowed"),
                    status_code=405,
                    headers={"Allow": ", ".join(sorted(methods))},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
