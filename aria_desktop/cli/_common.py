"""Output helpers and types shared by the ``aria`` subcommands."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TextIO, TypeAlias

from aria_desktop.domain.errors import AriaError
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.domain.events import ActionConfirmRequest

__all__ = [
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "Handler",
    "Subparsers",
    "err",
    "fmt_time",
    "print_json",
    "report",
]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

Handler: TypeAlias = Callable[[argparse.Namespace, Settings], Coroutine[Any, Any, int]]
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def err(text: str = "") -> None:
    """Print a line to stderr (messages for people; stdout carries results)."""
    print(text, file=sys.stderr, flush=True)


def report(exc: AriaError) -> None:
    """Print an expected failure as a message and a hint."""
    err(f"Error: {exc.message}")
    if exc.hint:
        err(f"Hint: {exc.hint}")


def print_json(data: Any, stream: TextIO | None = None) -> None:
    """Print one JSON document on one line (to the current ``sys.stdout`` by default)."""
    out = stream if stream is not None else sys.stdout
    print(json.dumps(data, ensure_ascii=False, default=str), file=out, flush=True)


def fmt_time(unix_s: float) -> str:
    """Local time as ``YYYY-MM-DD HH:MM``."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(unix_s))


async def confirm_at_terminal(event: ActionConfirmRequest, *, what: str) -> bool:
    """Ask at the terminal, the CLI's out-of-band channel; no terminal or no answer is a deny.

    Args:
        event: the confirmation request.
        what: how the request is named when there is no terminal to ask (the tool's name in a
            chat, the action's summary for a click).
    """
    if not sys.stdin.isatty():
        err(f"[{what}: needs confirmation; no terminal to ask — denied]")
        return False
    # The first line says what; the rest (the exact command, a diff, a list of items) is shown
    # whole, indented.
    headline, _, detail = event.summary.partition("\n")
    shown = "".join(f"\n    {line}" for line in detail.splitlines())
    prompt = f"ARIA wants to: {headline}{shown}\n  ({event.reason}) Allow? [y/N] "
    try:
        async with asyncio.timeout(event.timeout_s):
            answer = await asyncio.to_thread(input, prompt)
    except (TimeoutError, EOFError):
        return False
    return answer.strip().lower() in {"y", "yes"}
