"""``aria mcp serve`` while a daemon owns the data: everything goes through the owner's API.

The SDK's client drives ``aria mcp serve`` over stdio; the daemon (a real ``aria daemon``
process) is the one writer: the memory the MCP client saves is the daemon's, and ``forget``
asks the daemon's user (nobody answers here: refused after the confirmation timeout).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters

from tests.api.daemon_proc import REPO, DaemonProcess
from tests.fakes import FakeOllama

pytestmark = pytest.mark.slow


async def test_mcp_serve_uses_the_running_daemon(tmp_path: Path) -> None:
    with FakeOllama() as ollama:
        daemon = DaemonProcess(
            tmp_path,
            ollama.url,
            extra_env={"ARIA_MEMORY__EMBEDDER": "none", "ARIA_AGENT__CONFIRM_TIMEOUT_S": "1"},
        ).start()
        try:
            params = StdioServerParameters(
                command=sys.executable,
                args=["-m", "aria_desktop", "mcp", "serve"],
                env=daemon.env,
                cwd=REPO,
            )
            async with Client(params) as client:
                saved = await client.call_tool("remember", {"content": "The spare key is blue"})
                memory_id = json.loads(saved.content[0].text)["id"]  # type: ignore[union-attr]
                listed = httpx.get(f"{daemon.url}/api/v1/memories", headers=daemon.headers())
                assert [m["id"] for m in listed.json()] == [memory_id]
                refused = await client.call_tool("forget", {"memory_id": memory_id})
                assert refused.is_error
            still = httpx.get(f"{daemon.url}/api/v1/memories", headers=daemon.headers())
            assert [m["id"] for m in still.json()] == [memory_id]
        finally:
            daemon.stop()
