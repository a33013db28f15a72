"""``aria mcp resources|prompts|read|prompt``: what MCP servers offer besides tools.

Resources (files, pages, records a server can hand over) and prompts (ready-made requests,
run as a command) of the configured servers, through the running owner or a core started
here for a moment (``compose/assistant.py``). ``aria mcp prompt`` runs the filled prompt as a
chat turn; ``aria chat --attach SERVER URI`` hands a resource to a turn as untrusted data
(ARCHITECTURE.md: MCP).
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING

from aria_desktop.cli._common import EXIT_FAILURE, EXIT_OK, err, print_json
from aria_desktop.domain.errors import ConfigError

if TYPE_CHECKING:
    from aria_desktop.core.ports import Assistant
    from aria_desktop.domain.commands import TurnAttachment
    from aria_desktop.domain.mcp import McpOverview
    from aria_desktop.settings import Settings

__all__ = ["add_parsers", "attachments", "run"]

ACTIONS = ("resources", "prompts", "read", "prompt")


def add_parsers(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the four actions to ``aria mcp``."""
    for name, what in (("resources", "every resource"), ("prompts", "every prompt")):
        listing = actions.add_parser(name, help=f"{what} the running servers offer")
        listing.add_argument("--json", action="store_true", help="print JSON")
    read = actions.add_parser("read", help="print a server's resource")
    read.add_argument("server")
    read.add_argument("uri")
    prompt = actions.add_parser("prompt", help="run a server's prompt as a chat turn")
    prompt.add_argument("server")
    prompt.add_argument("name")
    prompt.add_argument("arguments", nargs="*", metavar="NAME=VALUE", help="its arguments")
    prompt.add_argument("--show", action="store_true", help="only print the filled prompt")


async def run(args: argparse.Namespace, settings: Settings) -> int:
    """Run one of ``ACTIONS``."""
    from aria_desktop.compose.assistant import open_assistant
    from aria_desktop.domain.commands import GetMcpPrompt, ListMcp, ReadMcpResource

    async with open_assistant(settings, mcp_servers=True) as assistant:
        if args.action in {"resources", "prompts"}:
            overview = await assistant.execute(ListMcp())
            return _listing(overview, args.action, args.json)
        if args.action == "read":
            read = await assistant.execute(ReadMcpResource(server=args.server, uri=args.uri))
            (err if read.is_error else print)(read.text)
            return EXIT_FAILURE if read.is_error else EXIT_OK
        values = _arguments(args.arguments)
        filled = await assistant.execute(
            GetMcpPrompt(server=args.server, name=args.name, arguments=values)
        )
        if args.show:
            for role, text in filled.messages:
                print(f"[{role}]\n{text}\n")
            return EXIT_OK
        if not filled.user_text.strip():
            err(f"The prompt {args.name} of {args.server} has no request to run.")
            return EXIT_FAILURE
        return await _run_turn(assistant, filled.user_text)


def _listing(overview: McpOverview, action: str, as_json: bool) -> int:
    items = overview.resources if action == "resources" else overview.prompts
    if as_json:
        print_json([dataclasses.asdict(item) for item in items])
        return EXIT_OK
    for resource in overview.resources if action == "resources" else ():
        kind = f" ({resource.mime_type})" if resource.mime_type else ""
        print(f"{resource.server} {resource.uri}  {resource.name}{kind}")
        if resource.description:
            print(f"  {resource.description[:150]}")
    for prompt in overview.prompts if action == "prompts" else ():
        named = " ".join(f"{a.name}{'' if a.required else '?'}=…" for a in prompt.arguments)
        print(f"{prompt.server} {prompt.name} {named}".rstrip())
        if prompt.description:
            print(f"  {prompt.description[:150]}")
    if not items:
        err(f"No {action}: no running server offers any (see `aria mcp servers`).")
    return EXIT_OK


def _arguments(items: list[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ConfigError(f"{item!r} is not NAME=VALUE.", hint="e.g. topic=holidays")
        values[name] = value
    return values


async def _run_turn(assistant: Assistant, text: str) -> int:
    from aria_desktop.cli.chat import run_one_turn

    status, _ = await run_one_turn(assistant, text, None, None, False)
    return EXIT_OK if status == "complete" else EXIT_FAILURE


async def attachments(assistant: Assistant, pairs: list[list[str]]) -> tuple[TurnAttachment, ...]:
    """``--attach SERVER URI`` pairs read into turn attachments (a refused read is an error)."""
    from aria_desktop.domain.commands import ReadMcpResource, TurnAttachment
    from aria_desktop.domain.errors import McpServerError

    found: list[TurnAttachment] = []
    for server, uri in pairs:
        read = await assistant.execute(ReadMcpResource(server=server, uri=uri))
        if read.is_error:
            raise McpServerError(f"{server} did not hand over {uri}: {read.text}")
        found.append(TurnAttachment(source=f"{server}: {uri}", text=read.text))
    return tuple(found)
