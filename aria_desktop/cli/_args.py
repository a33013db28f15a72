"""Argument groups that several ``aria`` subcommands share, declared once."""

from __future__ import annotations

import argparse
from typing import Any

from aria_desktop.cli._common import Handler

__all__ = ["add_actions", "add_json_action", "add_paging", "add_show"]


def add_paging(parser: argparse.ArgumentParser, *, limit: int) -> None:
    """``--limit``/``--offset``/``--json`` of a ``list`` subcommand (the same for every list)."""
    parser.add_argument("--limit", type=int, default=limit)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--json", action="store_true")


def add_show(subparsers: Any, help_text: str) -> argparse.ArgumentParser:
    """A ``show ID [--json]`` subcommand."""
    show: argparse.ArgumentParser = subparsers.add_parser("show", help=help_text)
    show.add_argument("id")
    show.add_argument("--json", action="store_true")
    return show


def add_json_action(subparsers: Any, name: str, help_text: str) -> argparse.ArgumentParser:
    """A subcommand that prints words, or JSON with ``--json`` (every report does both)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(name, help=help_text)
    parser.add_argument("--json", action="store_true")
    return parser


def add_actions(subparsers: Any, name: str, help_text: str, handler: Handler) -> Any:
    """A command whose first argument names an action (``aria memory add``), run by ``handler``.

    Returns the subparsers each action is added to; ``args.action`` names the one chosen.
    """
    parser: argparse.ArgumentParser = subparsers.add_parser(name, help=help_text)
    parser.set_defaults(handler=handler)
    return parser.add_subparsers(dest="action", required=True, metavar="ACTION")
