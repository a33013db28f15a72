"""Loading an Ollama model into memory ahead of the first turn (warm-up).

Ollama loads a model on a ``POST /api/generate`` that names the model and has no prompt, and
keeps it loaded for ``keep_alive`` (its documented way to preload a model). A cold load of a
few-GB model takes seconds, which would otherwise fall on the first voice command
(ARCHITECTURE.md: settings applied live, warm-up).
"""

from __future__ import annotations

from typing import Any

import httpx

from aria_desktop.adapters.llm._errors import error_for_status, error_message_from_body
from aria_desktop.adapters.llm._http import transport_error
from aria_desktop.domain.errors import MalformedResponseError

__all__ = ["load_ollama_model"]


async def load_ollama_model(
    base_url: str,
    model: str,
    *,
    keep_alive: str | None,
    timeout_s: float,
    connect_s: float = 5.0,
    backend: str = "ollama",
) -> None:
    """Ask the Ollama server at ``base_url`` to load ``model`` and wait until it has.

    Args:
        base_url: the server's root URL.
        model: the model tag.
        keep_alive: how long the server keeps it loaded (None: the server's default).
        timeout_s: the longest the load may take.
        connect_s: the connect timeout.
        backend: the backend's name, for error messages.

    Raises:
        ModelNotFoundError: the server does not have the model (hint: ``ollama pull NAME``).
        BackendUnreachableError, LLMTimeoutError, ServerError: the server cannot load it now.
    """
    root = base_url.rstrip("/")
    url = f"{root}/api/generate"
    body: dict[str, Any] = {"model": model, "stream": False}
    if keep_alive:
        body["keep_alive"] = keep_alive
    timeout = httpx.Timeout(timeout_s, connect=connect_s)
    hint = (
        f"Is Ollama running at {root}? Start it with `ollama serve` or set llm.ollama.url "
        "(`aria config set llm.ollama.url http://HOST:11434`)."
    )
    # Ollama runs on this machine or the LAN: environment proxies would only hurt.
    async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
        try:
            response = await client.post(url, json=body)
        except httpx.TransportError as exc:
            raise transport_error(exc, backend=backend, url=url, unreachable_hint=hint) from exc
    if response.status_code >= 400:
        raise error_for_status(
            response.status_code,
            error_message_from_body(response.text),
            backend=backend,
            model_hint=(
                f"Pull the model with `ollama pull {model}` or set llm.ollama.model to one "
                "listed by `ollama list`."
            ),
        )
    try:
        reply = response.json()
    except ValueError:
        reply = None
    if not isinstance(reply, dict) or "error" in reply:
        raise MalformedResponseError(
            f"{backend}: loading {model} did not answer as Ollama does: {response.text[:200]!r}",
            backend=backend,
            hint="Check that llm.ollama.url points at an Ollama server.",
        )
