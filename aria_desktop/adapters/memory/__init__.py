"""Long-term memory: the memory lifecycle over the SQLite layer, and the embedders.

Built on :mod:`aria_desktop.adapters.storage` (the owner's database and the shared hybrid-search
machinery); see ``aria_desktop/ARCHITECTURE.md`` for where memory sits among the adapters.

Public names:
    SQLiteMemoryStore: ``core.ports.MemoryStore`` over the owner's ``Database``.
    Embedder: what the store needs from an embedding model.
    ImportReport: the outcome of importing exported memories.

The embedders live in :mod:`aria_desktop.adapters.memory.embedding` (``LocalEmbedder``, the embedded
ONNX model) and :mod:`aria_desktop.adapters.memory.ollama_embed` (``OllamaEmbedder``); they are not
re-exported here so that importing the store never loads their libraries.
"""

from __future__ import annotations

from aria_desktop.adapters.memory.store import Embedder, ImportReport, SQLiteMemoryStore

__all__ = ["Embedder", "ImportReport", "SQLiteMemoryStore"]
