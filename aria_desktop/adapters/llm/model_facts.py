"""What a backend's model can take and do: its context window and capabilities, learned once.

Why: a prompt must be fitted to the window of the model it goes to (``domain/prompt_budget.py``)
and a model without tools must get no tool schemas — and neither can be guessed from a model
name. So each backend learns them from its server the first time it is asked
(``ChatBackend.model_facts``) and keeps them per model, so a new model (a changed setting)
is learned afresh:

- Ollama: ``POST /api/show`` → ``model_info["<arch>.context_length"]`` and ``capabilities``
  (``completion``, ``tools``, ``vision``, ``thinking``, ``embedding``);
- llama.cpp and other OpenAI-compatible servers: ``GET /props`` →
  ``default_generation_settings.n_ctx`` (the server's real slot size), ``modalities.vision``
  and ``chat_template_caps.supports_tool_calls``; else ``GET /v1/models`` → ``meta.n_ctx``;
- Anthropic: a table of the published windows (the API has no such endpoint).

Settings win where given: a backend's ``context_tokens`` (0 = learn) replaces the learned
window, and ``llm.max_context_tokens`` caps a learned Ollama window, because Ollama allocates
the whole ``num_ctx`` as KV cache in RAM when it loads the model (a 128k-token window of an 8B
model costs ~16 GB). A server that cannot be asked (down, old) gives the settings' capabilities
and a small default window; those are not cached, so the next turn asks again.
"""

from __future__ import annotations

import abc
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aria_desktop.domain.chat import ModelFacts
from aria_desktop.domain.errors import LLMError

__all__ = [
    "DEFAULT_CONTEXT_TOKENS",
    "FactsCache",
    "FactsPolicy",
    "KnowsModel",
    "Learned",
    "anthropic_window",
    "from_llama_props",
    "from_models_meta",
    "from_ollama_show",
]

_LOGGER = logging.getLogger(__name__)

#: Window assumed when nothing says otherwise: Ollama's own default ``num_ctx`` (0.6 and later)
#: and a size every current chat model supports.
DEFAULT_CONTEXT_TOKENS = 4096

#: Published context windows of Anthropic's models (model-name prefix -> tokens). Every current
#: Claude model has a 200k-token window (1M only in a beta that must be asked for).
_ANTHROPIC_WINDOWS: Mapping[str, int] = {"claude": 200_000}


@dataclass(frozen=True, kw_only=True)
class Learned:
    """What a server said about a model (None: it did not say)."""

    context_tokens: int | None
    capabilities: frozenset[str] | None
    source: str


@dataclass(frozen=True, kw_only=True)
class FactsPolicy:
    """How learned facts are combined with the settings of one backend.

    Attributes:
        configured: the settings' capabilities, used when the server does not report any.
        context_tokens: the settings' window; 0 learns it from the server.
        cap_tokens: the largest learned window used (Ollama: RAM), None for no cap.
    """

    configured: frozenset[str]
    context_tokens: int = 0
    cap_tokens: int | None = None

    def facts(self, learned: Learned | None) -> ModelFacts:
        """The facts for a model given what its server said (None: nothing)."""
        capabilities = self.configured
        window: int | None = None
        source = "settings"
        if learned is not None:
            if learned.capabilities is not None:
                capabilities = learned.capabilities
            window = learned.context_tokens
            source = learned.source
        if window is not None and self.cap_tokens is not None:
            window = min(window, self.cap_tokens)
        if self.context_tokens > 0:
            window, source = self.context_tokens, "settings"
        if window is None:
            window = min(DEFAULT_CONTEXT_TOKENS, self.cap_tokens or DEFAULT_CONTEXT_TOKENS)
        return ModelFacts(context_tokens=window, capabilities=capabilities, source=source)


class FactsCache:
    """One backend's model facts, learned once per model.

    Args:
        policy: how learned facts and settings combine.
        backend: the backend's name, for the log.
    """

    def __init__(self, policy: FactsPolicy, *, backend: str) -> None:
        """No I/O until :meth:`get`."""
        self._policy = policy
        self._backend = backend
        self._known: dict[str, ModelFacts] = {}

    def cached(self, model: str) -> ModelFacts | None:
        """The facts learned for ``model`` so far (None: not asked yet, or the server failed)."""
        return self._known.get(model)

    async def get(self, model: str, learn: Callable[[], Awaitable[Learned]]) -> ModelFacts:
        """The facts for ``model``: cached, else learned with ``learn`` (a failure is logged)."""
        known = self._known.get(model)
        if known is not None:
            return known
        try:
            learned = await learn()
        except LLMError as exc:
            _LOGGER.info(
                "%s: could not learn the facts of %s (%s); using the settings",
                self._backend,
                model,
                exc.message,
            )
            return self._policy.facts(None)
        facts = self._policy.facts(learned)
        self._known[model] = facts
        _LOGGER.info(
            "%s: %s has a %d-token window and %s (from %s)",
            self._backend,
            model,
            facts.context_tokens,
            ", ".join(sorted(facts.capabilities)) or "no capabilities",
            facts.source,
        )
        return facts


