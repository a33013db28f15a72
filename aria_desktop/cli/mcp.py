"""``aria mcp``: the MCP servers ARIA uses, their tools and approvals; ARIA as an MCP server.

``servers``, ``tools`` and ``review`` start the configured servers for a moment to look at
them (what a running owner sees is the same list: the tools come from the servers
themselves). ``import`` brings Claude Desktop's or VS Code's server list into the settings,
secrets into the keyring. ``serve`` is ARIA's own MCP server over stdio (for Claude Desktop):
through the running owner's API when there is one (ARCHITECTURE.md: owner, MCP).
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from aria_desktop.cli._common import EXIT_FAILURE, EXIT_OK, Subparsers, err, print_json
from aria_desktop.domain.errors import ConfigError
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.mcp.hub import McpHub

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the ``mcp`` subcommand."""
    mcp = sub.add_parser("mcp", help="MCP servers as tools; ARIA as an MCP server")
    actions = mcp.add_subparsers(dest="action", required=True, metavar="ACTION")
    servers = actions.add_parser("servers", help="status, command or URL, tools, last error")
    servers.add_argument("--json", action="store_true")
    tools = actions.add_parser("tools", help="every MCP tool with its policy and approval")
    tools.add_argument("--json", action="store_true")
    review = actions.add_parser("review", help="show how a tool changed since it was approved")
    review.add_argument("tool", help="server__tool")
    review.add_argument("--accept", action="store_true", help="approve the tool as it is now")
    imp = actions.add_parser("import", help="add servers from Claude Desktop or VS Code JSON")
    imp.add_argument("file", type=Path)
    secret = actions.add_parser("secret", help="store a secret for keyring: references")
    secret.add_argument("name", help="mcp_<name>")
    actions.add_parser("serve", help="serve ARIA's memory and tools over MCP on stdio")
    mcp.set_defaults(handler=_cmd_mcp)


async def _cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "import":
        return _import(args.file)
    if args.action == "secret":
        return _secret(args.name)
    if args.action == "serve":
        from aria_desktop import __version__
        from aria_desktop.api.mcp_server import serve_stdio
        from aria_desktop.cli._assistant import open_assistant

        async with open_assistant(settings) as assistant:
            await serve_stdio(assistant, version=__version__)
        return EXIT_OK
    async with _started(settings) as hub:
        if args.action == "servers":
            return _servers(hub, args.json)
        if args.action == "tools":
            return _tools(hub, settings, args.json)
        return _review(hub, args.tool, args.accept)


@contextlib.asynccontextmanager
async def _started(settings: Settings) -> AsyncIterator[McpHub]:
    from aria_desktop import keystore
    from aria_desktop.mcp.hub import build_hub

    if not settings.mcp.servers:
        raise ConfigError(
            "No MCP servers are configured.",
            hint="Add [mcp.servers.<name>] to the settings, or `aria mcp import FILE`.",
        )
    hub = build_hub(settings.mcp, keystore.get_secret)
    hub.start()
    try:
        longest = max(s.startup_timeout_s for s in settings.mcp.servers.values())
        await hub.wait_started(longest + 1)
        yield hub
    finally:
        await hub.aclose()


def _servers(hub: McpHub, as_json: bool) -> int:
    statuses = hub.statuses()
    if as_json:
        import dataclasses

        print_json([dataclasses.asdict(status) for status in statuses])
    for status in [] if as_json else statuses:
        print(f"{status.name}: {status.state} ({status.transport}) {status.where}")
        if status.protocol:
            print(f"  protocol {status.protocol}; tools: {', '.join(status.tools) or 'none'}")
        if status.last_error:
            print(f"  last error: {status.last_error}")
    return EXIT_OK if all(s.state == "running" for s in statuses) else EXIT_FAILURE


def _tools(hub: McpHub, settings: Settings, as_json: bool) -> int:
    from aria_desktop.bootstrap_mcp import mcp_policies, open_pins

    pins = open_pins()
    policies = mcp_policies(settings)
    rows = []
    for tool in hub.tools():
        pin = pins.get(tool.qualified)
        approval = (
            "not yet approved"
            if pin is None
            else "approved"
            if pin.hash == tool.pin_hash()
            else "CHANGED since approval: disabled until `aria mcp review`"
        )
        hints = [
            h
            for h, on in (
                ("read-only", tool.read_only_hint),
                ("destructive", tool.destructive_hint),
            )
            if on
        ]
        rows.append(
            {
                "tool": tool.qualified,
                "policy": policies.get(tool.qualified, "ask"),
                "approval": approval,
                "hints": hints,
                "description": tool.description,
            }
        )
    if as_json:
        print_json(rows)
        return EXIT_OK
    for row in rows:
        said = f" [server says: {', '.join(row['hints'])}]" if row["hints"] else ""
        print(f"{row['tool']}  policy={row['policy']}  {row['approval']}{said}")
        print(f"  {str(row['description'])[:150]}")
    if not rows:
        err("No MCP tools: see `aria mcp servers`.")
    return EXIT_OK


def _review(hub: McpHub, name: str, accept: bool) -> int:
    import json

    from aria_desktop.bootstrap_mcp import open_pins
    from aria_desktop.core.mcp_tools import pin_diff
    from aria_desktop.domain.mcp import McpPin

    tool = next((t for t in hub.tools() if t.qualified == name), None)
    if tool is None:
        err(f"No MCP tool {name!r} is offered now (see `aria mcp tools`).")
        return EXIT_FAILURE
    pins = open_pins()
    pin = pins.get(name)
    if pin is None:
        print(json.dumps(tool.definition(), indent=2, ensure_ascii=False))
    elif pin.hash == tool.pin_hash():
        print(f"{name} is unchanged since it was approved.")
    else:
        print(pin_diff(pin, tool))
    if accept:
        pins.put(name, McpPin(hash=tool.pin_hash(), definition=tool.definition()))
        print(f"{name} approved as it is now.")
    return EXIT_OK


def _import(file: Path) -> int:
    from aria_desktop import keystore, paths
    from aria_desktop.files import atomic_write
    from aria_desktop.mcp.importer import read_servers
    from aria_desktop.settings.loading import read_toml, settings_from
    from aria_desktop.settings.toml_dump import dump_toml

    servers = read_servers(file)
    settings_path = paths.settings_file()
    data = read_toml(settings_path) if settings_path.exists() else {}
    table = data.setdefault("mcp", {}).setdefault("servers", {})
    for server in servers:
        if server.name in table:
            err(f"{server.name}: already configured; kept as it is.")
            continue
        table[server.name] = server.table
    settings_from(data, f"in {settings_path}", env={})  # validate before anything is stored
    for server in servers:
        for secret, value in server.secrets.items():
            keystore.set_secret(secret, value)
            print(f"{server.name}: secret stored in the keyring as {secret}")
    atomic_write(settings_path, dump_toml(data).encode("utf-8"))
    print(
        f"Imported {len(servers)} server(s) into {settings_path}: "
        + ", ".join(s.name for s in servers)
    )
    print("Their tools ask before each call; see `aria mcp tools`.")
    return EXIT_OK


def _secret(name: str) -> int:
    from aria_desktop import keystore

    value = getpass.getpass(f"Value of {name}: ") if sys.stdin.isatty() else sys.stdin.readline()
    if not value.strip():
        err("Nothing stored: the value is empty.")
        return EXIT_FAILURE
    where = keystore.set_secret(name, value.strip())
    print(f"{name} stored ({where}). Refer to it as keyring:{name}.")
    return EXIT_OK
