"""Language-model adapters: Ollama, Anthropic and OpenAI-compatible backends, and the router.

Each backend (``ollama``, ``openai_compat``, ``anthropic``) satisfies ``router.ChatBackend``,
and ``Router`` (retries, circuit breakers, fallback, the prompt fitted per backend) is the
``core.ports.ChatModel`` the core holds, replaced while ARIA runs through ``live.LiveRouter``.
Beside them: what each model can do (``model_facts``), the usage meter and cloud budgets
(``budget``), tool calls written as text (``text_calls``, ``text_call_filter``), inline
reasoning split out (``_thinking``) and the warm-up's load request (``ollama_load``). Exported
here: the Ollama and OpenAI-compatible backends, ``Timeouts`` and the router with its policies;
the Anthropic backend is imported from ``adapters.llm.anthropic`` when configured, so the
``anthropic`` SDK loads only then.
"""

from __future__ import annotations

from aria_desktop.adapters.llm._timing import Timeouts
from aria_desktop.adapters.llm.breaker import BreakerPolicy, CircuitBreaker, RetryPolicy
from aria_desktop.adapters.llm.ollama import OllamaBackend
from aria_desktop.adapters.llm.openai_compat import OpenAICompatBackend
from aria_desktop.adapters.llm.router import Router

__all__ = [
    "BreakerPolicy",
    "CircuitBreaker",
    "OllamaBackend",
    "OpenAICompatBackend",
    "RetryPolicy",
    "Router",
    "Timeouts",
]
