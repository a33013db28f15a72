"""Long-term memory's I/O: the memory lifecycle over the SQLite layer, and the embedders.

Built on ``adapters.storage`` (the owner's database and the shared hybrid-search machinery):
``store.SQLiteMemoryStore`` (the ``MemoryStore`` port) with its rows, search, derived indexes,
inbox and export/import, re-exported here with ``Embedder`` and ``ImportReport``. The embedders
— ``embedding.LocalEmbedder`` (the packaged int8 MiniLM, derived by ``embedding_quant`` and
``embedding_graph``) and ``ollama_embed.OllamaEmbedder`` — are imported from their modules, so
importing the store never loads their libraries.
"""

from __future__ import annotations

from aria_desktop.adapters.memory.store import Embedder, ImportReport, SQLiteMemoryStore

__all__ = ["Embedder", "ImportReport", "SQLiteMemoryStore"]
