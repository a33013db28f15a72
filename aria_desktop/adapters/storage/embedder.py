"""What a store needs from a sentence-embedding model: the ``Embedder`` protocol.

Shared by every store that ranks with FTS5 + sqlite-vec (long-term memory and the knowledge
base; see ``aria_desktop/ARCHITECTURE.md``), so both take the same embedder instance, built
once at composition (``LocalEmbedder``, ``OllamaEmbedder``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["Embedder"]


class Embedder(Protocol):
    """An embedding model: unit float32 vectors as bytes, one per text."""

    @property
    def model_id(self) -> str: ...

    @property
    def name(self) -> str: ...

    async def dimension(self) -> int: ...

    async def embed(self, texts: Sequence[str]) -> list[bytes]: ...

    async def warm_up(self) -> None: ...

    async def aclose(self) -> None: ...
