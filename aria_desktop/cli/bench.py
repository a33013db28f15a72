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
    memory = bench_sub.add_parser(
        "memory", help="memory retrieval quality (--quality) and search speed (--n N)"
    )
    memory.add_argument("--quality", action="store_true", help="Recall@1/@5 of each search leg")
    memory.add_argument("--n", type=int, help="largest store size for the speed test (100000)")
    memory.add_argument("--queries", type=int, default=200, help="queries per size")
    gui = bench_sub.add_parser("gui", help="event-loop stalls while streaming; start-up time")
    gui.add_argument("--tokens", type=int, default=3000, help="tokens in the streamed reply")
    gui.add_argument("--rate", type=float, default=500.0, help="streamed tokens per second")
    gui.add_argument("--startups", type=int, default=5, help="start-up runs")
    # Qt must own the main thread: this suite runs its own loops (no asyncio.run around it).
    gui.set_defaults(sync_handler=_cmd_bench_gui)
    voice = bench_sub.add_parser("voice", help="wake word, STT, TTS and voice-turn latency")
    voice.add_argument("--repeats", type=int, default=5, help="runs per figure")
    api = bench_sub.add_parser("api", help="local HTTP API throughput, latency and SSE delay")
    api.add_argument("--seconds", type=float, default=1.5, help="load time per measurement")
    api.add_argument("--concurrency", type=int, default=16, help="keep-alive connections")
    api.add_argument("--sse-turns", type=int, default=30, help="streamed chat turns")
    computer = bench_sub.add_parser(
        "computer", help="screenshot, OCR, find-and-click and grounding on a real app"
    )
    computer.add_argument("--rounds", type=int, default=10, help="repetitions per figure")
    cli = bench_sub.add_parser(
        "cli", help="start-to-exit time of aria commands beside `python -c pass`"
    )
    cli.add_argument("--runs", type=int, default=5, help="timed runs per command")
    bench.set_defaults(handler=_cmd_bench)


async def _cmd_bench(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.bench import run_suite

    return await run_suite(args.suite, args)


def _cmd_bench_gui(args: argparse.Namespace, settings: Settings, started_at: float) -> int:
    from aria_desktop.bench.gui import run_gui_bench

    run_gui_bench(tokens=args.tokens, rate_hz=args.rate, startups=args.startups)
    return 0
