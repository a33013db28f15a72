"""The ``Assistant`` a CLI command works with: the running owner's API, or ARIA in-process.

When a daemon or the tray app owns the database, commands go through its local API (reading
the token from the token file, never from argv); otherwise the command builds the core itself
and owns the database until it finishes.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from aria_desktop import paths
from aria_desktop.adapters.storage.owner_lock import read_owner
from aria_desktop.domain.errors import DatabaseOwnedError, OwnerUnreachableError
from aria_desktop.settings import Settings, resolve_database_path

if TYPE_CHECKING:
    # The client pulls in httpx and the core ports: imported when a command connects, so
    # that ``aria --help`` and commands without an owner do not pay for them
    # (ARCHITECTURE.md: start-up cost).
    from aria_desktop.api.client.api_client import ApiClient
    from aria_desktop.core.ports import Assistant

__all__ = ["connect_client", "open_assistant", "owner_client"]


async def owner_client(settings: Settings, port: int | None, pid: int) -> ApiClient:
    """A connected client for the owner listening on ``port``."""
    if port is None:
        raise OwnerUnreachableError(
            f"ARIA (pid {pid}) owns the database but serves no API yet.",
            hint="It may still be starting; try again in a moment, or stop it.",
        )
    from aria_desktop.api.config import client_host

    return await connect_client(f"http://{client_host(settings.api.host)}:{port}")


async def connect_client(url: str) -> ApiClient:
    """A connected client for the API at ``url``, with the token from the token file."""
    from aria_desktop.api.client.api_client import ApiClient
    from aria_desktop.api.token import TokenFile

    token_file = TokenFile(paths.api_token_path())
    client = ApiClient(url, token_file.read(), token_file=token_file)
    try:
        await client.connect()
    except BaseException:
        await client.aclose()
        raise
    return client


@contextlib.asynccontextmanager
async def open_assistant(
    settings: Settings, *, mcp_servers: bool = False
) -> AsyncIterator[Assistant]:
    """The running owner's API client, or a core built here (closed on exit).

    ``mcp_servers``: a core built here starts the MCP servers too and waits (at most their
    start-up timeouts) until they run, so a one-shot ``aria chat`` can use their tools.
    """
    owner = read_owner(resolve_database_path(settings))
    if owner is not None:
        client = await owner_client(settings, owner.port, owner.pid)
        async with client:
            yield client
        return
    from aria_desktop.compose.app import build_app

    try:
        app = await build_app(settings, mcp_servers=mcp_servers)
    except DatabaseOwnedError as exc:  # an owner started just now
        client = await owner_client(settings, exc.port, exc.pid)
        async with client:
            yield client
        return
    try:
        if app.mcp is not None and settings.mcp.servers:
            longest = max(s.startup_timeout_s for s in settings.mcp.servers.values())
            await app.mcp.wait_started(longest)
        yield app.assistant
    finally:
        await app.aclose()
