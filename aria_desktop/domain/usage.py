"""What model calls cost: the price of a model, the cost of a call, and the ledger's rows.

Cloud models bill per token (input, output, prompt-cache reads and writes at their own rates);
``llm.prices`` gives those rates per model in the user's currency units per million tokens, and
:func:`cost_of` turns one call's :class:`~aria_desktop.domain.chat.Usage` into money. Local
backends cost nothing here (their electricity is the user's business). Every call is recorded
as a :class:`UsageRecord` (ARCHITECTURE.md: usage and cloud budgets) so per-day budgets add up
what was really spent, across restarts.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass

from aria_desktop.domain.chat import Usage

__all__ = [
    "Price",
    "UsageRecord",
    "UsageTotal",
    "cost_of",
    "local_midnight",
    "month_start",
    "price_for",
]

_PER = 1_000_000.0


@dataclass(frozen=True, kw_only=True)
class Price:
    """A model's rates in currency units per million tokens.

    Attributes:
        input_per_mtok: prompt tokens at the full rate.
        output_per_mtok: generated tokens (reasoning included).
        cache_read_per_mtok: prompt tokens read from the prompt cache.
        cache_write_per_mtok: prompt tokens written to the prompt cache.
    """

    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0
    cache_read_per_mtok: float = 0.0
    cache_write_per_mtok: float = 0.0


def price_for(model: str, prices: Mapping[str, Price]) -> Price | None:
    """The price of ``model``: its own entry, else the longest key it starts with, else None.

    Dated model ids (``claude-sonnet-4-5-20250929``) so find the entry of their family
    (``claude-sonnet-4-5``) without a row per snapshot.
    """
    if model in prices:
        return prices[model]
    matches = [key for key in prices if key and model.startswith(key)]
    return prices[max(matches, key=len)] if matches else None


def cost_of(usage: Usage, price: Price) -> float:
    """What ``usage`` costs at ``price``."""
    return (
        usage.input_tokens * price.input_per_mtok
        + usage.output_tokens * price.output_per_mtok
        + usage.cache_read_tokens * price.cache_read_per_mtok
        + usage.cache_write_tokens * price.cache_write_per_mtok
    ) / _PER


def local_midnight(now: float) -> float:
    """UNIX seconds of the start of the local calendar day containing ``now``."""
    day = datetime.datetime.fromtimestamp(now).astimezone()
    return day.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()


def month_start(now: float) -> float:
    """UNIX seconds of the start of the local calendar month containing ``now``."""
    day = datetime.datetime.fromtimestamp(now).astimezone()
    return day.replace(day=1, hour=0, minute=0, second=0, microsecond=0).timestamp()


@dataclass(frozen=True, kw_only=True)
class UsageRecord:
    """One finished model call, as the usage ledger keeps it.

    Attributes:
        at: UNIX seconds when the call ended.
        backend, model: who answered.
        locality: ``local`` or ``cloud``.
        agent: the chain used (``chat``, ``extract``, ...).
        usage: tokens and cost.
    """

    at: float
    backend: str
    model: str
    locality: str
    agent: str
    usage: Usage


@dataclass(frozen=True, kw_only=True)
class UsageTotal:
    """Tokens and cost of one backend and model over a period (``aria usage``)."""

    backend: str
    model: str
    locality: str
    calls: int
    usage: Usage