class KnowsModel(abc.ABC):
    """The part of a backend that knows its model: ``model``, ``capabilities``, ``model_facts``.

    Each backend sets ``_model``, ``_capabilities`` (the settings') and ``_facts`` and says how
    its server describes a model in ``_learn_facts``.
    """

    _model: str
    _capabilities: frozenset[str]
    _facts: FactsCache

    @property
    def model(self) -> str:
        """Model sent with every request."""
        return self._model

    @property
    def capabilities(self) -> frozenset[str]:
        """What the model can do: as learned from its server, else as configured."""
        known = self._facts.cached(self._model)
        return known.capabilities if known is not None else self._capabilities

    async def model_facts(self) -> ModelFacts:
        """The model's window and capabilities, learned once per model."""
        return await self._facts.get(self._model, self._learn_facts)

    @abc.abstractmethod
    async def _learn_facts(self) -> Learned:
        """Ask the server about the model (each backend its own way); raises ``LLMError``."""


def _positive_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def from_ollama_show(data: Any) -> Learned:
    """Facts from an Ollama ``/api/show`` reply.

    The window is ``model_info["<general.architecture>.context_length"]`` (any
    ``*.context_length`` key when the architecture is missing); capabilities are the reply's
    ``capabilities`` list (Ollama 0.6.4 and later; older servers report none).
    """
    if not isinstance(data, dict):
        return Learned(context_tokens=None, capabilities=None, source="/api/show")
    info = data.get("model_info")
    window: int | None = None
    if isinstance(info, dict):
        arch = info.get("general.architecture")
        window = _positive_int(info.get(f"{arch}.context_length"))
        if window is None:
            found = (v for k, v in info.items() if str(k).endswith(".context_length"))
            window = next((w for w in map(_positive_int, found) if w is not None), None)
    raw = data.get("capabilities")
    capabilities = frozenset(str(c) for c in raw) if isinstance(raw, list) and raw else None
    return Learned(context_tokens=window, capabilities=capabilities, source="/api/show")


def from_llama_props(data: Any, configured: frozenset[str]) -> Learned:
    """Facts from a llama.cpp ``/props`` reply.

    ``default_generation_settings.n_ctx`` (or a top-level ``n_ctx``) is the slot's context:
    what one request may really use. Vision comes from ``modalities.vision``; tools from
    ``chat_template_caps.supports_tool_calls`` (the template must render tool calls). Keys
    that are missing leave the configured capabilities as they are.
    """
    if not isinstance(data, dict):
        return Learned(context_tokens=None, capabilities=None, source="/props")
    settings = data.get("default_generation_settings")
    window = _positive_int(settings.get("n_ctx")) if isinstance(settings, dict) else None
    window = window or _positive_int(data.get("n_ctx"))
    capabilities = set(configured)
    told = False
    for section, key, capability in (
        ("modalities", "vision", "vision"),
        ("chat_template_caps", "supports_tool_calls", "tools"),
    ):
        flags = data.get(section)
        flag = flags.get(key) if isinstance(flags, dict) else None
        if isinstance(flag, bool):
            told = True
            capabilities.discard(capability)
            if flag:
                capabilities.add(capability)
    return Learned(
        context_tokens=window,
        capabilities=frozenset(capabilities) if told else None,
        source="/props",
    )


def from_models_meta(data: Any, model: str) -> Learned:
    """Facts from ``/v1/models`` ``meta`` (llama.cpp: ``n_ctx``, else ``n_ctx_train``)."""
    entries = data.get("data") if isinstance(data, dict) else None
    window: int | None = None
    if isinstance(entries, list):
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("meta"), dict):
                continue
            if len(entries) > 1 and entry.get("id") != model:
                continue
            meta = entry["meta"]
            window = _positive_int(meta.get("n_ctx")) or _positive_int(meta.get("n_ctx_train"))
            break
    return Learned(context_tokens=window, capabilities=None, source="/v1/models")


def anthropic_window(model: str) -> Learned:
    """The published window of an Anthropic model (capabilities come from the settings)."""
    window = next(
        (tokens for prefix, tokens in _ANTHROPIC_WINDOWS.items() if model.startswith(prefix)),
        None,
    )
    return Learned(context_tokens=window, capabilities=None, source="table")
