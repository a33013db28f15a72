"""``aria bench``: benchmark suites that print figures (they assert nothing).

Each suite measures ARIA against a bare reference in the same run, so the ratio is meaningful
on shared, noisy machines. Suites that need the protocol-level test servers from ``tests/fakes``
run from a source checkout.
"""

from __future__ import annotations

import argparse

from aria_desktop.domain.errors import AriaError

__all__ = ["run_suite"]


async def run_suite(name: str, args: argparse.Namespace) -> int:
    """Run the named suite with its command-line options; returns the exit status."""
    if name == "core":
        from aria_desktop.bench.core import run_core_bench

        await run_core_bench(turns=args.turns, chunks=args.chunks, messages=args.messages)
        return 0
    if name == "memory":
        from aria_desktop.bench.memory import run_memory_bench

        await run_memory_bench(quality=args.quality, n=args.n, queries=args.queries)
        return 0
    if name == "knowledge":
        from aria_desktop.bench.knowledge import run_knowledge_bench

        await run_knowledge_bench(
            files=args.files,
            chunks=args.chunks,
            rescan_files=args.rescan_files,
            queries=args.queries,
        )
        return 0
    if name == "voice" and args.accuracy:
        from aria_desktop.bench.voice_accuracy import run_voice_accuracy

        await run_voice_accuracy(commands=args.commands)
        return 0
    if name == "voice":
        from aria_desktop.bench.voice import run_voice_bench

        await run_voice_bench(repeats=args.repeats)
        return 0
    if name == "api":
        from aria_desktop.bench.api import run_api_bench

        await run_api_bench(
            seconds=args.seconds,
            concurrency=args.concurrency,
            sse_turns=args.sse_turns,
            first_chunk=args.first_chunk,
        )
        return 0
    if name == "cli":
        from aria_desktop.bench.cli import run_cli_bench

        await run_cli_bench(runs=args.runs)
        return 0
    if name == "computer":
        from aria_desktop.bench.computer import run_computer_bench

        await run_computer_bench(rounds=args.rounds)
        return 0
    if name == "web":
        from aria_desktop.bench.web import run_web_bench

        await run_web_bench(rounds=args.rounds)
        return 0
    if name == "mcp":
        from aria_desktop.bench.mcp import run_mcp_bench

        await run_mcp_bench(calls=args.calls)
        return 0
    raise AriaError(
        f"Unknown benchmark suite {name!r}.",
        hint="Available: core, memory, knowledge, voice, gui, api, computer, cli, web, mcp.",
    )
