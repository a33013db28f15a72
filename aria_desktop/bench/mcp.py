"""``aria bench mcp``: what ARIA adds to an MCP tool call, against the SDK client alone.

Both sides call ``get_current_time`` of the reference ``mcp-server-time`` over stdio in the
same run, interleaved call by call: the SDK's ``Client`` directly, and ARIA's path a chat turn's
call takes — registry validation (the server's JSON schema), the MCP policy and pin check, the
supervised session, fencing and capping (ARCHITECTURE.md: MCP). Target: at most 5 ms added.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path

from aria_desktop.bench._util import summary
from aria_desktop.domain.errors import AriaError

__all__ = ["run_mcp_bench"]

_ARGS = {"timezone": "Europe/Berlin"}
_TOOL = "time__get_current_time"


async def run_mcp_bench(*, calls: int) -> None:
    """Measure ``calls`` calls per side and print medians and the added time."""
    from mcp import Client, StdioServerParameters

    from aria_desktop.adapters.mcp.hub import build_hub
    from aria_desktop.adapters.mcp.pins import JsonPinStore
    from aria_desktop.core.mcp.bridge import McpBridge
    from aria_desktop.core.tools import ToolRegistry, default_policy
    from aria_desktop.domain.chat import ToolCall
    from aria_desktop.settings.schema_mcp import McpServerSettings, McpSettings

    command = shutil.which("mcp-server-time")
    if command is None:
        raise AriaError("This benchmark needs mcp-server-time.", hint="pip install mcp-server-time")
    args = ("--local-timezone", "UTC")
    hub = build_hub(
        McpSettings(servers={"time": McpServerSettings(command=command, args=args)}),
        lambda _name: None,
    )
    with tempfile.TemporaryDirectory() as folder:
        bridge = McpBridge(
            hub,
            JsonPinStore(Path(folder) / "pins.json"),
            policies={_TOOL: "always"},
            result_chars=8000,
        )
        registry = ToolRegistry()
        bridge.attach(registry)
        hub.start()
        await hub.wait_started(30)
        policy = bridge.policy_hook(default_policy)
        direct: list[float] = []
        aria: list[float] = []
        try:
            async with Client(StdioServerParameters(command=command, args=list(args))) as client:
                await client.list_tools()  # as ARIA does once; calls then carry the tool's schema

                async def sdk(_index: int) -> float:
                    started = time.perf_counter()
                    await client.call_tool("get_current_time", _ARGS)
                    return (time.perf_counter() - started) * 1000

                async def through_aria(index: int) -> float:
                    started = time.perf_counter()
                    call = ToolCall(id=f"c{index}", name=_TOOL, arguments=_ARGS)
                    tool = registry.validate(call)
                    decision = await policy(tool, call)
                    assert decision.verdict == "allow"
                    await tool.handler(call.arguments)
                    return (time.perf_counter() - started) * 1000

                for index in range(calls + 5):
                    # Alternate which side goes first, so neither gains from the other's turn.
                    if index % 2:
                        direct_ms, aria_ms = await sdk(index), await through_aria(index)
                    else:
                        aria_ms, direct_ms = await through_aria(index), await sdk(index)
                    if index >= 5:  # warm-up
                        direct.append(direct_ms)
                        aria.append(aria_ms)
        finally:
            await hub.aclose()
    added = statistics.median(aria) - statistics.median(direct)
    print(f"MCP tool call, mcp-server-time over stdio, {calls} calls per side (interleaved)")
    print(f"  SDK client directly   {summary(direct)}")
    print(f"  through ARIA          {summary(aria)}")
    print(f"  added by ARIA (median) {added:6.2f} ms   (target <= 5 ms)")
