"""The language-model router from the settings: backends, retries, breakers, usage meter.

Apart from ``compose/app.py`` so the live settings (``compose/live_settings.py``) and ``aria
doctor`` build the same router the owner does from one place (ARCHITECTURE.md: settings applied
live).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.adapters.llm.budget import UsageLedger
    from aria_desktop.adapters.llm.router import Router

__all__ = ["build_router"]


def build_router(settings: Settings, *, ledger: UsageLedger | None = None) -> Router:
    """LLM backends from the settings (those that are configured) behind the fallback router.

    ``ledger`` (the owner's usage ledger) records every call and sums today's cloud cost for
    ``llm.cloud.max_cost_per_day``; without it (``aria doctor``) nothing is recorded.
    """
    from aria_desktop import keystore
    from aria_desktop.adapters.llm.anthropic import AnthropicBackend
    from aria_desktop.adapters.llm.breaker import BreakerPolicy, RetryPolicy
    from aria_desktop.adapters.llm.ollama import OllamaBackend
    from aria_desktop.adapters.llm.openai_compat import OpenAICompatBackend
    from aria_desktop.adapters.llm.router import Router, Timeouts
    from aria_desktop.compose.usage import build_meter

    llm = settings.llm
    timeouts = Timeouts(
        connect_s=llm.timeouts.connect_s,
        first_token_s=llm.timeouts.first_token_s,
        stall_s=llm.timeouts.stall_s,
        total_s=llm.timeouts.total_s,
    )
    backends: dict[str, OllamaBackend | AnthropicBackend | OpenAICompatBackend] = {}
    if llm.ollama.url:
        backends["ollama"] = OllamaBackend(
            base_url=llm.ollama.url,
            model=llm.ollama.model,
            keep_alive=llm.ollama.keep_alive or None,
            timeouts=timeouts,
            capabilities=frozenset(llm.ollama.capabilities),
            context_tokens=llm.ollama.context_tokens,
            max_context_tokens=llm.max_context_tokens,
        )
    anthropic_key = keystore.get_secret("anthropic_api_key")
    if anthropic_key:
        backends["anthropic"] = AnthropicBackend(
            api_key=anthropic_key,
            model=llm.anthropic.model,
            base_url=llm.anthropic.base_url or None,
            timeouts=timeouts,
            capabilities=frozenset(llm.anthropic.capabilities),
            context_tokens=llm.anthropic.context_tokens,
        )
    if llm.openai.url:
        backends["openai"] = OpenAICompatBackend(
            base_url=llm.openai.url,
            model=llm.openai.model,
            api_key=keystore.get_secret("openai_api_key"),
            timeouts=timeouts,
            capabilities=frozenset(llm.openai.capabilities),
            context_tokens=llm.openai.context_tokens,
        )
    chains = {agent: tuple(chain) for agent, chain in llm.chains.items()}
    # Memory extraction uses the "extract" agent; unless configured it follows the chat chain.
    chains.setdefault("extract", chains.get("chat", ()))
    return Router(
        backends,
        chains,
        retry=RetryPolicy(
            max_attempts=llm.retry.max_attempts,
            base_delay_s=llm.retry.base_delay_s,
            max_delay_s=llm.retry.max_delay_s,
            retry_after_cap_s=llm.retry.retry_after_cap_s,
        ),
        breaker=BreakerPolicy(
            failure_threshold=llm.breaker.failure_threshold, reset_s=llm.breaker.reset_s
        ),
        fallback_on=frozenset(llm.fallback_on),
        meter=build_meter(settings, ledger),
    )
