"""A remote MCP server that refuses ARIA is reported with its first answer, not the fallback's.

A server behind OAuth answers the streamable HTTP request with 401 and a ``WWW-Authenticate``
challenge; ARIA then tries the older SSE transport, which such a server does not have (404).
The cause the user needs is the 401 and its challenge: the SSE 404 alone hid it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aria_desktop.adapters.mcp.hub import build_hub
from aria_desktop.settings.schema_mcp import McpServerSettings, McpSettings
from tests.fakes.http_server import FakeHTTPServer, RecordedRequest, Reply

CHALLENGE = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'


class SignInServer(FakeHTTPServer):
    """``POST /mcp`` wants a bearer token (401 with a challenge); there is no SSE endpoint."""

    def __init__(self) -> None:
        super().__init__()
        self.routes[("POST", "/mcp")] = self._unauthorized
        self.routes[("GET", "/mcp")] = lambda _request: Reply(status=404, body=b"not found")

    @staticmethod
    def _unauthorized(_request: RecordedRequest) -> Reply:
        return Reply(
            status=401,
            headers={"WWW-Authenticate": CHALLENGE, "Content-Type": "application/json"},
            body=b'{"error": "invalid_token"}',
        )


@pytest.fixture
def server() -> Iterator[SignInServer]:
    fake = SignInServer().start()
    try:
        yield fake
    finally:
        fake.stop()


async def test_a_401_then_an_sse_404_reports_the_401_and_its_challenge(
    server: SignInServer,
) -> None:
    spec = McpServerSettings(url=f"{server.url}/mcp", startup_timeout_s=10.0)
    hub = build_hub(McpSettings(servers={"remote": spec}, max_restarts=0), lambda _name: None)
    hub.start()
    try:
        await hub.wait_started(30)
        status = hub.statuses()[0]
    finally:
        await hub.aclose()
    assert status.state == "failed"
    assert "401" in status.last_error
    assert CHALLENGE in status.last_error
    assert "404" in status.last_error  # the fallback's answer is kept too, after the cause
    assert status.last_error.index("401") < status.last_error.index("404")
