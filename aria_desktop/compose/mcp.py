"""Composition of MCP both ways: the user's servers as tools, under the core bridge's policy.

Kept beside ``compose/app.py`` so the MCP SDK and its wiring load only when MCP is used
(ARCHITECTURE.md: start-up cost, MCP).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from aria_desktop import paths
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.adapters.mcp.hub import McpHub
    from aria_desktop.adapters.mcp.pins import JsonPinStore
    from aria_desktop.core.mcp.bridge import McpBridge
    from aria_desktop.domain.mcp import McpToolPolicy

__all__ = ["build_mcp", "mcp_policies", "open_pins", "pins_path"]


def pins_path() -> Path:
    """Where approved MCP tool definitions are kept."""
    return paths.data_dir() / "mcp_pins.json"


def open_pins() -> JsonPinStore:
    """The pin store."""
    from aria_desktop.adapters.mcp.pins import JsonPinStore

    return JsonPinStore(pins_path())


def mcp_policies(settings: Settings) -> dict[str, McpToolPolicy]:
    """``server__tool`` -> always/ask/never from every server's ``tools`` list."""
    from aria_desktop.domain.mcp import qualified_tool_name

    policies: dict[str, McpToolPolicy] = {}
    for server, entry in settings.mcp.servers.items():
        for item in entry.tools:
            tool, _, policy = item.partition("=")
            policies[qualified_tool_name(server, tool)] = policy  # type: ignore[assignment]
    return policies


def build_mcp(settings: Settings) -> tuple[McpHub, McpBridge]:
    """The hub of the configured servers (not started) and the bridge to the registry."""
    from aria_desktop import keystore
    from aria_desktop.adapters.mcp.hub import build_hub
    from aria_desktop.core.mcp.bridge import McpBridge

    mcp = settings.mcp
    if not mcp.enabled:  # no server starts; the overview and commands still answer
        mcp = dataclasses.replace(mcp, servers={})
    hub = build_hub(mcp, keystore.get_secret)
    bridge = McpBridge(
        hub,
        open_pins(),
        policies=mcp_policies(settings),
        result_chars=settings.mcp.result_chars,
    )
    return hub, bridge
