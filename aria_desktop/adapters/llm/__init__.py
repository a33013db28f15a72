"""Language-model adapters: Ollama, Anthropic and OpenAI-compatible backends, and the router.

Public names: the backends (each satisfies ``router.ChatBackend``), ``Timeouts`` they share, and
``Router`` (satisfies ``core.ports.ChatModel``) with its retry and breaker policies. The Anthropic
backend is not imported here so that importing ``aria_desktop.adapters.llm`` does not load the
``anthropic`` SDK; import it from ``aria_desktop.adapters.llm.anthropic`` when configured.
"""

from __future__ import annotations

from aria_desktop.adapters.llm._http import Timeouts
from aria_desktop.adapters.llm.ollama import OllamaBackend
from aria_desktop.adapters.llm.openai_compat import OpenAICompatBackend
from aria_desktop.adapters.llm.router import BreakerPolicy, CircuitBreaker, RetryPolicy, Router

__all__ = [
    "BreakerPolicy",
    "CircuitBreaker",
    "OllamaBackend",
    "OpenAICompatBackend",
    "RetryPolicy",
    "Router",
    "Timeouts",
]
