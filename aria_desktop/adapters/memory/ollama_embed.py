"""Embeddings from an Ollama server (``POST /api/embed``), for users whose GPU box does it.

Ollama answers ``{"embeddings": [[...], ...]}`` for a batch ``input`` list. Models differ in
whether they normalise, so every vector is L2-normalised here (L2 distance then ranks like
cosine). The dimension is learned from the first answer. Failures become
:class:`EmbedderError` with a hint; memory then keeps working with keywords only.
"""

from __future__ import annotations

import array
import logging
import math
from collections.abc import Sequence
from typing import Any

import httpx

from aria_desktop.domain.errors import EmbedderError

__all__ = ["OllamaEmbedder"]

_LOGGER = logging.getLogger(__name__)
_BATCH = 64
"""Texts per request (Ollama embeds a list in one call)."""


class OllamaEmbedder:
    """``/api/embed`` of one Ollama server and model.

    Attributes:
        model_id: ``ollama:<model>``, recorded with each vector.
    """

    def __init__(self, *, base_url: str, model: str, timeout_s: float = 30.0) -> None:
        """Set up the client (no request is made until the first embedding)."""
        self._base_url = base_url.rstrip("/")
        self._model = model
        self.model_id = f"ollama:{model}"
        self._client = httpx.AsyncClient(timeout=httpx.Timeout(timeout_s, connect=5.0))
        self._dim: int | None = None

    @property
    def name(self) -> str:
        """Where vectors come from, for people (doctor, logs)."""
        return f"Ollama {self._model} at {self._base_url}"

    async def dimension(self) -> int:
        """Vector dimension (asks the server once).

        Raises:
            EmbedderError: the server or model is unavailable.
        """
        if self._dim is None:
            await self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    async def warm_up(self) -> None:
        """Nothing to load here: the Ollama server loads its model on the first request."""

    async def embed(self, texts: Sequence[str]) -> list[bytes]:
        """Unit-normalised float32 vectors (little-endian bytes), one per text, in order."""
        out: list[bytes] = []
        for start in range(0, len(texts), _BATCH):
            out.extend(await self._embed_batch(list(texts[start : start + _BATCH])))
        return out

    async def _embed_batch(self, texts: list[str]) -> list[bytes]:
        url = f"{self._base_url}/api/embed"
        try:
            response = await self._client.post(url, json={"model": self._model, "input": texts})
        except httpx.HTTPError as exc:
            raise EmbedderError(
                f"Could not reach Ollama for embeddings at {self._base_url}: {exc}",
                hint="Start Ollama there, set memory.ollama_url, or set memory.embedder=local.",
            ) from exc
        if response.status_code != 200:
            detail = _error_text(response)
            hint = (
                f"Pull the model on that machine: `ollama pull {self._model}`."
                if response.status_code == 404
                else "Check the Ollama server's log."
            )
            raise EmbedderError(
                f"Ollama refused to embed with {self._model} (HTTP {response.status_code}): "
                f"{detail}",
                hint=hint,
            )
        try:
            vectors = response.json()["embeddings"]
            if not isinstance(vectors, list) or len(vectors) != len(texts):
                raise ValueError("wrong number of embeddings")
            packed = [_unit_bytes(vector) for vector in vectors]
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbedderError(
                f"Ollama sent a malformed embedding answer: {exc}",
                hint="Check that the model is an embedding model (e.g. nomic-embed-text).",
            ) from exc
        dims = {len(v) // 4 for v in packed}
        if len(dims) != 1 or (self._dim is not None and dims != {self._dim}):
            raise EmbedderError(
                "Ollama returned vectors of changing dimension.",
                hint="Use one embedding model; run `aria memory reindex` after changing it.",
            )
        self._dim = dims.pop()
        return packed

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.aclose()


def _unit_bytes(vector: Any) -> bytes:
    values = [float(x) for x in vector]
    if not values:
        raise ValueError("empty embedding")
    norm = math.sqrt(sum(x * x for x in values))
    if not math.isfinite(norm) or norm == 0.0:
        raise ValueError("embedding has zero or non-finite length")
    return array.array("f", (x / norm for x in values)).tobytes()


def _error_text(response: httpx.Response) -> str:
    try:
        return str(response.json().get("error", ""))[:200]
    except ValueError:
        return response.text[:200]
