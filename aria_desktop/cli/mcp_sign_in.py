"""``aria mcp login|logout NAME``: signing in to a remote MCP server that asks for OAuth.

``login`` signs in from this process (its own connection to the server, the address printed
and opened in the browser, the redirect received on a loopback port) and keeps the grant in
the keyring; a running owner is then told to connect again with it. ``logout`` revokes the
grant where the server offers revocation and forgets it: through the owner when one runs, so
its connection ends too (ARCHITECTURE.md: MCP).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from aria_desktop.cli._common import EXIT_FAILURE, EXIT_OK, err
from aria_desktop.domain.errors import ConfigError

if TYPE_CHECKING:
    from aria_desktop.adapters.mcp.spec import ServerSpec
    from aria_desktop.api.client.api_client import ApiClient
    from aria_desktop.settings import Settings

__all__ = ["login", "logout"]


def _spec(settings: Settings, name: str) -> ServerSpec:
    from aria_desktop import keystore
    from aria_desktop.adapters.mcp.spec import server_spec

    server = settings.mcp.servers.get(name)
    if server is None:
        known = ", ".join(sorted(settings.mcp.servers)) or "none"
        raise ConfigError(
            f"There is no MCP server named {name!r} (configured: {known}).",
            hint="See `aria mcp servers`.",
        )
    spec = server_spec(name, server, keystore.get_secret)
    if spec.oauth is None:
        raise ConfigError(
            f"{name} does not sign in: it is a local command, has its own Authorization "
            "header, or has oauth = false.",
        )
    return spec


@contextlib.asynccontextmanager
async def _owner(settings: Settings) -> AsyncIterator[ApiClient | None]:
    """The running owner's API client, or None."""
    from aria_desktop.adapters.storage.owner_lock import read_owner
    from aria_desktop.settings import resolve_database_path

    owner = read_owner(resolve_database_path(settings))
    if owner is None:
        yield None
        return
    from aria_desktop.compose.assistant import owner_client

    async with await owner_client(settings, owner.port, owner.pid) as client:
        yield client


async def _show(url: str) -> None:
    import webbrowser

    print(f"Open this address to sign in (a browser opens by itself where it can):\n  {url}")
    with contextlib.suppress(Exception):
        await asyncio.to_thread(webbrowser.open, url)


async def login(settings: Settings, name: str) -> int:
    """Sign in to ``name`` and keep the grant; tell a running owner to use it."""
    from aria_desktop.adapters.mcp.supervisor import ServerSupervisor
    from aria_desktop.domain.commands import SignInMcpServer

    spec = _spec(settings, name)
    supervisor = ServerSupervisor(spec, max_restarts=0, on_tools=lambda _server: None)
    supervisor.start()
    try:
        await supervisor.wait_started()
        status = supervisor.status()
        if status.state == "running":
            print(f"Already signed in to {name}.")
        elif status.state == "needs-sign-in":
            problem = await supervisor.sign_in(_show)
            if problem:
                err(f"Signing in to {name} did not work: {problem}")
                return EXIT_FAILURE
            print(f"Signed in to {name} ({len(supervisor.tools)} tools).")
        else:
            err(f"{name} could not be reached: {status.last_error or status.state}")
            return EXIT_FAILURE
        in_memory = supervisor.grant_in_memory
    finally:
        await supervisor.stop()
    async with _owner(settings) as client:
        if in_memory:
            err(
                "No keyring keeps the sign-in on this computer, so it ended with this command. "
                "Sign in on the MCP page of the desktop app instead: it lasts until ARIA quits."
            )
            return EXIT_FAILURE
        if client is not None:
            problem = await client.execute(SignInMcpServer(server=name, browser=False))
            print(
                f"The running ARIA {'could not use it: ' + problem if problem else 'uses it now'}."
            )
    return EXIT_OK


async def logout(settings: Settings, name: str) -> int:
    """Revoke and forget the sign-in to ``name`` (through the owner when one runs)."""
    from aria_desktop.adapters.mcp.oauth import GrantStore, revoke_grant
    from aria_desktop.domain.commands import SignOutMcpServer

    spec = _spec(settings, name)
    assert spec.oauth is not None
    async with _owner(settings) as client:
        if client is not None:
            said = await client.execute(SignOutMcpServer(server=name))
        else:
            said = await revoke_grant(GrantStore(name), spec.oauth)
    print(f"{name}: {said}.")
    return EXIT_OK
