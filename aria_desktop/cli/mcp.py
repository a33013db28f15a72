"""``aria mcp``: the MCP servers ARIA uses, their tools and approvals; ARIA as an MCP server.

``servers``, ``tools`` and ``review`` show what the running owner sees (through its API), or
start the configured servers for a moment when no owner runs. ``import`` brings Claude
Desktop's or VS Code's server list into the settings, secrets into the keyring. ``resources``,
``prompts``, ``read`` and ``prompt`` are what servers offer besides tools
(``cli/mcp_offers.py``). ``login`` and ``logout`` sign in to remote servers that ask for OAuth
(``cli/mcp_sign_in.py``). ``serve`` is
ARIA's own MCP server over stdio (for Claude Desktop): through the running owner's API when
there is one (ARCHITECTURE.md: owner, MCP).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import getpass
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from aria_desktop.cli._args import add_actions, add_json_action
from aria_desktop.cli._common import EXIT_FAILURE, EXIT_OK, Subparsers, err, print_json
from aria_desktop.domain.errors import ConfigError
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.domain.mcp import McpOverview

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the ``mcp`` subcommand."""
    actions = add_actions(sub, "mcp", "MCP servers as tools; ARIA as an MCP server", _cmd_mcp)
    add_json_action(actions, "servers", "status, command or URL, tools, last error")
    add_json_action(actions, "tools", "every MCP tool with its policy and approval")
    review = actions.add_parser("review", help="show how a tool changed since it was approved")
    review.add_argument("tool", help="server__tool")
    review.add_argument("--accept", action="store_true", help="approve the tool as it is now")
    imp = actions.add_parser("import", help="add servers from Claude Desktop or VS Code JSON")
    imp.add_argument("file", type=Path)
    secret = actions.add_parser("secret", help="store a secret for keyring: references")
    secret.add_argument("name", help="mcp_<name>")
    actions.add_parser("serve", help="serve ARIA's memory and tools over MCP on stdio")
    from aria_desktop.cli import mcp_offers

    mcp_offers.add_parsers(actions)
    login = actions.add_parser("login", help="sign in to a remote server that asks for it")
    login.add_argument("server", help="the server's name in the settings")
    logout = actions.add_parser("logout", help="revoke and forget the sign-in to a server")
    logout.add_argument("server", help="the server's name in the settings")


async def _cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "import":
        return _import(args.file)
    if args.action == "secret":
        return _secret(args.name)
    if args.action in {"resources", "prompts", "read", "prompt"}:
        from aria_desktop.cli import mcp_offers

        return await mcp_offers.run(args, settings)
    if args.action in {"login", "logout"}:
        from aria_desktop.cli import mcp_sign_in

        sign = mcp_sign_in.login if args.action == "login" else mcp_sign_in.logout
        return await sign(settings, args.server)
    if args.action == "serve":
        from aria_desktop import __version__
        from aria_desktop.api.mcp.server import serve_stdio
        from aria_desktop.compose.assistant import open_assistant

        async with open_assistant(settings) as assistant:
            await serve_stdio(assistant, version=__version__)
        return EXIT_OK
    async with _mcp(settings) as (overview, approve):
        if args.action == "servers":
            return _servers(overview, args.json)
        if args.action == "tools":
            return _tools(overview, args.json)
        return await _review(overview, approve, args.tool, args.accept)


Approve = Callable[[str], Awaitable[None]]


