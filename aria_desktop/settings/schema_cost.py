"""``llm.think``'s choices, the ``[llm.prices]`` table and the ``[llm.cloud]`` cost limits.

Kept in their own module so the fields, defaults and limits sit together (the shared
``schema.py`` only names them). Prices are in the user's currency units per million tokens;
the defaults are Anthropic's list prices in US dollars for its current models, as published on
https://www.anthropic.com/pricing (read 2025-11; check them, they change): the 5-minute cache
write is 1.25x and a cache read 0.1x the input price. A dated model id
(``claude-sonnet-4-5-20250929``) takes the price of the longest key it starts with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from aria_desktop.domain.thinking import THINK_MODES
from aria_desktop.settings.rules import NON_NEGATIVE

__all__ = ["THINK_MODES", "CloudSettings", "ModelPrice", "default_prices"]


@dataclass(frozen=True)
class ModelPrice:
    """One model's rates, currency units per million tokens.

    Attributes:
        input_per_mtok: prompt tokens.
        output_per_mtok: generated tokens (reasoning included).
        cache_read_per_mtok: prompt tokens read from the prompt cache.
        cache_write_per_mtok: prompt tokens written to the prompt cache.
    """

    input_per_mtok: float = field(default=0.0, metadata=NON_NEGATIVE)
    output_per_mtok: float = field(default=0.0, metadata=NON_NEGATIVE)
    cache_read_per_mtok: float = field(default=0.0, metadata=NON_NEGATIVE)
    cache_write_per_mtok: float = field(default=0.0, metadata=NON_NEGATIVE)


def _anthropic(input_per_mtok: float, output_per_mtok: float) -> ModelPrice:
    return ModelPrice(
        input_per_mtok=input_per_mtok,
        output_per_mtok=output_per_mtok,
        cache_read_per_mtok=round(input_per_mtok * 0.1, 4),
        cache_write_per_mtok=round(input_per_mtok * 1.25, 4),
    )


def default_prices() -> Mapping[str, ModelPrice]:
    """Anthropic's list prices (USD per million tokens, read 2025-11)."""
    return MappingProxyType(
        {
            "claude-opus-4-5": _anthropic(5.0, 25.0),
            "claude-opus-4-1": _anthropic(15.0, 75.0),
            "claude-opus-4": _anthropic(15.0, 75.0),
            "claude-sonnet-4-5": _anthropic(3.0, 15.0),
            "claude-sonnet-4": _anthropic(3.0, 15.0),
            "claude-3-7-sonnet": _anthropic(3.0, 15.0),
            "claude-haiku-4-5": _anthropic(1.0, 5.0),
            "claude-3-5-haiku": _anthropic(0.8, 4.0),
        }
    )


@dataclass(frozen=True)
class CloudSettings:
    """Cost limits of cloud backends, in the currency units of ``llm.prices`` (0 = unlimited).

    Attributes:
        max_cost_per_turn: a turn's cloud calls may cost at most this; the call that would pass
            it is refused (``cloud_budget``) and the chain falls back or stops.
        max_cost_per_day: cloud calls of one local calendar day may cost at most this (summed
            from the usage ledger, so it survives restarts).
    """

    max_cost_per_turn: float = field(default=0.0, metadata=NON_NEGATIVE)
    max_cost_per_day: float = field(default=0.0, metadata=NON_NEGATIVE)
