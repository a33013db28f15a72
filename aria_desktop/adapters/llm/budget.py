"""Usage metering and cloud budgets: every call's tokens priced, recorded, and limits enforced.

The router asks :class:`UsageMeter` before each backend: a cloud backend is refused
(``CloudBudgetError``, code ``cloud_budget``) when the turn's cloud calls so far, or today's
(local calendar day, summed from the usage ledger so it survives restarts), plus the
estimated price of the prompt about to be sent would pass ``llm.cloud.max_cost_per_turn`` or
``max_cost_per_day`` (0 = unlimited). After each reply the meter prices the usage from
``llm.prices`` and records it in the ledger, local calls included (cost 0), so ``aria usage``
shows every backend's tokens (ARCHITECTURE.md: usage and cloud budgets).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from aria_desktop.domain.chat import ChatRequest, StreamEnd
from aria_desktop.domain.errors import CloudBudgetError
from aria_desktop.domain.usage import Price, UsageRecord, cost_of, local_midnight, price_for

__all__ = ["CloudLimits", "UsageLedger", "UsageMeter", "estimate_prompt_tokens"]

_LOGGER = logging.getLogger(__name__)
_TURNS_KEPT = 256
#: Characters per token for the pre-call estimate (English text and JSON average about 4).
_CHARS_PER_TOKEN = 4


class UsageLedger(Protocol):
    """Where calls are recorded (``storage.usage.SQLiteUsageLedger``)."""

    async def record(self, record: UsageRecord) -> None: ...

    async def cost_since(self, since: float, *, locality: str) -> float: ...


class _Metered(Protocol):
    """What the meter needs of a backend."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def locality(self) -> str: ...


@dataclass(frozen=True, kw_only=True)
class CloudLimits:
    """``llm.cloud``: cost limits of cloud calls in currency units (0 = unlimited)."""

    max_cost_per_turn: float = 0.0
    max_cost_per_day: float = 0.0


def estimate_prompt_tokens(request: ChatRequest) -> int:
    """A rough count of the prompt's tokens (text and tool schemas), before it is sent."""
    chars = sum(len(m.content) + len(m.thinking) for m in request.messages)
    chars += sum(len(json.dumps(t.parameters)) + len(t.description) for t in request.tools)
    return chars // _CHARS_PER_TOKEN


class UsageMeter:
    """Prices, records and limits model calls.

    Args:
        prices: model (or model-id prefix) -> price (``llm.prices``).
        limits: the cloud cost limits.
        ledger: where calls are recorded and today's cost is read; None keeps nothing
            (then only per-turn limits apply, and per-day limits count this process alone).
        clock: wall clock, UNIX seconds.
    """

    def __init__(
        self,
        *,
        prices: Mapping[str, Price],
        limits: CloudLimits,
        ledger: UsageLedger | None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """Store the configuration; no I/O."""
        self._prices = dict(prices)
        self._limits = limits
        self._ledger = ledger
        self._clock = clock
        self._turns: OrderedDict[str, float] = OrderedDict()
        self._unrecorded: dict[float, float] = {}
        """Cloud cost not in the ledger (none, or a write failed), by local day start."""

    async def refusal(self, backend: _Metered, request: ChatRequest) -> CloudBudgetError | None:
        """Why ``backend`` may not be called for ``request`` under the limits, or None."""
        limits = self._limits
        if backend.locality != "cloud" or not (limits.max_cost_per_turn or limits.max_cost_per_day):
            return None
        price = price_for(backend.model, self._prices)
        if price is None:
            return CloudBudgetError(
                f"{backend.name} ({backend.model}) has no price in llm.prices, so its cost "
                "cannot be held to the cloud budget",
                backend=backend.name,
                hint=f'Add [llm.prices."{backend.model}"] with input_per_mtok and '
                "output_per_mtok, or set llm.cloud.max_cost_per_turn and max_cost_per_day to 0.",
            )
        estimate = estimate_prompt_tokens(request) * price.input_per_mtok / 1_000_000
        turn_spent = self._turns.get(request.turn_id, 0.0) if request.turn_id else 0.0
        if limits.max_cost_per_turn and turn_spent + estimate > limits.max_cost_per_turn:
            return self._over("turn", turn_spent, estimate, limits.max_cost_per_turn, backend)
        if limits.max_cost_per_day:
            today = await self._spent_today()
            if today + estimate > limits.max_cost_per_day:
                return self._over("day", today, estimate, limits.max_cost_per_day, backend)
        return None

    def _over(
        self, period: str, spent: float, estimate: float, limit: float, backend: _Metered
    ) -> CloudBudgetError:
        key = f"llm.cloud.max_cost_per_{period}"
        what = "this turn's" if period == "turn" else "today's"
        return CloudBudgetError(
            f"cloud budget reached: {what} cloud calls cost {spent:.4f} and this prompt about "
            f"{estimate:.4f} more, over the limit of {limit:.4f} ({key}); {backend.name} was "
            "not called",
            backend=backend.name,
            hint=f"Raise the limit with `aria config set {key} <amount>` (0 = no limit), or "
            "use a local model; `aria usage` shows what was spent.",
        )

    async def _spent_today(self) -> float:
        since = local_midnight(self._clock())
        unrecorded = self._unrecorded.get(since, 0.0)
        if self._ledger is None:
            return unrecorded
        return await self._ledger.cost_since(since, locality="cloud") + unrecorded

    def priced(self, end: StreamEnd) -> StreamEnd:
        """``end`` with its usage's cost filled in (0 for local or unpriced models)."""
        if end.locality != "cloud":
            return end
        price = price_for(end.model, self._prices)
        if price is None:
            return end
        usage = dataclasses.replace(end.usage, cost=cost_of(end.usage, price))
        return dataclasses.replace(end, usage=usage)

    async def record(self, end: StreamEnd, *, agent: str, turn_id: str) -> None:
        """Count ``end`` toward its turn and write it to the ledger (a failure is logged)."""
        cost = end.usage.cost
        if turn_id and cost:
            self._turns[turn_id] = self._turns.get(turn_id, 0.0) + cost
            self._turns.move_to_end(turn_id)
            while len(self._turns) > _TURNS_KEPT:
                self._turns.popitem(last=False)
        record = UsageRecord(
            at=self._clock(),
            backend=end.backend,
            model=end.model,
            locality=end.locality or "local",
            agent=agent,
            usage=end.usage,
        )
        if self._ledger is None:
            self._keep_unrecorded(record)
            return
        try:
            await self._ledger.record(record)
        except Exception:
            # The reply is already the user's; keep the cost in memory so today's limit holds.
            _LOGGER.exception("recording the usage of %s failed", end.backend)
            self._keep_unrecorded(record)

    def _keep_unrecorded(self, record: UsageRecord) -> None:
        """Count a cloud cost the ledger does not hold toward its day (older days dropped)."""
        if record.locality != "cloud" or not record.usage.cost:
            return
        day = local_midnight(record.at)
        self._unrecorded = {day: self._unrecorded.get(day, 0.0) + record.usage.cost}
