"""``aria usage``: today's and this month's model calls, tokens and cost per backend and model.

Read from the usage ledger of the running owner (through its API) or of the database opened
here (ARCHITECTURE.md: usage and cloud budgets). Costs use ``llm.prices``; local backends cost 0.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import TYPE_CHECKING

from aria_desktop.cli._args import add_json_action
from aria_desktop.cli._common import EXIT_OK, Subparsers, print_json
from aria_desktop.compose.assistant import open_assistant
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    # Imported by the command itself: building the parser loads no turn types
    # (ARCHITECTURE.md: start-up cost).
    from aria_desktop.domain.usage import UsageTotal

__all__ = ["register", "render"]


def register(sub: Subparsers) -> None:
    """Add the ``usage`` subcommand."""
    parser = add_json_action(sub, "usage", "tokens and cost of model calls, today and this month")
    parser.set_defaults(handler=_cmd_usage)


def render(title: str, totals: list[UsageTotal], settings: Settings) -> list[str]:
    """The lines of one period's table (``title``, one row per backend and model, the sum)."""
    lines = [f"{title}:"]
    if not totals:
        return [*lines, "  no model calls"]
    for t in totals:
        u = t.usage
        cache = (
            f", cache {u.cache_read_tokens} read / {u.cache_write_tokens} written"
            if u.cache_read_tokens or u.cache_write_tokens
            else ""
        )
        lines.append(
            f"  {t.backend}/{t.model} ({t.locality}): {t.calls} calls, "
            f"{u.prompt_tokens} in / {u.output_tokens} out{cache}, cost {u.cost:.4f}"
        )
    cloud = sum(t.usage.cost for t in totals if t.locality == "cloud")
    limit = settings.llm.cloud.max_cost_per_day
    lines.append(f"  cloud cost {cloud:.4f}" + (f" (daily limit {limit:.4f})" if limit else ""))
    return lines


async def _cmd_usage(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.domain.commands import ReportUsage
    from aria_desktop.domain.usage import local_midnight, month_start

    now = time.time()
    async with open_assistant(settings) as assistant:
        today = await assistant.execute(ReportUsage(since=local_midnight(now)))
        month = await assistant.execute(ReportUsage(since=month_start(now)))
    if args.json:
        print_json(
            {
                "today": [dataclasses.asdict(t) for t in today],
                "month": [dataclasses.asdict(t) for t in month],
            }
        )
        return EXIT_OK
    print("\n".join(render("Today", today, settings)))
    month_lines = render("This month", month, settings)
    month_lines[-1] = month_lines[-1].split(" (daily limit")[0]
    print("\n".join(month_lines))
    return EXIT_OK
