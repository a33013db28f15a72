"""The API's routes, one ``APIRouter`` module per area (``aria_desktop/ARCHITECTURE.md``, "API").

:data:`ROUTERS` is the order the app includes them in: a fixed path must come before a
template that would also match it, and the OpenAPI document lists operations in this order.
"""

from __future__ import annotations

from fastapi import APIRouter

from aria_desktop.api.routes import (
    automations,
    chat,
    computer,
    conversations,
    events,
    health,
    knowledge,
    mcp,
    memory,
    ollama_compat,
    openai_compat,
    settings,
    usage,
    voice,
)

__all__ = ["ROUTERS"]

ROUTERS: tuple[APIRouter, ...] = (
    health.router,
    chat.router,
    events.router,
    conversations.router,
    memory.router,
    knowledge.router,
    voice.router,
    computer.router,
    settings.router,
    automations.router,
    openai_compat.router,
    ollama_compat.router,
    mcp.router,
    usage.router,
)
"""Every router of the API, in inclusion order."""
