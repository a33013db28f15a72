"""Composition of the knowledge base: its store on the owner's database, its service, watcher.

It shares long-term memory's embedder instance (``compose.memory.build_embedder``), and its
scanned pages are read by computer use's Tesseract adapter, handed over here.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from aria_desktop import paths
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    # Adapters and core services are imported inside the builder that uses them (ARCHITECTURE.md:
    # start-up cost).
    from aria_desktop.adapters.memory.store import Embedder
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.core.knowledge.service import KnowledgeService

__all__ = ["build_knowledge", "read_scanned_page"]

_LOGGER = logging.getLogger(__name__)


def read_scanned_page(image: Any, timeout_s: float) -> str:
    """A scanned PDF page's text for the knowledge base: computer use's Tesseract adapter.

    The knowledge adapter may not import the computer one; this hands it over, imported at
    the first scanned page (Pillow and pytesseract are not loaded before).
    """
    from aria_desktop.adapters.computer.ocr import read_document_page

    return read_document_page(image, timeout_s=timeout_s)


async def build_knowledge(
    settings: Settings, database: Database, embedder: Embedder | None, *, watch: bool
) -> KnowledgeService | None:
    """The knowledge base on the owner's database, sharing memory's embedder instance.

    With ``watch`` (the owner process), watched folders are followed while ARIA runs; the
    service's ``install`` starts the rescan and the watcher. None when switched off.
    """
    if not settings.knowledge.enabled:
        return None
    from aria_desktop.adapters.knowledge.ocr_cache import cached_page_ocr
    from aria_desktop.adapters.knowledge.store import KnowledgeLimits, SQLiteKnowledgeStore
    from aria_desktop.core.knowledge.service import KnowledgeConfig, KnowledgeService

    kb = settings.knowledge
    store = SQLiteKnowledgeStore(
        database,
        embedder,
        limits=KnowledgeLimits(
            max_file_bytes=int(kb.max_file_mb * 1_000_000),
            fetch_timeout_s=kb.fetch_timeout_s,
            ocr_max_pages=kb.ocr_max_pages,
            ocr_page_timeout_s=kb.ocr_page_timeout_s,
        ),
        ocr=cached_page_ocr(read_scanned_page, paths.ocr_cache_dir()),
    )
    await store.open()
    _LOGGER.info("Knowledge search: %s", store.vector_status)
    config = KnowledgeConfig(
        recall_limit=kb.recall_limit, recall_min_similarity=kb.recall_min_similarity
    )
    if not watch:
        return KnowledgeService(store=store, config=config)
    from aria_desktop.adapters.knowledge.watcher import FolderWatcher

    service = KnowledgeService(store=store, config=config)
    watcher = FolderWatcher(
        store.apply_changes,
        store.rescan,
        service.folders_changed,
        debounce_ms=kb.watch_debounce_ms,
    )
    service.attach_watcher(watcher.watch, watcher.run)
    return service
