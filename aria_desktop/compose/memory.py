"""Composition of long-term memory: the embedder, the memory store and its service.

``build_memory`` serves the owner (``build_app``); ``open_memory`` serves ``aria memory``
without an owner, whose actions run no turns, so its model is built only on first use.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aria_desktop import paths
from aria_desktop.compose.config import config_from
from aria_desktop.compose.llm import build_router
from aria_desktop.settings import Settings, resolve_database_path

if TYPE_CHECKING:
    # Adapters and core services are imported inside the builder that uses them (ARCHITECTURE.md:
    # start-up cost).
    from collections.abc import AsyncGenerator

    from aria_desktop.adapters.llm.router import Router
    from aria_desktop.adapters.memory.store import Embedder, SQLiteMemoryStore
    from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.core.memory.service import MemoryConfig, MemoryService
    from aria_desktop.core.ports import ChatModel
    from aria_desktop.domain.chat import ChatRequest, LLMChunk

__all__ = [
    "MemoryStorage",
    "RouterOnFirstUse",
    "build_embedder",
    "build_memory",
    "memory_config",
    "open_memory",
]

_LOGGER = logging.getLogger(__name__)


def build_embedder(settings: Settings) -> Embedder | None:
    """The embedding model chosen by ``memory.embedder`` (None: keyword search only).

    Nothing is loaded or contacted here: the local model loads on first use, Ollama is asked
    when the memory store opens.
    """
    choice = settings.memory.embedder
    if choice == "local":
        from aria_desktop.adapters.memory.embedding import LocalEmbedder

        return LocalEmbedder(cache_dir=paths.model_cache_dir())
    if choice == "ollama":
        from aria_desktop.adapters.memory.ollama_embed import OllamaEmbedder

        url = settings.memory.ollama_url or settings.llm.ollama.url
        return OllamaEmbedder(base_url=url, model=settings.memory.ollama_embed_model)
    return None


def memory_config(settings: Settings) -> MemoryConfig:
    """``MemoryConfig`` from ``settings.memory``."""
    from aria_desktop.core.memory.service import MemoryConfig

    mem = settings.memory
    return config_from(
        MemoryConfig,
        mem,
        private_conversations=frozenset(mem.private_conversations),
        private_sources=frozenset(mem.private_apps),
        min_confidence=min(1.0, mem.min_confidence),
    )


async def build_memory(
    settings: Settings,
    database: Database,
    embedder: Embedder | None,
    model: ChatModel,
    conversations: SQLiteConversationStore | None = None,
) -> tuple[MemoryService, SQLiteMemoryStore, int]:
    """Open the memory store (vector index checked against the embedder) and its service.

    Returns:
        The service, its store, and how many memories still need a vector from the current
        embedder (build them with ``store.sync_vectors()``, in the background).
    """
    from aria_desktop.adapters.memory.episodes import SQLiteEpisodeStore
    from aria_desktop.adapters.memory.store import SQLiteMemoryStore
    from aria_desktop.core.memory.episodes import EpisodeKeeper
    from aria_desktop.core.memory.service import MemoryService

    memory_store = SQLiteMemoryStore(database, embedder)
    pending = await memory_store.open()
    _LOGGER.info("Memory search: %s", memory_store.vector_status)
    keeper = None
    if conversations is not None:
        keeper = EpisodeKeeper(
            episodes=SQLiteEpisodeStore(database, memory_store),
            conversations=conversations,
            model=model,
            forget=lambda memory_id: _forget_quietly(memory_store, memory_id),
        )
    service = MemoryService(
        store=memory_store,
        model=model,
        conversations=conversations,
        config=memory_config(settings),
        episodes=keeper,
    )
    return service, memory_store, pending


async def _forget_quietly(store: SQLiteMemoryStore, memory_id: str) -> None:
    """Forget a memory whose last supporting conversation was deleted."""
    await store.forget(memory_id)
    _LOGGER.info("Forgot %s: the only conversation it came from was deleted", memory_id)


class RouterOnFirstUse:
    """A ``ChatModel`` that builds the LLM router when the first reply is asked for.

    ``aria memory`` needs a model only to extract facts, which its actions never do; building
    the router reads the keyring and imports the HTTP clients, so it waits for a real use
    (ARCHITECTURE.md: start-up cost).
    """

    def __init__(self, settings: Settings) -> None:
        """Remember the settings the router will be built from."""
        self._settings = settings
        self._router: Router | None = None

    def stream(
        self, request: ChatRequest, *, agent: str = "chat", backend: str | None = None
    ) -> AsyncGenerator[LLMChunk, None]:
        """Stream through the router, building it first if this is the first reply."""
        if self._router is None:
            self._router = build_router(self._settings)
        return self._router.stream(request, agent=agent, backend=backend)

    async def aclose(self) -> None:
        """Close the router's backends, if the router was ever built."""
        if self._router is not None:
            await self._router.aclose()


@dataclass(kw_only=True)
class MemoryStorage:
    """Owned storage with the memory service, for ``aria memory`` (no turns are run)."""

    memory: MemoryService
    store: SQLiteMemoryStore
    pending_vectors: int
    database: Database
    model: RouterOnFirstUse
    embedder: Embedder | None

    async def aclose(self) -> None:
        """Close the embedder, the backends and the database (releases the owner lock)."""
        try:
            await self.model.aclose()
            if self.embedder is not None:
                await self.embedder.aclose()
        finally:
            await self.database.close()


async def open_memory(settings: Settings) -> MemoryStorage:
    """Take ownership of the database and open long-term memory (CLI use)."""
    from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
    from aria_desktop.adapters.storage.database import Database

    database = await Database.open(resolve_database_path(settings))
    embedder = build_embedder(settings)
    model = RouterOnFirstUse(settings)
    try:
        memory, memory_store, pending = await build_memory(
            settings, database, embedder, model, SQLiteConversationStore(database)
        )
    except BaseException:
        if embedder is not None:
            await embedder.aclose()
        await database.close()
        raise
    return MemoryStorage(
        memory=memory,
        store=memory_store,
        pending_vectors=pending,
        database=database,
        model=model,
        embedder=embedder,
    )
