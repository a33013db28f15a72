"""``aria bench``: benchmark suites that print their figures."""

from __future__ import annotations

import argparse

from aria_desktop.cli._common import Subparsers
from aria_desktop.settings import Settings

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the ``bench`` subcommand and its suites."""
    bench = sub.add_parser("bench", help="measure performance")
    bench_sub = bench.add_subparsers(dest="suite", required=True, metavar="SUITE")
    core = bench_sub.add_parser("core", help="orchestrator overhead and storage throughput")
    core.add_argument("--turns", type=int, default=60, help="turns per side")
    core.add_argument("--chunks", type=int, default=40, help="streamed chunks per reply")
    core.add_argument("--messages", type=int, default=2000, help="messages for the write test")
    computer = bench_sub.add_parser(
        "computer", help="screenshot, OCR, find-and-click and grounding on a real app"
    )
    computer.add_argument("--rounds", type=int, default=10, help="repetitions per figure")
    bench.set_defaults(handler=_cmd_bench)


async def _cmd_bench(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.bench import run_suite

    return await run_suite(args.suite, args)
