"""What an MCP server offers, read from its session: tools, resources, prompts, as ARIA's facts.

Plain functions over the SDK's client; the supervisor calls them on its live session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aria_desktop.adapters.mcp.outcomes import result_text
from aria_desktop.domain.mcp import (
    McpCallResult,
    McpPromptArgument,
    McpPromptInfo,
    McpPromptText,
    McpResourceInfo,
    McpToolInfo,
)

if TYPE_CHECKING:
    from mcp import Client

__all__ = ["list_offers", "list_tools", "prompt_text", "resource_text"]


async def list_tools(client: Client, server: str) -> list[McpToolInfo]:
    """Every tool of the server (up to 100 pages)."""
    tools: list[McpToolInfo] = []
    cursor: str | None = None
    for _page in range(100):
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        for tool in page.tools:
            hints = tool.annotations
            tools.append(
                McpToolInfo(
                    server=server,
                    name=tool.name,
                    description=tool.description or "",
                    input_schema=dict(tool.input_schema),
                    read_only_hint=hints.read_only_hint if hints else None,
                    destructive_hint=hints.destructive_hint if hints else None,
                )
            )
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


async def list_offers(
    client: Client, server: str
) -> tuple[list[McpResourceInfo], list[McpPromptInfo]]:
    """The server's resources and prompts, where it says it has them (first 10 pages each)."""
    capabilities = client.server_capabilities
    resources: list[McpResourceInfo] = []
    prompts: list[McpPromptInfo] = []
    if capabilities is not None and capabilities.resources is not None:
        cursor: str | None = None
        for _page in range(10):
            page = await client.list_resources(cursor=cursor, cache_mode="refresh")
            resources += [
                McpResourceInfo(
                    server=server,
                    uri=str(item.uri),
                    name=item.title or item.name,
                    description=item.description or "",
                    mime_type=item.mime_type or "",
                )
                for item in page.resources
            ]
            cursor = page.next_cursor
            if cursor is None:
                break
    if capabilities is not None and capabilities.prompts is not None:
        cursor = None
        for _page in range(10):
            listed = await client.list_prompts(cursor=cursor, cache_mode="refresh")
            prompts += [
                McpPromptInfo(
                    server=server,
                    name=item.name,
                    description=item.description or "",
                    arguments=tuple(
                        McpPromptArgument(
                            name=arg.name,
                            description=arg.description or "",
                            required=bool(arg.required),
                        )
                        for arg in item.arguments or ()
                    ),
                )
                for item in listed.prompts
            ]
            cursor = listed.next_cursor
            if cursor is None:
                break
    return resources, prompts


def resource_text(result: Any) -> McpCallResult:
    """A read resource's contents as text (binary contents named, not shown)."""
    parts = [
        getattr(item, "text", None) or f"[{getattr(item, 'mime_type', '') or 'binary'} content]"
        for item in result.contents
    ]
    return McpCallResult(text="\n".join(parts))


class _Blocks:
    """One message's content shaped as a tool result, so prompts read the way results do."""

    def __init__(self, content: list[Any]) -> None:
        self.content = content
        self.structured_content = None


def prompt_text(server: str, name: str, result: Any) -> McpPromptText:
    """A filled prompt's messages as (role, text)."""
    messages = tuple(
        (message.role, result_text(_Blocks([message.content]))) for message in result.messages
    )
    return McpPromptText(server=server, name=name, messages=messages)
