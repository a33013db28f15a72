"""The client under test for the official MCP conformance suite: ARIA's own MCP client code.

``@modelcontextprotocol/conformance client --command "python tests/mcp/conformance/client.py"``
starts a test server per scenario and runs this with its URL (last argument), the scenario in
``MCP_CONFORMANCE_SCENARIO`` and scenario data (pre-registered credentials) in
``MCP_CONFORMANCE_CONTEXT``. Everything below the settings is ARIA's real code: the settings
resolved by ``server_spec``, the ``ServerSupervisor`` that connects, the OAuth sign-in of
``adapters/mcp/oauth.py`` with its loopback receiver, a server's questions through ARIA's
``QuestionBroker``. Only the person is simulated, as the SDKs' own conformance clients do: the
"browser" fetches the authorization URL and follows its redirect to ARIA's receiver, and every
question is accepted as the form first shows it (the server's defaults, which ARIA fills in).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

import httpx

from aria_desktop.adapters.mcp.spec import server_spec
from aria_desktop.adapters.mcp.supervisor import ServerSupervisor
from aria_desktop.core.bus import EventBus
from aria_desktop.core.mcp.questions import QuestionBroker
from aria_desktop.domain.mcp_events import McpQuestion
from aria_desktop.settings.schema_mcp import McpServerSettings

# The client-ID metadata document URL the suite's CIMD scenario expects as the client ID (its
# server checks the client uses it and fetches nothing); a user sets their own in the settings.
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"


async def browse(authorization_url: str) -> None:
    """What a person's browser does: open the page (which redirects), follow to ARIA."""
    async with httpx.AsyncClient(follow_redirects=False, timeout=20) as http:
        answer = await http.get(authorization_url)
        location = answer.headers.get("location")
        if answer.status_code not in {301, 302, 303, 307, 308} or not location:
            raise SystemExit(f"the authorization page did not redirect: HTTP {answer.status_code}")
        await http.get(location)


async def person(bus: EventBus, broker: QuestionBroker) -> None:
    """Accept every question of the server as its form first shows it."""
    async with bus.subscribe() as questions:
        async for event in questions:
            if isinstance(event, McpQuestion):
                broker.answer(event.request_id, event.nonce, "accept", {})


async def main(url: str) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    settings = McpServerSettings(
        transport="http",
        url=url,
        oauth_client_id=context.get("client_id", ""),
        oauth_client_secret=context.get("client_secret", ""),
        oauth_client_metadata_url=CLIENT_METADATA_URL,
        startup_timeout_s=20,
    )
    spec = server_spec("conformance", settings, lambda _name: None)
    supervisor = ServerSupervisor(spec, max_restarts=0, on_tools=lambda _server: None)
    bus = EventBus()
    broker = QuestionBroker(bus)
    supervisor.ask = broker.ask
    answering = asyncio.create_task(person(bus, broker))
    supervisor.start()
    await supervisor.wait_started()
    if supervisor.status().state == "needs-sign-in":
        problem = await supervisor.sign_in(browse)
        if problem:
            print(f"sign-in failed: {problem}", file=sys.stderr)
            await supervisor.stop()
            return 1
    status = supervisor.status()
    print(f"{status.state}: tools {', '.join(status.tools)} {status.last_error}")
    try:
        if status.state != "running":
            return 1
        tools = {tool.name for tool in supervisor.tools}
        # Every scenario but the handshake one checks what happens during a call.
        for name in sorted(tools) if scenario != "initialize" else ():
            arguments = {"a": 5, "b": 3} if name == "add_numbers" else {}
            result = await supervisor.call(name, arguments)
            print(f"{name}: {result.text}")
        return 0
    finally:
        answering.cancel()
        await supervisor.stop()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[-1])))
