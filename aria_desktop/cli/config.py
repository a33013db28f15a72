"""``aria config``: settings and secrets.

Every action runs on the tolerant settings and names each settings problem once on standard
error; ``check`` is the strict one: it lists every problem and exits 2 when there is any
(ARCHITECTURE.md: a start that never breaks).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from aria_desktop import keystore, paths
from aria_desktop.cli._args import add_actions
from aria_desktop.cli._common import EXIT_OK, EXIT_USAGE, Subparsers, err, print_json
from aria_desktop.cli._settings_problems import (
    SHOWS_PROBLEMS,
    problem_line,
    problems_of,
    tell_problems,
)
from aria_desktop.domain.errors import ConfigError
from aria_desktop.settings import Settings, resolve_database_path, resolve_log_file

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the ``config`` subcommand."""
    config_sub = add_actions(sub, "config", "show or change settings and secrets", _cmd_config)
    sub.choices["config"].set_defaults(**{SHOWS_PROBLEMS: True})
    check = config_sub.add_parser(
        "check", help="list every problem in the settings (exit 2 if any)"
    )
    check.add_argument("--json", action="store_true")
    show = config_sub.add_parser("show", help="effective settings (secrets redacted)")
    show.add_argument("--json", action="store_true")
    config_sub.add_parser("path", help="where settings, database and logs live")
    config_sub.add_parser("keys", help="every setting with its type and default")
    set_parser = config_sub.add_parser("set", help="change a setting, e.g. llm.ollama.url")
    set_parser.add_argument("key")
    set_parser.add_argument("value")
    secret = config_sub.add_parser(
        "set-secret", help="store an API key in the system keyring (read from the terminal)"
    )
    secret.add_argument("name", choices=keystore.SECRET_NAMES)
    secret.add_argument(
        "--insecure-file",
        action="store_true",
        help="if no keyring is usable, store it in a file readable only by you",
    )
    delete_secret = config_sub.add_parser("delete-secret", help="remove a stored API key")
    delete_secret.add_argument("name", choices=keystore.SECRET_NAMES)


async def _cmd_config(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "check":
        return _check(args)
    tell_problems(problems_of(args))
    _ACTIONS[args.action](args, settings)
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    """Every settings problem on standard output (the result); exit 2 when there is one."""
    problems = problems_of(args)
    if args.json:
        print_json([problem.to_dict() for problem in problems])
    elif problems:
        for problem in problems:
            print(problem_line(problem))
        err(f"{len(problems)} problem(s); ARIA runs with the default where each one is.")
    else:
        path = paths.settings_file()
        print(f"{path} is fine." if path.exists() else f"No settings file yet ({path}).")
    return EXIT_USAGE if problems else EXIT_OK


def _show_paths(args: argparse.Namespace, settings: Settings) -> None:
    print(f"settings  {paths.settings_file()}")
    print(f"database  {resolve_database_path(settings)}")
    print(f"log       {resolve_log_file(settings)}")
    print(f"audit     {paths.audit_log_path()}")


def _show(args: argparse.Namespace, settings: Settings) -> None:
    from aria_desktop.settings import settings_as_dict

    data = settings_as_dict(settings)
    data["secrets"] = {name: keystore.secret_status(name) for name in keystore.SECRET_NAMES}
    if args.json:
        print_json(data)
    else:
        _print_tree(data)


def _show_keys(args: argparse.Namespace, settings: Settings) -> None:
    from aria_desktop.settings import describe_keys

    for key, type_name, default in describe_keys():
        print(f"{key:40} {type_name:22} {default}")


def _set(args: argparse.Namespace, settings: Settings) -> None:
    from aria_desktop.domain.config import applies_live
    from aria_desktop.settings import set_value

    set_value(args.key, args.value)
    err(f"Set {args.key} = {args.value} in {paths.settings_file()}")
    # A running ARIA follows the file (ARCHITECTURE.md: settings applied live).
    if applies_live(args.key):
        err("A running ARIA uses it from its next turn (voice: the next utterance).")
    else:
        err("A running ARIA uses it after a restart.")


def _set_secret(args: argparse.Namespace, settings: Settings) -> None:
    value = _read_secret(args.name)
    keystore.set_secret(args.name, value, allow_file_fallback=args.insecure_file)
    err(f"Stored {args.name} ({keystore.secret_status(args.name)}).")


def _delete_secret(args: argparse.Namespace, settings: Settings) -> None:
    keystore.delete_secret(args.name)
    err(f"Deleted {args.name}.")


_ACTIONS: dict[str, Callable[[argparse.Namespace, Settings], None]] = {
    "path": _show_paths,
    "show": _show,
    "keys": _show_keys,
    "set": _set,
    "set-secret": _set_secret,
    "delete-secret": _delete_secret,
}
"""``aria config <action>`` -> what it does (each prints its result or raises AriaError)."""


def _read_secret(name: str) -> str:
    """Read a secret from the terminal without echo, or from stdin when piped (never argv)."""
    import getpass

    raw = getpass.getpass(f"{name}: ") if sys.stdin.isatty() else sys.stdin.readline()
    value = raw.strip()
    if not value:
        raise ConfigError(f"No value given for {name}.", hint="Paste the key when asked.")
    return value


def _print_tree(data: dict[str, Any], prefix: str = "") -> None:
    for key, value in data.items():
        if isinstance(value, dict) and value and key != "chains":
            _print_tree(value, f"{prefix}{key}.")
        else:
            shown = json.dumps(value, ensure_ascii=False)
            print(f"{prefix}{key} = {shown}")
