"""Composition of usage metering: the price table and cloud limits from the settings.

A small builder beside ``compose/app.py`` (which only calls it), so the settings' price table
becomes the meter's domain prices in one place (ARCHITECTURE.md: usage and cloud budgets).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aria_desktop.adapters.llm.budget import UsageLedger, UsageMeter
    from aria_desktop.adapters.storage.usage import SQLiteUsageLedger
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.settings import Settings

__all__ = ["build_meter", "install_usage_report"]


def install_usage_report(orchestrator: Orchestrator, ledger: SQLiteUsageLedger) -> None:
    """Answer the ``ReportUsage`` command (``aria usage``, ``GET /usage``) from ``ledger``."""
    from aria_desktop.domain.commands import ReportUsage

    async def report(command: ReportUsage) -> object:
        return await ledger.totals(command.since)

    orchestrator.register_command(ReportUsage, report)


def build_meter(settings: Settings, ledger: UsageLedger | None) -> UsageMeter:
    """The router's usage meter: ``llm.prices``, ``llm.cloud`` and the ledger (if any)."""
    from aria_desktop.adapters.llm.budget import CloudLimits, UsageMeter
    from aria_desktop.domain.usage import Price

    llm = settings.llm
    prices = {
        model: Price(
            input_per_mtok=price.input_per_mtok,
            output_per_mtok=price.output_per_mtok,
            cache_read_per_mtok=price.cache_read_per_mtok,
            cache_write_per_mtok=price.cache_write_per_mtok,
        )
        for model, price in llm.prices.items()
    }
    limits = CloudLimits(
        max_cost_per_turn=llm.cloud.max_cost_per_turn,
        max_cost_per_day=llm.cloud.max_cost_per_day,
    )
    return UsageMeter(prices=prices, limits=limits, ledger=ledger)
