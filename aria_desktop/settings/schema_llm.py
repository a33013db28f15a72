"""The ``[llm]`` section: the backends, the router's chains, timeouts, retries and breakers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from aria_desktop.settings.rules import AT_LEAST_1, NON_NEGATIVE, POSITIVE, rules
from aria_desktop.settings.schema_cost import THINK_MODES, CloudSettings, ModelPrice, default_prices

BACKEND_NAMES = ("ollama", "anthropic", "openai")
MODEL_CAPABILITIES = ("tools", "vision", "thinking")
"""What a model can do that ARIA asks for: tool calls, images, reasoning before answering."""
"""Backends a fallback chain may name."""


FALLBACK_REASONS = ("error", "context_overflow", "capability")
"""Failure classes after which the router moves on to the next backend in the chain."""


@dataclass(frozen=True)
class OllamaSettings:
    """A local Ollama server.

    Attributes:
        url: base URL of the server (http or https).
        model: model tag to chat with.
        keep_alive: how long Ollama keeps the model loaded after a request (Ollama duration
            string, e.g. "10m"; "-1" keeps it forever).
        capabilities: what the model can do ("tools", "vision") when the server does not say
            (``/api/show`` reports them since Ollama 0.6.4); the router skips backends lacking
            what a request needs.
        context_tokens: the context window sent as ``num_ctx``; 0 learns the model's from
            ``/api/show``, capped by ``llm.max_context_tokens``.
    """

    url: str = field(default="http://127.0.0.1:11434", metadata=rules(url=True, empty_ok=False))
    model: str = field(default="llama3.1:8b", metadata=rules(empty_ok=False))
    keep_alive: str = "10m"
    capabilities: tuple[str, ...] = field(
        default=("tools",), metadata=rules(item_choices=MODEL_CAPABILITIES)
    )
    context_tokens: int = field(default=0, metadata=NON_NEGATIVE)


@dataclass(frozen=True)
class AnthropicSettings:
    """The Anthropic Messages API (the key is a secret: ``aria config set-secret``).

    Attributes:
        model: model name.
        base_url: API base URL; "" means the official endpoint.
        capabilities: what the model can do.
        context_tokens: the context window prompts are fitted to; 0 takes the model's
            published one (200k for Claude models).
    """

    model: str = field(default="claude-sonnet-5-5", metadata=rules(empty_ok=False))
    base_url: str = field(default="", metadata=rules(url=True))
    capabilities: tuple[str, ...] = field(
        default=("tools", "vision"), metadata=rules(item_choices=MODEL_CAPABILITIES)
    )
    context_tokens: int = field(default=0, metadata=NON_NEGATIVE)


@dataclass(frozen=True)
class OpenAICompatSettings:
    """A server speaking the OpenAI chat-completions API (llama-server, vLLM, ...).

    Attributes:
        url: base URL; "" disables this backend.
        model: model name sent in requests.
        capabilities: what the model can do when the server does not say (llama.cpp's
            ``/props`` reports vision and tool-call support).
        context_tokens: the context window prompts are fitted to; 0 learns it from llama.cpp's
            ``/props`` (or ``/v1/models`` meta), else 4096.
    """

    url: str = field(default="", metadata=rules(url=True))
    model: str = ""
    capabilities: tuple[str, ...] = field(
        default=("tools",), metadata=rules(item_choices=MODEL_CAPABILITIES)
    )
    context_tokens: int = field(default=0, metadata=NON_NEGATIVE)


@dataclass(frozen=True)
class TimeoutSettings:
    """Per-request LLM timeouts, all in seconds.

    Attributes:
        connect_s: to open the connection.
        first_token_s: from sending the request to the first streamed token (model loading
            and prompt processing happen here, hence the generous default).
        stall_s: longest silence allowed between two streamed chunks.
        total_s: whole request.
    """

    connect_s: float = field(default=5.0, metadata=POSITIVE)
    first_token_s: float = field(default=120.0, metadata=POSITIVE)
    stall_s: float = field(default=30.0, metadata=POSITIVE)
    total_s: float = field(default=600.0, metadata=POSITIVE)


@dataclass(frozen=True)
class RetrySettings:
    """Retries of one backend before the router falls back.

    Attributes:
        max_attempts: attempts per backend, including the first (>= 1).
        base_delay_s: first backoff delay in seconds (doubles per attempt, with jitter).
        max_delay_s: backoff ceiling in seconds (>= base_delay_s).
        retry_after_cap_s: longest server-requested Retry-After we honour, in seconds; a
            longer one makes the router fall back instead of waiting.
    """

    max_attempts: int = field(default=3, metadata=AT_LEAST_1)
    base_delay_s: float = field(default=0.5, metadata=NON_NEGATIVE)
    max_delay_s: float = field(default=8.0, metadata=NON_NEGATIVE)
    retry_after_cap_s: float = field(default=30.0, metadata=NON_NEGATIVE)


@dataclass(frozen=True)
class BreakerSettings:
    """Per-backend circuit breaker.

    Attributes:
        failure_threshold: consecutive failures that open the breaker (>= 1).
        reset_s: seconds the breaker stays open before one trial request.
    """

    failure_threshold: int = field(default=5, metadata=AT_LEAST_1)
    reset_s: float = field(default=30.0, metadata=POSITIVE)


def _default_chains() -> Mapping[str, tuple[str, ...]]:
    return MappingProxyType({"chat": ("ollama", "anthropic")})


@dataclass(frozen=True)
class LLMSettings:
    """Language-model backends and the router over them.

    Attributes:
        chains: agent name -> backends to try in order (read-only mapping).
        fallback_on: failure classes that move on to the next backend.
        max_tokens: reply length limit in tokens.
        max_context_tokens: the largest context window learned from Ollama that is used as
            ``num_ctx``: Ollama allocates the whole window as KV cache in RAM when it loads the
            model (an 8B model's 128k window costs ~16 GB), and 8192 holds a long chat with
            ARIA's tools in ~1 GB. A backend's ``context_tokens`` setting is not capped.
        ollama: Ollama backend.
        anthropic: Anthropic backend.
        openai: OpenAI-compatible backend.
        timeouts: request timeouts.
        retry: retry policy per backend.
        breaker: circuit breaker per backend.
        think: reason before answering: ``on``, ``off``, or ``auto`` (on for models with the
            thinking capability); reasoning is shown folded, stored apart, never spoken.
        think_budget_tokens: reasoning tokens a backend with a thinking budget may spend
            (Anthropic's ``budget_tokens``, at least 1024), on top of ``max_tokens``.
        prices: model (or model-id prefix) -> price per million tokens (``schema_cost.py``).
        cloud: cost limits of cloud backends.
    """

    chains: Mapping[str, tuple[str, ...]] = field(
        default_factory=_default_chains, metadata=rules(item_choices=BACKEND_NAMES)
    )
    fallback_on: tuple[str, ...] = field(
        default=FALLBACK_REASONS, metadata=rules(item_choices=FALLBACK_REASONS)
    )
    max_tokens: int = field(default=2048, metadata=AT_LEAST_1)
    max_context_tokens: int = field(default=8192, metadata=AT_LEAST_1)
    ollama: OllamaSettings = field(default_factory=OllamaSettings)
    anthropic: AnthropicSettings = field(default_factory=AnthropicSettings)
    openai: OpenAICompatSettings = field(default_factory=OpenAICompatSettings)
    timeouts: TimeoutSettings = field(default_factory=TimeoutSettings)
    retry: RetrySettings = field(default_factory=RetrySettings)
    breaker: BreakerSettings = field(default_factory=BreakerSettings)
    think: str = field(default="auto", metadata=rules(choices=THINK_MODES, normalize=str.lower))
    think_budget_tokens: int = field(default=2048, metadata=rules(minimum=(1024.0, True)))
    prices: Mapping[str, ModelPrice] = field(default_factory=default_prices)
    cloud: CloudSettings = field(default_factory=CloudSettings)

    def __post_init__(self) -> None:
        """Freeze ``chains`` so a shared Settings object cannot be changed behind our back."""
        frozen = MappingProxyType({str(k): tuple(v) for k, v in self.chains.items()})
        object.__setattr__(self, "chains", frozen)
        object.__setattr__(self, "prices", MappingProxyType(dict(self.prices)))
