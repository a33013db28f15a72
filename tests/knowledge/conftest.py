"""Fixtures of the knowledge-base tests: a real database, the packaged embedder, a corpus."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from aria_desktop.adapters.knowledge.store import KnowledgeLimits, SQLiteKnowledgeStore
from aria_desktop.adapters.memory.embedding import LocalEmbedder
from aria_desktop.adapters.storage.database import Database
from tests.knowledge.corpus import write_corpus

LIMIT_BYTES = 200_000
"""The store's per-file limit in these tests (a 'huge' file is just over it)."""


@pytest.fixture(scope="module")
def embedder(embedding_cache: Path) -> Iterator[LocalEmbedder]:
    model = LocalEmbedder(cache_dir=embedding_cache)
    yield model
    model.close()


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "aria.db")
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture
async def store(db: Database, embedder: LocalEmbedder) -> SQLiteKnowledgeStore:
    kb = SQLiteKnowledgeStore(db, embedder, limits=KnowledgeLimits(max_file_bytes=LIMIT_BYTES))
    assert await kb.open() == 0
    assert "384-d" in kb.vector_status
    return kb


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "docs")
