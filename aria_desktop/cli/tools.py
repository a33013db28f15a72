"""``aria tools``: every tool with its policy, and what the policy would decide — nothing runs.

``aria tools check shell -- ARGV...`` and ``aria tools check path [--write] PATH`` show allow,
ask or refuse and why, so users can see why ARIA would ask (ARCHITECTURE.md: safety).
"""

from __future__ import annotations

import argparse
from typing import Any, cast

from aria_desktop.cli._args import add_actions, add_json_action
from aria_desktop.cli._common import EXIT_OK, Subparsers, print_json
from aria_desktop.settings import Settings

__all__ = ["register"]

_PERMISSION_WORDS = {
    "read_only": "allow (read only)",
    "reversible": "allow (reversible)",
    "consequential": "ask",
}


def register(sub: Subparsers) -> None:
    """Add the ``tools`` subcommand."""
    tools_sub = add_actions(
        sub, "tools", "the model's tools, their policies, and policy checks", _cmd_tools
    )
    add_json_action(tools_sub, "list", "every tool with its policy")
    check = tools_sub.add_parser("check", help="what the policy would decide (runs nothing)")
    check_sub = check.add_subparsers(dest="what", required=True, metavar="WHAT")
    shell = add_json_action(check_sub, "shell", "a shell command: aria tools check shell -- ARGV")
    shell.add_argument("--cwd", default=None, help="working folder (default: the first root)")
    shell.add_argument("argv", nargs="+", help="the command, after --")
    path = add_json_action(check_sub, "path", "a path for the file tools")
    path.add_argument("--write", action="store_true", help="for changing, not only reading")
    path.add_argument("path")


async def _cmd_tools(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.compose.tools import build_hands

    hands = build_hands(settings)
    if args.action == "list":
        rows = hands.describe() + _other_tools(settings)
        if args.json:
            print_json(rows)
        else:
            for row in rows:
                mark = " " if row["offered"] else "-"
                print(f"{mark} {row['name']:24} {row['policy']}")
            print("(- = not offered to the model now)")
        return EXIT_OK
    if args.what == "shell":
        result = hands.check_shell(list(args.argv), args.cwd)
    else:
        result = hands.check_path(args.path, write=args.write)
    if args.json:
        print_json(result)
        return EXIT_OK
    print(f"{result['verdict']}: {result.get('command') or result['path']}")
    for effect in result.get("effects", []):
        print(f"  it {effect['words']}  [{effect['kind']}]")
    if result.get("resolved"):
        print(f"  resolves to {result['resolved']}")
    print(f"  why: {result['reason']}")
    return EXIT_OK


def _other_tools(settings: Settings) -> list[dict[str, Any]]:
    """The memory and computer tools with their policies (their handlers are never called)."""
    from aria_desktop.core.memory.service import MemoryService
    from aria_desktop.domain.computer_tools import CHAT_ACTION_TOOLS, SCREEN_TOOLS

    rows: list[dict[str, Any]] = []
    # Only the tools' names and permission classes are read: no store or model is needed.
    memory = MemoryService(store=cast(Any, None), model=cast(Any, None))
    for tool in memory.tools():
        policy = _PERMISSION_WORDS[tool.permission]
        rows.append({"name": tool.name, "offered": True, "policy": policy})
    computer_on = settings.computer.enabled
    for spec in SCREEN_TOOLS:
        rows.append({"name": spec.name, "offered": True, "policy": "allow (reads the screen)"})
    for action in CHAT_ACTION_TOOLS:
        policy = (
            "computer policy: refused while computer control is off; deny lists for password "
            "managers, banking and system prompts; consequential targets ask"
        )
        if not computer_on:
            policy = "off (computer.enabled = false); when on: " + policy
        rows.append({"name": action.spec.name, "offered": True, "policy": policy})
    return rows
