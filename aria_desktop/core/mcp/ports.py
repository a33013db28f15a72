"""Ports of the MCP bridge: the running servers (the adapter's hub) and the store of pins."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from aria_desktop.domain.mcp import (
    McpAsk,
    McpCallResult,
    McpPin,
    McpPromptInfo,
    McpPromptText,
    McpReply,
    McpResourceInfo,
    McpServerStatus,
    McpToolInfo,
)

__all__ = ["McpHub", "PinStore"]


class McpHub(Protocol):
    """The running MCP servers (the adapter's ``McpHub``)."""

    def tools(self) -> list[McpToolInfo]:
        """Every tool of every running server."""
        ...

    def validator(self, tool: McpToolInfo) -> Callable[[dict[str, Any]], list[str]]:
        """A full JSON-Schema validator of the tool's arguments."""
        ...

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> McpCallResult:
        """Call a tool; McpServerError when the server fails, hangs or is not running."""
        ...

    def on_tools_changed(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` whenever a server's tool list changed (start, restart, notice)."""
        ...

    def statuses(self) -> list[McpServerStatus]:
        """Every configured server's status."""
        ...

    def resources(self) -> list[McpResourceInfo]:
        """Every resource of every running server."""
        ...

    def prompts(self) -> list[McpPromptInfo]:
        """Every prompt of every running server."""
        ...

    async def read_resource(self, server: str, uri: str) -> McpCallResult:
        """A server's resource as text; McpServerError when the server fails or refuses."""
        ...

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> McpPromptText:
        """A server's prompt filled with ``arguments``."""
        ...

    def set_asker(self, ask: Callable[[McpAsk], Awaitable[McpReply]]) -> None:
        """Send the servers' questions to the person through ``ask``."""
        ...

    async def sign_in(self, server: str, *, browser: bool) -> str:
        """Sign in to ``server`` (the system browser when ``browser``); "" or the problem."""
        ...

    async def sign_out(self, server: str) -> str:
        """Revoke and forget the sign-in to ``server``; what happened."""
        ...


class PinStore(Protocol):
    """Where pins are kept across runs (the adapter's JSON file)."""

    def get(self, qualified: str) -> McpPin | None:
        """The pin of ``server__tool``, or None."""
        ...

    def put(self, qualified: str, pin: McpPin) -> None:
        """Store (or replace) a pin."""
        ...
