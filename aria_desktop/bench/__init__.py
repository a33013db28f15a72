"""``aria bench``: benchmark suites that print figures (they assert nothing).

Each suite measures ARIA against a bare reference in the same run, so the ratio is meaningful
on shared, noisy machines; this module dispatches to a suite's module, imported only when it
runs. Suites that need the protocol-level test servers from ``tests/fakes`` run from a source
checkout. What each suite measures, its targets and the recorded figures: ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import importlib

from aria_desktop.domain.errors import AriaError

__all__ = ["run_suite"]


_SUITES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "core": ("core", "run_core_bench", ("turns", "chunks", "messages")),
    "memory": ("memory", "run_memory_bench", ("quality", "n", "queries", "load")),
    "knowledge": (
        "knowledge",
        "run_knowledge_bench",
        ("files", "chunks", "rescan_files", "queries"),
    ),
    "knowledge-quality": ("knowledge_quality", "run_knowledge_quality", ("misses",)),
    "voice-accuracy": ("voice_accuracy", "run_voice_accuracy", ("commands", "stt_uri")),
    "voice-dictation": ("voice_dictation", "run_dictation_bench", ()),
    "voice": ("voice", "run_voice_bench", ("repeats",)),
    "skills": ("skills", "run_skills_bench", ("turns", "repeats", "accuracy", "stt_uri")),
    "api": ("api", "run_api_bench", ("seconds", "concurrency", "sse_turns", "first_chunk")),
    "cli": ("cli", "run_cli_bench", ("runs",)),
    "computer": ("computer", "run_computer_bench", ("rounds",)),
    "web": ("web", "run_web_bench", ("rounds",)),
    "mcp": ("mcp", "run_mcp_bench", ("calls",)),
}
"""Suite -> (module in ``aria_desktop.bench``, its coroutine, the options it takes by name).

Each module is imported only when its suite runs (ARCHITECTURE.md: start-up cost)."""


async def run_suite(name: str, args: argparse.Namespace) -> int:
    """Run the named suite with its command-line options; returns the exit status."""
    if name == "voice" and getattr(args, "accuracy", False):
        name = "voice-accuracy"
    if name == "voice" and getattr(args, "dictation", False):
        name = "voice-dictation"
    if name == "knowledge" and getattr(args, "quality", False):
        name = "knowledge-quality"
    if name not in _SUITES:
        raise AriaError(
            f"Unknown benchmark suite {name!r}.",
            hint="Available: core, memory, knowledge, voice, skills, gui, api, computer, cli, web,"
            " mcp.",
        )
    module_name, function, options = _SUITES[name]
    module = importlib.import_module(f"aria_desktop.bench.{module_name}")
    await getattr(module, function)(**{option: getattr(args, option) for option in options})
    return 0
