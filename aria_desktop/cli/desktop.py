"""``aria desktop``: the tray app, with ARIA in this process or attached to a running daemon.

In-process, the tray app is the owner (ARCHITECTURE.md: owner): it starts through the same
``owner.start_owner`` as ``aria daemon``, so it also serves the local HTTP API (and automations,
and voice when enabled). If a daemon already owns the data, it attaches to it instead.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aria_desktop import paths
from aria_desktop.adapters.storage.owner_lock import read_owner
from aria_desktop.cli._common import EXIT_OK, Subparsers
from aria_desktop.cli._settings_problems import problems_of
from aria_desktop.compose.assistant import connect_client, owner_client
from aria_desktop.domain.errors import DatabaseOwnedError, OwnerUnreachableError
from aria_desktop.settings import Settings, resolve_database_path

if TYPE_CHECKING:
    from aria_desktop.api.client.api_client import ApiClient
    from aria_desktop.gui.app import Connection

__all__ = ["local_connector", "register"]


def register(sub: Subparsers) -> None:
    """Add the ``desktop`` subcommand."""
    desktop = sub.add_parser("desktop", help="start the tray app (chat window, hotkeys, ...)")
    desktop.add_argument(
        "--attach",
        nargs="?",
        const="",
        metavar="URL",
        help="use the ARIA already running (daemon) instead of starting one here; "
        "URL defaults to the one the running owner advertises",
    )
    desktop.add_argument(
        "--no-tray", action="store_true", help="open the chat window instead of a tray icon"
    )
    desktop.add_argument(
        "--no-hotkeys", action="store_true", help="do not grab global hotkeys this time"
    )
    desktop.add_argument(
        "--no-wizard", action="store_true", help="do not show the first-run wizard this time"
    )
    desktop.set_defaults(sync_handler=_cmd_desktop)


def _cmd_desktop(args: argparse.Namespace, settings: Settings, started_at: float) -> int:
    from aria_desktop.compose.desktop_services import LocalSettingsService
    from aria_desktop.gui.app import DesktopOptions, run_desktop

    attach: str | None = args.attach

    async def connect_remote() -> Connection:
        return await _attached(await _attach_client(settings, attach or None))

    if attach == "" and read_owner(resolve_database_path(settings)) is None:
        raise _nothing_to_attach()  # before any window opens
    options = DesktopOptions(
        icons_dir=paths.resource_path("icons"),
        use_tray=False if args.no_tray else None,
        show_wizard=False if args.no_wizard else None,
        hotkeys=not args.no_hotkeys,
        started_at=started_at,
        settings_problems=problems_of(args),
    )
    # After the settings-problems window the user may have fixed the file: read it again.
    reread = bool(options.settings_problems)
    connector = connect_remote if attach is not None else local_connector(settings, reread=reread)
    status = run_desktop(connector, LocalSettingsService(), options)
    return status or EXIT_OK


def local_connector(
    settings: Settings,
    *,
    voice_source_factory: Callable[[], Any] | None = None,
    voice_sink: Any = None,
    reread: bool = False,
) -> Callable[[], Awaitable[Any]]:
    """How ``aria desktop`` starts ARIA in this process: it becomes the owner (like the daemon).

    Args:
        settings: the user's settings.
        reread: read the settings file again (tolerantly) when connecting, instead of
            ``settings``: the user was shown its problems and may have fixed them.
        voice_source_factory: where voice commands come from (None: the configured
            microphone); tests pass a WAV-file source.
        voice_sink: where speech goes (None: the configured speaker).

    Returns:
        The GUI's ``Connector`` (a coroutine function returning a ``gui.app.Connection``).
    """

    async def connect_local() -> Any:
        from aria_desktop.gui.app import Connection

        # The adapters' imports (httpx, the Anthropic SDK, SQLite) take about a second: do
        # them on a thread so the tray stays responsive while ARIA starts.
        await asyncio.to_thread(importlib.import_module, "aria_desktop.compose.owner")
        from aria_desktop.compose.owner import start_owner

        now = settings
        if reread:
            from aria_desktop.settings import load_settings_with_problems

            now = (await asyncio.to_thread(load_settings_with_problems)).settings
        try:
            # One owner path with the daemon: the core with memory, the local HTTP API,
            # automations, and voice (models load in the background; without a microphone the
            # "voice" capability says so and the app runs on).
            owner = await start_owner(
                now, voice_source_factory=voice_source_factory, voice_sink=voice_sink
            )
        except DatabaseOwnedError as exc:  # a daemon already owns the data: use it
            return await _attached(await owner_client(now, exc.port, exc.pid))
        return Connection(
            assistant=owner.assistant,
            label=f"running in this app, API on {owner.server.url}",
            aclose=owner.stop,
        )

    return connect_local


async def _attached(client: ApiClient) -> Connection:
    from aria_desktop.gui.app import Connection

    return Connection(
        assistant=client, label=f"attached to {client.base_url}", aclose=client.aclose
    )


async def _attach_client(settings: Settings, url: str | None) -> ApiClient:
    """A connected API client for ``url``, or for the owner the lock file advertises."""
    if url:
        return await connect_client(url)
    owner = read_owner(resolve_database_path(settings))
    if owner is None:
        raise _nothing_to_attach()
    return await owner_client(settings, owner.port, owner.pid)


def _nothing_to_attach() -> OwnerUnreachableError:
    return OwnerUnreachableError(
        "No ARIA is running to attach to.",
        hint="Start it with `aria daemon` (or `systemctl --user start aria`), or run "
        "`aria desktop` without --attach.",
    )
