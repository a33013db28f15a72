"""``aria doctor``'s MCP check: each configured server started once, its tools counted.

A server that does not start or fails is a WARN (ARIA works without it) with its last error;
an approved tool whose definition changed since is reported too (ARCHITECTURE.md: MCP).
"""

from __future__ import annotations

from aria_desktop.doctor.result import CheckResult, ok, warn
from aria_desktop.settings import Settings

__all__ = ["check_mcp"]


async def check_mcp(settings: Settings) -> list[CheckResult]:
    """One line per configured MCP server."""
    if not settings.mcp.enabled or not settings.mcp.servers:
        return []
    from aria_desktop import keystore
    from aria_desktop.adapters.mcp.hub import build_hub
    from aria_desktop.compose.mcp import open_pins

    hub = build_hub(settings.mcp, keystore.get_secret)
    hub.start()
    try:
        longest = max(server.startup_timeout_s for server in settings.mcp.servers.values())
        await hub.wait_started(longest + 1)
        pins = open_pins()
        changed = {
            tool.qualified
            for tool in hub.tools()
            if (pin := pins.get(tool.qualified)) is not None and pin.hash != tool.pin_hash()
        }
        results = []
        for status in hub.statuses():
            name = f"MCP {status.name}"
            if status.state != "running":
                results.append(
                    warn(
                        name,
                        f"{status.state}: {status.last_error or 'did not start'} ({status.where})",
                        f"Check [mcp.servers.{status.name}] (command, url, secrets).",
                    )
                )
                continue
            mine = sorted(c for c in changed if c.startswith(f"{status.name}__"))
            if mine:
                results.append(
                    warn(
                        name,
                        f"changed since approval: {', '.join(mine)} (disabled)",
                        f"Review with `aria mcp review {mine[0]}`.",
                    )
                )
                continue
            results.append(
                ok(name, f"{len(status.tools)} tools over {status.transport} ({status.protocol})")
            )
        return results
    finally:
        await hub.aclose()
