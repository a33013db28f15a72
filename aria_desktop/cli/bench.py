"""``aria bench``: benchmark suites that print their figures."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from aria_desktop.cli._common import Subparsers
from aria_desktop.settings import Settings

__all__ = ["register"]


@dataclass(frozen=True)
class _Option:
    """One option of a suite: a number with a default, or (``kind`` None) a switch."""

    flag: str
    help: str
    kind: type[int] | type[float] | type[str] | None = int
    default: float | str | None = None


#: The suites in the order ``aria bench --help`` lists them: name, help, options.
_STT_URI = _Option(
    "--stt-uri",
    "with --accuracy: also through this Wyoming speech-to-text server (tcp://HOST:10300)",
    kind=str,
    default="",
)

_SUITES: tuple[tuple[str, str, tuple[_Option, ...]], ...] = (
    (
        "core",
        "orchestrator overhead and storage throughput",
        (
            _Option("--turns", "turns per side", default=60),
            _Option("--chunks", "streamed chunks per reply", default=40),
            _Option("--messages", "messages for the write test", default=2000),
        ),
    ),
    (
        "memory",
        "memory retrieval quality (--quality), how many to load (--load), search speed (--n N)",
        (
            _Option("--quality", "Recall@1/@5 of each search leg", kind=None),
            _Option("--load", "how many memories to load per turn: recall and waste", kind=None),
            _Option("--n", "largest store size for the speed test (100000)"),
            _Option("--queries", "queries per size", default=200),
        ),
    ),
    (
        "knowledge",
        "knowledge base: search quality (--quality), ingest passages/s, search at 50k "
        "passages, unchanged rescan",
        (
            _Option("--quality", "Recall@1/@5 on the household corpus, per half", kind=None),
            _Option("--misses", "with --quality: list the questions not answered first", kind=None),
            _Option("--files", "Markdown files to ingest", default=300),
            _Option("--chunks", "passages for the search test", default=50_000),
            _Option("--rescan-files", "files in the rescanned folder", default=10_000),
            _Option("--queries", "searches", default=200),
        ),
    ),
    (
        "gui",
        "event-loop stalls while streaming; start-up time",
        (
            _Option("--tokens", "tokens in the streamed reply", default=3000),
            _Option("--rate", "streamed tokens per second", kind=float, default=500.0),
            _Option("--startups", "start-up runs", default=5),
        ),
    ),
    (
        "voice",
        "wake word, STT, TTS and voice-turn latency; --accuracy: WER per voice, wake look-alikes",
        (
            _Option("--repeats", "runs per figure", default=5),
            _Option("--accuracy", "word error rate per voice and wake word errors", kind=None),
            _Option(
                "--dictation", "spoken punctuation and words as dictation types them", kind=None
            ),
            _Option("--commands", "spoken commands per voice for --accuracy (max 20)", default=12),
            _STT_URI,
        ),
    ),
    (
        "skills",
        "local skills through the API and by voice beside the model path; --accuracy: spoken"
        " commands matched to intent and slots",
        (
            _Option("--turns", "rounds of API turns (local and model interleaved)", default=30),
            _Option("--repeats", "voice turns per command", default=5),
            _Option("--accuracy", "intent/slot accuracy and false captures per voice", kind=None),
            _STT_URI,
        ),
    ),
    (
        "api",
        "local HTTP API throughput, latency and SSE delay",
        (
            _Option("--seconds", "load time per measurement", kind=float, default=1.5),
            _Option("--concurrency", "keep-alive connections", default=16),
            _Option("--sse-turns", "streamed chat turns", default=30),
            _Option("--first-chunk", "streamed requests per compatible endpoint", default=30),
        ),
    ),
    (
        "computer",
        "screenshot, OCR, find-and-click and grounding on a real app",
        (_Option("--rounds", "repetitions per figure", default=10),),
    ),
    (
        "cli",
        "start-to-exit time of aria commands beside `python -c pass`",
        (_Option("--runs", "timed runs per command", default=5),),
    ),
    (
        "web",
        "web_fetch against a bare GET; the injection scanner on a full tool result",
        (_Option("--rounds", "timed runs per figure", default=20),),
    ),
    (
        "mcp",
        "MCP tool-call overhead through ARIA vs. the SDK client directly",
        (_Option("--calls", "calls per side", default=200),),
    ),
)


def register(sub: Subparsers) -> None:
    """Add the ``bench`` subcommand and its suites."""
    bench = sub.add_parser("bench", help="measure performance")
    bench_sub = bench.add_subparsers(dest="suite", required=True, metavar="SUITE")
    for name, help_text, options in _SUITES:
        suite = bench_sub.add_parser(name, help=help_text)
        for option in options:
            if option.kind is None:
                suite.add_argument(option.flag, action="store_true", help=option.help)
            else:
                suite.add_argument(
                    option.flag, type=option.kind, default=option.default, help=option.help
                )
    # Qt must own the main thread: the gui suite runs its own loops (no asyncio.run around it).
    bench_sub.choices["gui"].set_defaults(sync_handler=_cmd_bench_gui)
    bench.set_defaults(handler=_cmd_bench)


async def _cmd_bench(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.bench import run_suite

    return await run_suite(args.suite, args)


def _cmd_bench_gui(args: argparse.Namespace, settings: Settings, started_at: float) -> int:
    from aria_desktop.bench.gui import run_gui_bench

    run_gui_bench(tokens=args.tokens, rate_hz=args.rate, startups=args.startups)
    return 0
