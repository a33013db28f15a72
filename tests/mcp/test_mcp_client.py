"""ARIA as an MCP client: real MCP servers (stdio) as tools of a chat turn, under ARIA's policy.

The servers are real processes speaking the protocol through the official SDK: the reference
``mcp-server-time`` and the misbehaving servers of ``tests/fakes/mcp_servers.py``. The chat
model is scripted in-process; its answer repeats the last tool result, so a result that
reaches the model reaches the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import sys
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.mcp.hub import McpHub, build_hub
from aria_desktop.adapters.mcp.pins import JsonPinStore
from aria_desktop.core.mcp.bridge import PAGE_TOOL, McpBridge, pin_diff
from aria_desktop.core.tools import default_policy
from aria_desktop.domain.chat import ChatRequest, LLMChunk
from aria_desktop.domain.commands import ConfirmAction
from aria_desktop.domain.events import ActionConfirmRequest, RunEnd, ToolResultEvent
from aria_desktop.domain.mcp import McpToolPolicy
from aria_desktop.settings.schema_mcp import McpServerSettings, McpSettings
from tests.fakes.harness import FakeCore, fake_cores
from tests.fakes.ports import ScriptedChatModel, text_reply, tool_reply

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def fake_server(mode: str, **overrides: Any) -> McpServerSettings:
    """A server of tests/fakes/mcp_servers.py over stdio."""
    return McpServerSettings(
        command=sys.executable,
        args=("-m", "tests.fakes.mcp_servers", mode),
        env=(f"PYTHONPATH={ROOT}",),
        **overrides,
    )


class RelayModel(ScriptedChatModel):
    """Plays its script; once the script is over, answers with the last tool result."""

    async def stream(
        self, request: ChatRequest, *, agent: str = "chat", backend: str | None = None
    ) -> AsyncGenerator[LLMChunk, None]:
        if not self.pending:
            last = request.messages[-1]
            self.script(text_reply(f"The tool said: {last.content}"))
        async for chunk in super().stream(request, agent=agent, backend=backend):
            yield chunk


class Rig:
    """A fake core with the MCP bridge installed over a real hub."""

    def __init__(self, core: FakeCore, hub: McpHub, bridge: McpBridge, pins: JsonPinStore):
        self.core = core
        self.hub = hub
        self.bridge = bridge
        self.pins = pins
        self.approve = True

    async def turn(self, *calls: tuple[str, dict[str, Any]]) -> tuple[list[Any], str]:
        """A turn calling ``calls``; confirmations answered with :attr:`approve`."""
        self.core.model.script(tool_reply(list(calls)))
        sub = self.core.orchestrator.bus.subscribe()

        async def answer() -> None:
            async for event in sub:
                if isinstance(event, ActionConfirmRequest):
                    await self.core.orchestrator.handle(
                        ConfirmAction(
                            request_id=event.request_id, nonce=event.nonce, approved=self.approve
                        )
                    )

        answering = asyncio.create_task(answer())
        try:
            events, _conversation = await self.core.turn("go", timeout_s=30)
        finally:
            answering.cancel()
            sub.close()
        results = [e for e in events if isinstance(e, ToolResultEvent)]
        end = next(e for e in events if isinstance(e, RunEnd))
        assert end.status == "complete"
        return results, self.core.model.requests[-1].messages[-1].content


RigFactory = Callable[..., Awaitable[Rig]]


@pytest.fixture
async def make_rig(tmp_path: Path) -> AsyncIterator[RigFactory]:
    hubs: list[McpHub] = []

    async def make(
        servers: dict[str, McpServerSettings],
        *,
        policies: dict[str, McpToolPolicy] | None = None,
        result_chars: int = 8000,
        wait: bool = True,
    ) -> Rig:
        hub = build_hub(McpSettings(servers=servers, max_restarts=2), lambda _name: None)
        hubs.append(hub)
        pins = JsonPinStore(tmp_path / "pins.json")
        bridge = McpBridge(hub, pins, policies=policies or {}, result_chars=result_chars)
        core = await cores(policy=bridge.policy_hook(default_policy))
        core.model.__class__ = RelayModel
        bridge.install(core.orchestrator)
        hub.start()
        if wait:
            await hub.wait_started(60)
        return Rig(core, hub, bridge, pins)

    async with fake_cores(tmp_path) as cores:
        try:
            yield make
        finally:
            for hub in hubs:
                await hub.aclose()


async def tools_changed(hub: McpHub, predicate: Callable[[], bool]) -> None:
    """Wait until the hub's tools satisfy ``predicate`` (the change notice is an event)."""
    changed = asyncio.Event()
    hub.on_tools_changed(changed.set)
    async with asyncio.timeout(30):
        while not predicate():
            await changed.wait()
            changed.clear()