@contextlib.asynccontextmanager
async def _mcp(settings: Settings) -> AsyncIterator[tuple[McpOverview, Approve]]:
    """The running owner's view of its MCP servers, or the servers started here for a moment."""
    from aria_desktop.adapters.storage.owner_lock import read_owner
    from aria_desktop.domain.commands import ApproveMcpTool, ListMcp
    from aria_desktop.settings import resolve_database_path

    owner = read_owner(resolve_database_path(settings))
    if owner is not None:
        from aria_desktop.compose.assistant import owner_client

        async with await owner_client(settings, owner.port, owner.pid) as client:

            async def approve_there(tool: str) -> None:
                await client.execute(ApproveMcpTool(tool=tool))

            yield await client.execute(ListMcp()), approve_there
        return
    if not settings.mcp.servers:
        raise ConfigError(
            "No MCP servers are configured.",
            hint="Add [mcp.servers.<name>] to the settings, or `aria mcp import FILE`.",
        )
    from aria_desktop.compose.mcp import build_mcp
    from aria_desktop.core.tools import ToolRegistry

    hub, bridge = build_mcp(settings)
    bridge.attach(ToolRegistry())
    hub.start()
    try:
        longest = max(s.startup_timeout_s for s in settings.mcp.servers.values())
        await hub.wait_started(longest + 1)

        async def approve_here(tool: str) -> None:
            bridge.approve(tool)

        yield bridge.overview(), approve_here
    finally:
        await hub.aclose()


def _servers(overview: McpOverview, as_json: bool) -> int:
    statuses = overview.servers
    if as_json:
        print_json([dataclasses.asdict(status) for status in statuses])
    for status in [] if as_json else statuses:
        pid = f" pid {status.pid}" if status.pid else ""
        print(f"{status.name}: {status.state} ({status.transport}{pid}) {status.where}")
        if status.protocol:
            print(f"  protocol {status.protocol}; tools: {', '.join(status.tools) or 'none'}")
        if status.restarts:
            print(f"  restarted {status.restarts} time(s)")
        if status.last_error:
            print(f"  last error: {status.last_error}")
    if not statuses and not as_json:
        err("No MCP servers are configured: add [mcp.servers.<name>] or `aria mcp import`.")
    return EXIT_OK if all(s.state == "running" for s in statuses) else EXIT_FAILURE


_APPROVAL_WORDS = {
    "not approved": "not yet approved",
    "approved": "approved",
    "changed": "CHANGED since approval: disabled until `aria mcp review`",
}


def _tools(overview: McpOverview, as_json: bool) -> int:
    if as_json:
        print_json([dataclasses.asdict(tool) for tool in overview.tools])
        return EXIT_OK
    for tool in overview.tools:
        said = f" [server says: {', '.join(tool.hints)}]" if tool.hints else ""
        print(f"{tool.qualified}  policy={tool.policy}  {_APPROVAL_WORDS[tool.approval]}{said}")
        print(f"  {tool.description[:150]}")
    if not overview.tools:
        err("No MCP tools: see `aria mcp servers`.")
    return EXIT_OK


async def _review(overview: McpOverview, approve: Approve, name: str, accept: bool) -> int:
    tool = next((t for t in overview.tools if t.qualified == name), None)
    if tool is None:
        err(f"No MCP tool {name!r} is offered now (see `aria mcp tools`).")
        return EXIT_FAILURE
    if tool.approval == "changed":
        print(tool.diff)
    elif tool.approval == "approved":
        print(f"{name} is unchanged since it was approved.")
    else:
        print(f"{name}: {tool.description}")
    if accept:
        await approve(name)
        print(f"{name} approved as it is now.")
    return EXIT_OK


def _import(file: Path) -> int:
    from aria_desktop import keystore, paths
    from aria_desktop.adapters.mcp.importer import read_servers
    from aria_desktop.domain.wording import counted
    from aria_desktop.settings.writing import add_named_tables

    servers = read_servers(file)
    settings_path = paths.settings_file()
    by_name = {server.name: server for server in servers}

    def store_secrets(added: list[str]) -> None:
        for name in by_name:
            if name not in added:
                err(f"{name}: already configured; kept as it is.")
        for name in added:
            for secret, value in by_name[name].secrets.items():
                keystore.set_secret(secret, value)
                print(f"{name}: secret stored in the keyring as {secret}")

    # Validated before anything is stored; written into the file keeping what the user wrote.
    added = add_named_tables(
        settings_path,
        "mcp.servers",
        {server.name: server.table for server in servers},
        before_write=store_secrets,
    )
    if not added:
        print(f"Nothing imported: every server is already in {settings_path}.")
        return EXIT_OK
    print(f"Imported {counted(len(added), 'server')} into {settings_path}: " + ", ".join(added))
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
