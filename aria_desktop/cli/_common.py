"""Output helpers and types shared by the ``aria`` subcommands."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, TextIO, TypeAlias, TypeVar

from aria_desktop.domain.errors import AriaError, ConfirmationError
from aria_desktop.settings import Settings, resolve_database_path

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from aria_desktop.api.client.api_client import ApiClient
    from aria_desktop.core.ports import Assistant, EventSubscription
    from aria_desktop.domain.events import ActionConfirmRequest, Event

__all__ = [
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "Handler",
    "Subparsers",
    "answer_confirmation",
    "confirm_at_terminal",
    "err",
    "fmt_time",
    "follow_run",
    "on_ctrl_c",
    "owner_or_local",
    "print_json",
    "report",
    "show_result",
]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

Handler: TypeAlias = Callable[[argparse.Namespace, Settings], Coroutine[Any, Any, int]]
_End = TypeVar("_End", bound="Event")
_Access = TypeVar("_Access")
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


def show_result(data: Any, lines: list[str], *, as_json: bool, nothing: str = "") -> int:
    """Print an action's result: ``data`` as JSON, or ``lines`` for people.

    A line starting "  ! " tells a problem and goes to standard error, as does ``nothing``
    when there are no lines, so standard output carries only results.
    """
    if as_json:
        print_json(data)
        return EXIT_OK
    if not lines and nothing:
        err(nothing)
    for line in lines:
        if line.startswith("  ! "):
            err(line)
        else:
            print(line)
    return EXIT_OK


def fmt_time(unix_s: float) -> str:
    """Local time as ``YYYY-MM-DD HH:MM``."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(unix_s))


@contextlib.asynccontextmanager
async def owner_or_local(
    settings: Settings,
    from_owner: Callable[[ApiClient], _Access],
    open_here: Callable[[], AbstractAsyncContextManager[_Access]],
    *,
    note_here: str = "",
) -> AsyncIterator[_Access]:
    """The owner's capability over its API when a daemon or the tray app runs, else one opened here.

    The owner holds the database (and tells every surface of a change), so a command goes
    through it whenever one runs; only without one does the command open the capability
    itself (``open_here``, closed on exit) and, if given, say ``note_here`` on standard error.
    """
    from aria_desktop.adapters.storage.owner_lock import read_owner

    owner = read_owner(resolve_database_path(settings))
    if owner is not None:
        from aria_desktop.compose.assistant import owner_client

        async with await owner_client(settings, owner.port, owner.pid) as client:
            yield from_owner(client)
        return
    async with open_here() as access:
        if note_here:
            err(note_here)
        yield access


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


async def answer_confirmation(
    assistant: Assistant, event: ActionConfirmRequest, *, what: str
) -> None:
    """Ask at the terminal (see ``confirm_at_terminal``) and send the answer to ``assistant``.

    A request answered meanwhile elsewhere, or expired, is let go.
    """
    from aria_desktop.domain.commands import ConfirmAction

    approved = await confirm_at_terminal(event, what=what)
    with contextlib.suppress(ConfirmationError):
        await assistant.confirm_action(
            ConfirmAction(request_id=event.request_id, nonce=event.nonce, approved=approved)
        )


@contextlib.contextmanager
def on_ctrl_c(stop: Callable[[], Coroutine[Any, Any, object]]) -> Iterator[None]:
    """While inside, Ctrl+C runs ``stop`` on the event loop instead of interrupting the command.

    Where the loop cannot take a signal handler (Windows, another thread), Ctrl+C keeps its
    usual meaning.
    """
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, lambda: loop.create_task(stop()))
    try:
        yield
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)


async def follow_run(
    assistant: Assistant,
    events: EventSubscription,
    run_id: str,
    *,
    render: Callable[[Event], None],
    until: type[_End],
    stop: Callable[[], Coroutine[Any, Any, object]],
    confirm_what: Callable[[ActionConfirmRequest], str],
) -> _End | None:
    """Render one run's events until one of type ``until``, which is returned (None: no end).

    Works the same in-process and against a running ARIA's API. The run's confirmation
    requests are asked at the terminal (``confirm_what`` names one where there is none) and
    answered, as are tool servers' questions while it runs (``cli/_questions.py``); Ctrl+C
    runs ``stop`` (cancel the turn, stop everything).
    """
    from aria_desktop.cli._questions import answer_question
    from aria_desktop.domain.events import ActionConfirmRequest
    from aria_desktop.domain.mcp_events import McpQuestion

    with on_ctrl_c(stop):
        async for event in events:
            if isinstance(event, McpQuestion):  # asked during a tool call of this run
                await answer_question(assistant, event)
            if event.run_id != run_id:
                continue
            render(event)
            if isinstance(event, ActionConfirmRequest):
                await answer_confirmation(assistant, event, what=confirm_what(event))
            if isinstance(event, until):
                return event
    return None