@pytest.mark.skipif(shutil.which("mcp-server-time") is None, reason="mcp-server-time missing")
async def test_a_turn_calls_mcp_server_time_and_the_time_reaches_the_answer(
    make_rig: RigFactory,
) -> None:
    rig = await make_rig(
        {"time": McpServerSettings(command="mcp-server-time", args=("--local-timezone", "UTC"))}
    )
    assert "time__get_current_time" in rig.core.orchestrator.tools.names()
    [status] = rig.hub.statuses()
    assert status.pid is not None
    assert "mcp-server-time" in Path(f"/proc/{status.pid}/cmdline").read_text()
    results, answer = await rig.turn(("time__get_current_time", {"timezone": "Asia/Tokyo"}))
    assert results[0].status == "ok"
    assert '"timezone": "Asia/Tokyo"' in answer
    assert 'trust="untrusted"' in answer
    decisions = [r.data for r in rig.core.audit.records() if r.kind == "policy-decision"]
    assert decisions[0]["verdict"] == "confirm"
    assert decisions[0]["rule"] == "mcp:ask"


EVERYTHING = ROOT / ".ci/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def everything_installed() -> Path:
    assert EVERYTHING.exists(), "run the test set-up: bash packaging/setup.sh test (npm install)"
    return EVERYTHING


