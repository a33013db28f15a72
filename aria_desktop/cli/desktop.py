"""``aria desktop``: the tray app, with ARIA in this process or attached to a running daemon."""

from __future__ import annotations

import argparse
import asyncio
import importlib
from collections.abc import Awaitable, Callable
from typing import Any, cast

from aria_desktop import paths
from aria_desktop.cli._common import EXIT_OK, Subparsers
from aria_desktop.core.ports import Assistant
from aria_desktop.domain.errors import AriaError
from aria_desktop.settings import Settings

__all__ = ["local_connector", "register"]

ATTACH_NEEDS_API = (
    "`aria desktop --attach` needs ARIA's HTTP API, which this installation does not include."
)


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
    from aria_desktop.cli._desktop_services import LocalSettingsService
    from aria_desktop.gui.app import Connection, DesktopOptions, run_desktop

    attach: str | None = args.attach

    async def connect_remote() -> Connection:
        client_module = _api_client_module()
        client: Any = await client_module.connect(settings, url=attach or None)
        return Connection(
            assistant=cast(Assistant, client),
            label=f"attached to {getattr(client, 'base_url', 'the running ARIA')}",
            aclose=client.aclose,
        )

    if attach is not None:
        _api_client_module()  # fail before any window opens
    options = DesktopOptions(
        icons_dir=paths.resource_path("icons"),
        use_tray=False if args.no_tray else None,
        show_wizard=False if args.no_wizard else None,
        hotkeys=not args.no_hotkeys,
        started_at=started_at,
    )
    connector = connect_remote if attach is not None else local_connector(settings)
    status = run_desktop(connector, LocalSettingsService(), options)
    return status or EXIT_OK


def local_connector(
    settings: Settings,
    *,
    voice_source_factory: Callable[[], Any] | None = None,
    voice_sink: Any = None,
) -> Callable[[], Awaitable[Any]]:
    """How ``aria desktop`` starts ARIA in this process: the orchestrator with memory and voice.

    Args:
        settings: the user's settings.
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
        await asyncio.to_thread(importlib.import_module, "aria_desktop.bootstrap")
        from aria_desktop.bootstrap import build_app, start_voice

        app = await build_app(settings)
        try:
            # Voice models load in the background; without a microphone the "voice"
            # capability says so (tray items disabled with the reason) and the app runs on.
            await start_voice(app, source_factory=voice_source_factory, sink=voice_sink)
        except BaseException:
            await app.aclose()
            raise
        return Connection(
            assistant=app.assistant,  # with long-term memory
            label="running in this app",
            aclose=app.aclose,
        )

    return connect_local


def _api_client_module() -> Any:
    """``aria_desktop.api.client`` (built separately); a clear error when it is absent."""
    try:
        return importlib.import_module("aria_desktop.api.client")
    except ImportError as exc:
        raise AriaError(
            ATTACH_NEEDS_API, hint="Run `aria desktop` without --attach to start ARIA here."
        ) from exc
