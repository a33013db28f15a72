"""What every chat backend shares: its identity, the relay of its stream, wire-format pieces.

``relay_chunks`` is the one place that decides what a failure during a reply means (before or
after content); the small helpers read the parts of the wire formats the backends have in
common (tool schemas, tool-call arguments, token counts, call ids).
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

from aria_desktop.adapters.llm._errors import interrupted, malformed
from aria_desktop.adapters.llm._keepalive import drain_after_end
from aria_desktop.adapters.llm._timing import StreamTimer, Timeouts
from aria_desktop.adapters.llm.model_facts import FactsCache, FactsPolicy, KnowsModel
from aria_desktop.domain.chat import StreamEnd, ToolSpec
from aria_desktop.domain.errors import LLMError
from aria_desktop.domain.locality import Locality

__all__ = [
    "BackendIdentity",
    "function_tools",
    "json_arguments",
    "new_call_id",
    "relay_chunks",
    "token_count",
]

_T = TypeVar("_T")


class BackendIdentity(KnowsModel):
    """What every chat backend tells the router: its name, model, capabilities and locality.

    Every backend takes the same two constructor arguments for this: ``name``, the backend
    name used in events, errors and the fallback chain; and ``locality``, where the model runs,
    None applying the one rule (``domain.locality.backend_locality``) to that kind of server at
    its base URL.
    """

    _name: str
    _locality: Locality
    _timeouts: Timeouts

    def _identify(self, name: str, model: str, timeouts: Timeouts, facts: FactsPolicy) -> None:
        """Set what every backend's constructor sets: its name, model, deadlines and facts.

        ``facts`` holds the configured capabilities and says how the model's window and
        capabilities are learned (``FactsCache``).
        """
        self._name = name
        self._model = model
        self._timeouts = timeouts
        self._capabilities = facts.configured
        self._facts = FactsCache(facts, backend=name)

    @property
    def name(self) -> str:
        """Backend name (as in the fallback chain)."""
        return self._name

    @property
    def locality(self) -> Locality:
        """Where the model runs: ``local`` or ``cloud``, fixed when the backend is built.

        It comes from the one rule (``domain.locality.backend_locality``) unless the
        composition root says otherwise. Every ``StreamEnd`` carries it, so front-ends show
        it and never guess it from a name (ARCHITECTURE.md: one fact, decided once).
        """
        return self._locality


async def relay_chunks(
    source: AsyncGenerator[_T, None],
    parse: Callable[[AsyncIterator[_T], StreamTimer, list[str]], AsyncGenerator[Any, None]],
    *,
    timer: StreamTimer,
    backend: str,
    close: Callable[[], Awaitable[None]],
) -> AsyncGenerator[Any, None]:
    """Yield the chunks ``parse`` makes of a backend's ``source``, then always close both.

    The one place that decides what a failure means to the router: before any content it is
    the failure itself (the router may retry or fall back); after content it becomes a
    ``StreamInterruptedError`` carrying the text that arrived (kept, never retried). Every
    backend streams the same way (raw lines or events in, chunks out), so the text ``parse``
    collects and the closing order (``source`` first, then the transport via ``close``) live
    here once.
    """
    partial: list[str] = []
    finished = False
    try:
        async with contextlib.aclosing(parse(source, timer, partial)) as parsed:
            async for chunk in parsed:
                finished = isinstance(chunk, StreamEnd)
                yield chunk
    except LLMError as exc:
        if timer.content_started:
            raise interrupted(exc, backend=backend, partial_text="".join(partial)) from exc
        raise
    finally:
        try:
            if finished:
                await drain_after_end(source)
        finally:
            await source.aclose()
            await close()


def new_call_id() -> str:
    """A tool-call id for backends that give none (storage keys executions by it)."""
    return f"call_{secrets.token_hex(8)}"


def function_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """``tools`` in the ``{"type": "function", ...}`` form Ollama and OpenAI servers share."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools
    ]


def json_arguments(text: str, *, backend: str, invalid: str, not_object: str) -> dict[str, Any]:
    """Tool-call arguments sent as JSON text; empty text means no arguments.

    Each backend names the failure in its own protocol's words (``invalid``, ``not_object``),
    so the error points at the field the server got wrong.
    """
    try:
        arguments = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise malformed(backend, invalid, text) from exc
    if not isinstance(arguments, dict):
        raise malformed(backend, not_object, text)
    return arguments


def token_count(value: Any) -> int:
    """A token count from a reply; anything but a real int (bools included) counts as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
