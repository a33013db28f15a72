"""The ``aria`` command.

Every subcommand reports expected failures as a plain message with a hint (exit status 1, or 2
for usage and configuration mistakes) and never shows a traceback: unexpected errors are
written with their traceback to the log file, and the user is told where it is. Each
subcommand lives in its own module with a ``register(subparsers)`` function; this module only
assembles them and runs the chosen one. Those modules import the domain events, commands and
ports only inside the handler that uses them (annotations under ``TYPE_CHECKING``): every
``aria`` command imports them all to build the parser, and most never run a turn
(ARCHITECTURE.md: start-up cost); ``_common`` holds what their handlers share.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import time
from collections.abc import Sequence
from pathlib import Path

from aria_desktop import __version__
from aria_desktop.cli import (
    audit,
    bench,
    chat,
    config,
    conversations,
    daemon,
    desktop,
    dictate,
    doctor,
    knowledge,
    lists,
    mcp,
    memory,
    reminders,
    screen,
    timers,
    tools,
    usage,
    voice,
)
from aria_desktop.cli._common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    Handler,
    err,
    report,
)
from aria_desktop.cli._settings_problems import SHOWS_PROBLEMS, tell_problems
from aria_desktop.domain.errors import AriaError, ConfigError
from aria_desktop.domain.settings_problems import SettingsProblem
from aria_desktop.log import setup_logging
from aria_desktop.settings import load_settings_with_problems, resolve_log_file

__all__ = ["build_parser", "main"]

_LOGGER = logging.getLogger(__name__)

#: Subcommand modules, in the order ``aria --help`` lists them.
_COMMANDS = (
    chat,
    conversations,
    memory,
    knowledge,
    lists,
    timers,
    reminders,
    voice,
    dictate,
    screen,
    tools,
    mcp,
    config,
    usage,
    audit,
    doctor,
    desktop,
    daemon,
    bench,
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``aria`` command."""
    parser = argparse.ArgumentParser(
        prog="aria", description="ARIA Desktop — your local-first desktop assistant."
    )
    parser.add_argument("--version", action="version", version=f"aria-desktop {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log to stderr too")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _COMMANDS:
        module.register(sub)
    return parser


def _tell_settings_problems(
    args: argparse.Namespace, problems: tuple[SettingsProblem, ...]
) -> None:
    """Log each settings problem, hand them to the command, print them unless it shows them."""
    for problem in problems:
        _LOGGER.warning("Settings problem: %s %s", problem.message, problem.where())
    args.settings_problems = problems
    if not getattr(args, SHOWS_PROBLEMS, False):
        tell_problems(problems)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``aria`` console script."""
    started_at = time.perf_counter()
    parser = build_parser()
    args = parser.parse_args(argv)
    sync_handler = getattr(args, "sync_handler", None)
    if not getattr(args, "handler", None) and sync_handler is None:
        parser.print_help()
        return EXIT_USAGE
    # Imported here, not at the top: it loads the keyring library, which ``aria --help``
    # does not need (ARCHITECTURE.md: start-up cost).
    from aria_desktop import keystore

    keystore.scrub_secret_env()
    log_file: Path | None = None
    try:
        # Tolerant: a mistake in the settings never stops a command (ARCHITECTURE.md: a
        # start that never breaks); each is logged and named once.
        loaded = load_settings_with_problems()
        settings = loaded.settings
        log_file = resolve_log_file(settings)
        setup_logging(settings.log.level, log_file, console=args.verbose)
        _tell_settings_problems(args, loaded.problems)
        if sync_handler is not None:
            # Runs its own event loop (the desktop app: qasync on Qt's loop).
            return int(sync_handler(args, settings, started_at))
        handler: Handler = args.handler
        return asyncio.run(handler(args, settings))
    except ConfigError as exc:
        report(exc)
        return EXIT_USAGE
    except AriaError as exc:
        report(exc)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        err("Interrupted.")
        return EXIT_INTERRUPTED
    except Exception as exc:
        _LOGGER.exception("Unexpected error in `aria %s`", args.command)
        err(f"Unexpected error: {exc.__class__.__name__}: {exc}")
        err(f"Details are in {log_file or 'the log'}. Please report it.")
        return EXIT_FAILURE
