"""Builds the lists every surface uses: ARIA's database, or Home Assistant for shopping.

ARCHITECTURE.md: everyday skills. ``assist.shopping_list`` names where the shopping list lives:
``aria`` (the database) or a Home Assistant to-do entity, used while ``[homeassistant]`` is set
up; every other list stays in the database. The owner wires the service's ``changed`` to the
event bus and the recogniser's list names (``compose/skills.py``); a CLI command without an
owner opens the database itself (``open_list_access``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING

from aria_desktop.domain.lists import ARIA_STORE

if TYPE_CHECKING:
    from aria_desktop.adapters.skills.list_store import SQLiteListStore
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.core.homeassistant.control import HomeAssistantControl
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.core.skills.list_service import ListService
    from aria_desktop.core.skills.lists import ListStore
    from aria_desktop.settings import Settings

__all__ = ["build_list_service", "install_list_tool", "list_store", "open_list_access"]

_LOGGER = logging.getLogger(__name__)


def list_store(
    settings: Settings, local: SQLiteListStore, homeassistant: HomeAssistantControl | None
) -> ListStore:
    """The database, or the shopping list routed to Home Assistant's to-do entity."""
    entity = settings.assist.shopping_list.strip()
    if entity == ARIA_STORE:
        return local
    if homeassistant is None:
        _LOGGER.warning(
            "assist.shopping_list is %s but Home Assistant is not set up; "
            "the shopping list stays in ARIA",
            entity,
        )
        return local
    from aria_desktop.core.skills.ha_lists import HomeAssistantTodoList, RoutedListStore

    return RoutedListStore(local, HomeAssistantTodoList(homeassistant.port, entity))


def build_list_service(
    settings: Settings,
    orchestrator: Orchestrator,
    local: SQLiteListStore,
    homeassistant: HomeAssistantControl | None,
    *,
    refresh_names: Callable[[], Awaitable[None]],
) -> ListService:
    """The owner's ``ListAccess``: each change is told on the bus and teaches the recogniser."""
    from aria_desktop.core.skills.list_service import ListService
    from aria_desktop.domain.skill_events import SkillDataChanged

    async def changed() -> None:
        await refresh_names()
        orchestrator.bus.publish(SkillDataChanged(kind="lists"))

    return ListService(list_store(settings, local, homeassistant), changed=changed)


def install_list_tool(orchestrator: Orchestrator, lists: ListService) -> None:
    """The model's ``lists`` tool, under the registry's policy and audit like every tool."""
    from aria_desktop.core.skills.list_tool import lists_tool

    orchestrator.tools.register(lists_tool(lists))


@contextlib.asynccontextmanager
async def open_list_access(settings: Settings) -> AsyncIterator[ListService]:
    """The lists with this process owning the database (no owner runs; closed on exit)."""
    from aria_desktop.adapters.skills.list_store import SQLiteListStore
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.compose.app import database_path
    from aria_desktop.compose.tools import build_homeassistant
    from aria_desktop.core.skills.list_service import ListService

    database: Database = await Database.open(database_path(settings))
    homeassistant = build_homeassistant(settings)
    try:
        store = list_store(settings, SQLiteListStore(database), homeassistant)
        yield ListService(store)
    finally:
        if homeassistant is not None:
            await homeassistant.aclose()
        await database.close()