@needs_node
async def test_a_turn_calls_server_everything_over_stdio(
    make_rig: RigFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARIA_SECRET_MCP_PROBE", "not-for-children")
    script = everything_installed()
    rig = await make_rig(
        {"everything": McpServerSettings(command="node", args=(str(script), "stdio"))},
        policies={"everything__get-env": "always"},
    )
    results, answer = await rig.turn(("everything__get-sum", {"a": 19, "b": 23}))
    assert results[0].status == "ok"
    assert "42" in answer
    _results, env_text = await rig.turn(("everything__get-env", {}))
    assert "PATH" in env_text
    assert "ARIA_SECRET_MCP_PROBE" not in env_text


@contextlib.asynccontextmanager
async def everything_http(mode: str) -> AsyncIterator[int]:
    """server-everything listening over HTTP (``streamableHttp`` or ``sse``); yields its port."""
    script = everything_installed()
    port = _free_port()
    proc = await asyncio.create_subprocess_exec(
        "node",
        str(script),
        mode,
        env={"PATH": os.environ["PATH"], "PORT": str(port)},
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stderr is not None
        async with asyncio.timeout(30):
            # "... listening on port N" (streamable HTTP) or "... running on port N" (SSE)
            while f"on port {port}".encode() not in await proc.stderr.readline():
                pass
        yield port
    finally:
        proc.terminate()
        await proc.wait()


@needs_node
async def test_a_turn_calls_server_everything_over_streamable_http(make_rig: RigFactory) -> None:
    async with everything_http("streamableHttp") as port:
        rig = await make_rig(
            {"remote": McpServerSettings(url=f"http://127.0.0.1:{port}/mcp", transport="http")}
        )
        assert rig.hub.statuses()[0].state == "running"
        results, answer = await rig.turn(("remote__echo", {"message": "over http"}))
        assert results[0].status == "ok"
        assert "over http" in answer


@needs_node
async def test_each_server_is_spoken_to_in_the_newest_revision_it_knows(
    make_rig: RigFactory,
) -> None:
    # The Python SDK's servers know 2026-07-28 (stateless); server-everything (the TypeScript
    # SDK) knows 2025-11-25: the same client calls tools on both.
    async with everything_http("streamableHttp") as port:
        older = McpServerSettings(url=f"http://127.0.0.1:{port}/mcp", transport="http")
        rig = await make_rig({"modern": fake_server("ok"), "older": older})
        protocols = {status.name: status.protocol for status in rig.hub.statuses()}
        assert protocols == {"modern": "2026-07-28", "older": "2025-11-25"}
        results, answer = await rig.turn(("modern__echo", {"text": "new"}))
        assert results[0].status == "ok"
        assert "echo: new" in answer
        results, answer = await rig.turn(("older__echo", {"message": "old"}))
        assert results[0].status == "ok"
        assert "old" in answer


@needs_node
async def test_an_sse_only_server_is_reached_through_the_fallback(make_rig: RigFactory) -> None:
    async with everything_http("sse") as port:
        rig = await make_rig({"old": McpServerSettings(url=f"http://127.0.0.1:{port}/sse")})
        [status] = rig.hub.statuses()
        assert (status.state, status.protocol) == ("running", "2025-11-25")
        results, answer = await rig.turn(("old__get-sum", {"a": 2, "b": 3}))
        assert results[0].status == "ok"
        assert "5" in answer


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_never_policy_refuses_and_always_runs_without_asking(make_rig: RigFactory) -> None:
    rig = await make_rig({"ok": fake_server("ok")}, policies={"ok__echo": "never"})
    results, _ = await rig.turn(("ok__echo", {"text": "hi"}))
    assert results[0].status == "denied"
    rig.bridge._policies["ok__echo"] = "always"
    rig.approve = False  # no question may be asked
    results, answer = await rig.turn(("ok__echo", {"text": "hi"}))
    assert results[0].status == "ok"
    assert "echo: hi" in answer


async def test_arguments_are_checked_against_the_servers_schema(make_rig: RigFactory) -> None:
    rig = await make_rig({"ok": fake_server("ok")})
    results, answer = await rig.turn(("ok__echo", {"text": 5}))
    assert results[0].status == "error"
    assert "tool_arguments_invalid" in answer


async def test_a_server_crashing_mid_call_fails_the_call_and_is_restarted(
    make_rig: RigFactory,
) -> None:
    rig = await make_rig({"crash": fake_server("crash")}, policies={"crash__crash": "always"})
    results, answer = await rig.turn(("crash__crash", {}))
    assert results[0].status == "error"
    assert "mcp_server_error" in answer
    await tools_changed(
        rig.hub,
        lambda: (
            rig.hub.statuses()[0].restarts >= 1
            and "crash__echo" in rig.core.orchestrator.tools.names()
        ),
    )
    results, answer = await rig.turn(("crash__echo", {"text": "back"}))
    assert "echo: back" in answer


async def test_a_hung_call_times_out_and_the_turn_goes_on(make_rig: RigFactory) -> None:
    rig = await make_rig(
        {"hang": fake_server("hang", call_timeout_s=1.0)}, policies={"hang__hang": "always"}
    )
    results, answer = await rig.turn(("hang__hang", {}))
    assert results[0].status == "error"
    assert "did not answer in time" in answer


async def test_a_server_that_never_starts_is_reported_and_blocks_no_turn(
    make_rig: RigFactory,
) -> None:
    rig = await make_rig(
        {"never": fake_server("never-starts", startup_timeout_s=0.5), "ok": fake_server("ok")},
        wait=False,
    )
    rig.core.model.script(text_reply("hello"))
    events, _ = await rig.core.turn("hi", timeout_s=10)
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status == "complete"
    await rig.hub.wait_started(60)
    never = next(s for s in rig.hub.statuses() if s.name == "never")
    assert never.state == "failed"
    assert "did not start within 0.5 s" in never.last_error
    assert not any(name.startswith("never__") for name in rig.core.orchestrator.tools.names())


async def test_the_tool_list_follows_the_server(make_rig: RigFactory) -> None:
    rig = await make_rig({"ch": fake_server("changing")}, policies={"ch__add_tool": "always"})
    assert "ch__extra" not in rig.core.orchestrator.tools.names()
    await rig.turn(("ch__add_tool", {}))
    await tools_changed(rig.hub, lambda: "ch__extra" in rig.core.orchestrator.tools.names())


async def test_a_5_mb_result_is_capped_and_pageable(make_rig: RigFactory) -> None:
    rig = await make_rig({"big": fake_server("big")}, policies={"big__big": "always"})
    results, answer = await rig.turn(("big__big", {}))
    assert results[0].status == "ok"
    assert len(answer) < 9000
    hint = answer[answer.index("call mcp_result_page") :]
    result_id = hint.split("result_id='")[1].split("'")[0]
    results, page = await rig.turn((PAGE_TOOL, {"result_id": result_id, "offset": 8000}))
    assert results[0].status == "ok"
    assert "0123456789abcdef"[8000 % 16 :] in page
    assert "next offset 16000 of 5242880" in page


async def test_a_tool_changed_after_approval_is_disabled_until_reviewed(
    make_rig: RigFactory,
) -> None:
    rig = await make_rig({"rug": fake_server("rug-pull")})
    results, answer = await rig.turn(("rug__echo", {"text": "one"}))
    assert results[0].status == "ok"
    pin = rig.pins.get("rug__echo")
    assert pin is not None
    await tools_changed(
        rig.hub, lambda: "evil" in json.dumps([t.description for t in rig.hub.tools()])
    )
    await tools_changed(rig.hub, lambda: rig.bridge.tool_info("rug__echo") in rig.hub.tools())
    results, answer = await rig.turn(("rug__echo", {"text": "two"}))
    assert results[0].status == "denied"
    assert "mcp:tool-changed" in answer
    info = rig.bridge.tool_info("rug__echo")
    assert info is not None
    diff = pin_diff(pin, info)
    assert '-  "description": "Echo the text back."' in diff
    assert "evil.example" in diff


async def test_the_overview_shows_approval_states_and_a_reviewed_tool_works_again(
    make_rig: RigFactory,
) -> None:
    rig = await make_rig({"rug": fake_server("rug-pull")})
    [state] = rig.bridge.overview().tools
    assert (state.qualified, state.approval, state.policy) == ("rug__echo", "not approved", "ask")
    await rig.turn(("rug__echo", {"text": "one"}))
    await tools_changed(rig.hub, lambda: rig.bridge.overview().tools[0].approval == "changed")
    [state] = rig.bridge.overview().tools
    assert "evil.example" in state.diff
    rig.bridge.approve("rug__echo")
    assert rig.bridge.overview().tools[0].approval == "approved"
    results, answer = await rig.turn(("rug__echo", {"text": "two"}))
    assert results[0].status == "ok"
    assert "echo: two" in answer
