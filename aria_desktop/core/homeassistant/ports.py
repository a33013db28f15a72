"""The port to a Home Assistant server."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from aria_desktop.domain.homeassistant import EntityState

__all__ = ["HomeAssistantPort"]


class HomeAssistantPort(Protocol):
    """A Home Assistant instance over its REST API (``adapters/homeassistant/client.py``).

    Failures raise ``HomeAssistantError`` subclasses: auth (401/403), unreachable, timeout,
    ``EntityNotFoundError`` for an unknown entity id.
    """

    async def states(self) -> list[EntityState]:
        """Every entity's state (areas left empty)."""
        ...

    async def state(self, entity_id: str) -> EntityState:
        """One entity's state; ``EntityNotFoundError`` when there is no such entity."""
        ...

    async def entity_areas(self) -> dict[str, str]:
        """Entity id -> the name of its area, for entities that are in one."""
        ...

    async def call_service(
        self, domain: str, service: str, data: Mapping[str, Any]
    ) -> list[EntityState]:
        """Call ``domain.service`` with ``data``; the states it changed."""
        ...

    async def call_service_response(
        self, domain: str, service: str, data: Mapping[str, Any]
    ) -> Any:
        """Call a service that answers with data (``todo.get_items``); its ``service_response``."""
        ...

    async def aclose(self) -> None:
        """Close the connections."""
        ...
