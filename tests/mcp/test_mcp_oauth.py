"""Signing in to remote MCP servers (OAuth): ARIA's store, redirect receiver, waiting and sign-out.

The protocol itself is proven by the official conformance suite (test_mcp_conformance.py);
here a real OAuth-protected MCP server built from the SDK's server side
(tests/fakes/oauth_mcp_server.py) checks what the user lives with: a server that needs a
sign-in waits instead of failing, signing in once is enough across restarts, an expired token is
refreshed without asking, and signing out revokes the token at the server.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import keyring
import keyring.backends.fail
import pytest

from aria_desktop.adapters.mcp import oauth
from aria_desktop.adapters.mcp.oauth import (
    GrantStore,
    LoopbackReceiver,
    McpSignInNeeded,
    grant_secret_name,
)
from aria_desktop.adapters.mcp.outcomes import sign_in_needed
from aria_desktop.adapters.mcp.spec import server_spec
from aria_desktop.adapters.mcp.supervisor import ServerSupervisor
from aria_desktop.domain.errors import McpServerError
from aria_desktop.settings.schema_mcp import McpServerSettings
from tests.fakes.oauth_mcp_server import oauth_mcp_server


@pytest.fixture(autouse=True)
def no_keyring() -> Iterator[None]:
    """No usable keyring: grants stay in this process's memory (forgotten after each test)."""
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())  # type: ignore[no-untyped-call]
    yield
    keyring.set_keyring(previous)
    oauth._IN_MEMORY.clear()


async def browse(url: str) -> None:
    """The person's browser: open the page, which approves at once, and follow its redirect."""
    async with httpx.AsyncClient(follow_redirects=False, timeout=10) as http:
        answer = await http.get(url)
        assert answer.status_code in {302, 303}, answer.text
        page = await http.get(answer.headers["location"])
        assert "You are signed in to" in page.text


def supervisor_for(url: str, name: str = "notes", **settings: object) -> ServerSupervisor:
    spec = server_spec(name, McpServerSettings(url=url, transport="http", **settings), dict().get)  # type: ignore[arg-type]
    return ServerSupervisor(spec, max_restarts=1, on_tools=lambda _server: None)


def test_a_grant_is_kept_under_a_keyring_name_made_from_the_server_name() -> None:
    assert grant_secret_name("Team Notes-2") == "mcp_oauth_team_notes_2"


async def test_without_a_keyring_the_grant_lasts_in_memory_and_says_so() -> None:
    from mcp.shared.auth import OAuthToken

    store = GrantStore("notes")
    await store.set_tokens(OAuthToken(access_token="a", refresh_token="r", expires_in=60))
    assert store.kept_in_memory
    again = GrantStore("notes")
    tokens = await again.get_tokens()
    assert tokens is not None
    assert tokens.refresh_token == "r"
    assert again.expires_at is not None
    assert again.signed_in
    assert again.forget()
    assert not GrantStore("notes").signed_in


async def test_the_redirect_receiver_takes_the_code_and_answers_the_page_in_words() -> None:
    receiver = LoopbackReceiver("notes", oauth.free_loopback_port())
    async with receiver.listening(), httpx.AsyncClient() as http:
        stray = await http.get(f"http://127.0.0.1:{receiver.port}/favicon.ico")
        assert stray.status_code == 404
        page = await http.get(f"{receiver.url}?code=abc&state=xyz")
        assert page.status_code == 200
        assert "signed in to notes" in page.text
        assert await receiver.result() == {"code": "abc", "state": "xyz"}


async def test_a_refused_sign_in_is_shown_on_the_page_and_reported() -> None:
    receiver = LoopbackReceiver("notes", oauth.free_loopback_port())
    async with receiver.listening(), httpx.AsyncClient() as http:
        page = await http.get(f"{receiver.url}?error=access_denied&error_description=You+said+no")
        assert "did not work: You said no" in page.text
        assert (await receiver.result())["error"] == "access_denied"


async def test_a_busy_sign_in_port_is_an_error_in_words() -> None:
    receiver = LoopbackReceiver("notes", oauth.free_loopback_port())
    async with receiver.listening():
        with pytest.raises(McpServerError, match=r"needs port .* which is in use"):
            async with LoopbackReceiver("notes", receiver.port).listening():
                pass


def test_a_sign_in_nobody_asked_for_is_found_inside_exception_groups_and_causes() -> None:
    outer = RuntimeError("transport closed")
    outer.__cause__ = McpSignInNeeded("notes")
    assert sign_in_needed(ExceptionGroup("task group", [ValueError(), outer]))
    assert not sign_in_needed(ExceptionGroup("task group", [ValueError("other")]))


def test_servers_with_their_own_authorization_header_or_a_command_never_sign_in() -> None:
    read = {"mcp_token": "t"}.get
    header = McpServerSettings(url="https://x.example/mcp", headers=("Authorization: Bearer x",))
    assert server_spec("a", header, read).oauth is None
    assert server_spec("b", McpServerSettings(command="srv"), read).oauth is None
    off = McpServerSettings(url="https://x.example/mcp", oauth=False)
    assert server_spec("c", off, read).oauth is None
    pre = McpServerSettings(
        url="https://x.example/mcp",
        oauth_client_id="aria",
        oauth_client_secret="keyring:mcp_token",
        oauth_scopes=("notes:read",),
    )
    options = server_spec("d", pre, read).oauth
    assert options is not None
    assert (options.client_id, options.client_secret, options.scopes) == (
        "aria",
        "t",
        ("notes:read",),
    )


async def test_a_server_that_needs_a_sign_in_waits_for_it_then_runs_and_is_refreshed_quietly() -> (
    None
):
    async with oauth_mcp_server() as server:
        first = supervisor_for(server.url)
        first.start()
        await first.wait_started()
        status = first.status()
        assert (status.state, status.signs_in) == ("needs-sign-in", True)
        assert status.restarts == 0  # waiting, not retrying
        assert await first.sign_in(browse) == ""
        assert first.status().state == "running"
        assert (await first.call("whoami", {})).text == "signed in"
        await first.stop()

        # A later start (ARIA restarted) uses the kept grant: no page opens.
        second = supervisor_for(server.url)
        second.start()
        await second.wait_started()
        assert second.status().state == "running"
        await second.stop()

        # The access token expired meanwhile: the refresh token gets a new one, no person asked.
        server.provider.expire_access_tokens()
        grant = GrantStore("notes")
        grant._save({**grant._load(), "expires_at": 1.0})
        third = supervisor_for(server.url)
        third.start()
        await third.wait_started()
        assert third.status().state == "running"
        assert server.provider.refreshed == 1
        assert (await third.call("whoami", {})).text == "signed in"

        # Signing out revokes the token at the server; the server then waits for a sign-in.
        said = await third.sign_out()
        assert said == "signed out (revoked)"
        assert server.provider.revoked
        assert not GrantStore("notes").signed_in
        await third.wait_started()
        assert third.status().state == "needs-sign-in"
        assert third.status().restarts == 0
        await third.stop()


async def test_signing_in_again_with_no_stored_grant_keeps_waiting_and_says_why() -> None:
    async with oauth_mcp_server() as server:
        supervisor = supervisor_for(server.url)
        supervisor.start()
        await supervisor.wait_started()
        # Another process did not sign in: connecting again without a browser keeps waiting.
        assert await supervisor.sign_in(None) == "needs you to sign in"
        assert supervisor.status().state == "needs-sign-in"
        await supervisor.stop()
