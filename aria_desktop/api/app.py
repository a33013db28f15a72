"""The FastAPI application: routers over the ``core.ports.Assistant`` protocol, nothing else.

Routes never touch the orchestrator or an adapter; the same ``Assistant`` drives the GUI and
the CLI. This factory only assembles: the routers of ``api.routes`` (one per area), the error
handlers of ``api.errors``, the OpenAPI security scheme, and the security middleware that
wraps everything (``aria_desktop/ARCHITECTURE.md``, "API").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from aria_desktop.api.compat import ollama_routes, openai_routes, responses_routes
from aria_desktop.api.config import ApiConfig
from aria_desktop.api.mcp import routes as mcp_routes
from aria_desktop.api.mcp.routes import MCP_PATH, McpEndpoint
from aria_desktop.api.routes import (
    automations,
    chat,
    computer,
    conversations,
    docs_page,
    events,
    health,
    knowledge,
    lists,
    memory,
    reminders,
    settings,
    timers,
    usage,
    voice,
)
from aria_desktop.api.server.deps import ApiState
from aria_desktop.api.server.errors import install_error_handlers
from aria_desktop.api.server.methods import FixedPathMethods
from aria_desktop.api.server.schemas.common import HealthOut
from aria_desktop.api.server.security import HEALTH_PATH, SecurityMiddleware
from aria_desktop.api.server.sse import StreamRegistry
from aria_desktop.api.token import TokenFile
from aria_desktop.core.ports import Assistant

__all__ = ["ApiApp", "create_app"]

_DESCRIPTION = (
    "Drive ARIA from scripts, Home Assistant and other programs. Every route but "
    "`/api/v1/health` needs `Authorization: Bearer <token>` (`aria token show`). "
    "This page (`/docs`) is served by ARIA itself and works offline."
)

ROUTERS: tuple[APIRouter, ...] = (
    health.router,
    chat.router,
    events.router,
    conversations.router,
    memory.router,
    knowledge.router,
    lists.router,
    timers.router,
    reminders.router,
    voice.router,
    computer.router,
    settings.router,
    automations.router,
    openai_routes.router,
    responses_routes.router,
    ollama_routes.router,
    mcp_routes.router,
    usage.router,
    docs_page.router,
)
"""Every router of the API, in inclusion order: a fixed path must come before a template that
would also match it, and the OpenAPI document lists operations in this order."""


@dataclass
class ApiApp:
    """The ASGI application (middleware included) and its stream registry."""

    asgi: SecurityMiddleware
    fastapi: FastAPI
    streams: StreamRegistry
    mcp: McpEndpoint | None = None


def _install_openapi(app: FastAPI) -> None:
    """Document the bearer token for every route but health (built once, on first request)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            schema.setdefault("components", {})["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer"}
            }
            schema["security"] = [{"bearer": []}]
            schema["paths"][HEALTH_PATH]["get"]["security"] = []
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def create_app(
    assistant: Assistant,
    *,
    config: ApiConfig,
    token: TokenFile,
    version: str,
    port: Callable[[], int],
) -> ApiApp:
    """Build the API over ``assistant``.

    Args:
        assistant: what the routes drive.
        config: limits and allowed origins.
        token: the bearer token file.
        version: ARIA's version (health and OpenAPI).
        port: the port actually bound (for the Host check).
    """
    app = FastAPI(
        title="ARIA Desktop local API",
        version=version,
        description=_DESCRIPTION,
        openapi_url="/openapi.json",
        docs_url=None,
        redoc_url=None,
    )
    streams = StreamRegistry(config.max_sse_streams)
    health_body = HealthOut(status="ok", version=version).model_dump_json().encode()
    app.state.aria = ApiState(
        assistant=assistant, config=config, streams=streams, health_body=health_body
    )
    for router in ROUTERS:
        app.include_router(router)
    mcp = None
    if config.serve_mcp:
        mcp = McpEndpoint(assistant, version=version)
        # An ASGI app as the endpoint (Starlette calls it with scope, receive, send).
        app.add_route(
            MCP_PATH,
            mcp,  # type: ignore[arg-type]
            methods=["GET", "POST", "DELETE"],
            include_in_schema=False,
        )
    routes = [route for router in ROUTERS for route in router.routes if isinstance(route, APIRoute)]
    install_error_handlers(app, routes)
    _install_openapi(app)
    asgi = SecurityMiddleware(
        FixedPathMethods(app, routes),
        config=config,
        token=token,
        port=port,
        health_body=health_body,
    )
    return ApiApp(asgi=asgi, fastapi=app, streams=streams, mcp=mcp)
