"""A real SDK-written MCP server (tests/fakes/mcp_servers.py ``asks``, over stdio) in a stack.

``restaurant_hub``: the server as ``restaurant`` (``book_table`` asks the person, the resource
``notes://todo``, the prompt ``plan_trip``), its hub started and its bridge installed on the
stack's orchestrator; closed after the test. Import it into a test module to use it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.mcp.hub import build_hub
from aria_desktop.adapters.mcp.pins import JsonPinStore
from aria_desktop.core.mcp.bridge import McpBridge
from aria_desktop.settings.schema_mcp import McpServerSettings, McpSettings

__all__ = ["restaurant_hub"]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def restaurant_hub(stack: Any, run: Any, isolated_env: Path) -> Iterator[Any]:
    server = McpServerSettings(
        command=sys.executable,
        args=("-m", "tests.fakes.mcp_servers", "asks"),
        env=(f"PYTHONPATH={ROOT}",),
    )
    hub = build_hub(McpSettings(servers={"restaurant": server}), lambda _name: None)
    bridge = McpBridge(hub, JsonPinStore(isolated_env / "pins.json"), policies={}, result_chars=800)
    bridge.install(stack.orchestrator)

    async def start() -> None:
        hub.start()
        await hub.wait_started(30)

    run(start(), timeout_s=40)
    try:
        yield hub
    finally:
        run(hub.aclose(), timeout_s=20)
