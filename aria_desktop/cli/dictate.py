"""``aria dictate``: speak, and the words are typed into the focused window.

The running ARIA (the tray app or the daemon) holds the microphone, so this asks it over its
API. With no action ARIA listens now and types at the next pause, and the command prints what
was typed. ``press`` and ``release`` are for a key binding of the desktop's own (sway:
``bindsym --no-repeat $mod+d exec aria dictate press`` and
``bindsym --release $mod+d exec aria dictate release``); ``toggle`` starts or ends one.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from typing import TYPE_CHECKING

from aria_desktop.cli._common import EXIT_FAILURE, EXIT_OK, Subparsers, answer_confirmation, err
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.api.client.api_client import ApiClient
    from aria_desktop.domain.commands import PushToTalk

__all__ = ["register"]

_WAIT_S = 120.0
"""How long ``aria dictate`` waits for the dictation to end (listening, then typing)."""


def register(sub: Subparsers) -> None:
    """Add the ``dictate`` subcommand."""
    parser = sub.add_parser(
        "dictate", help="speak, and the words are typed into the focused window"
    )
    parser.add_argument(
        "action",
        nargs="?",
        default="listen",
        choices=("listen", "press", "release", "toggle"),
        help="listen (default: now, until the next pause), or press/release/toggle for a "
        "key binding",
    )
    parser.set_defaults(handler=_cmd_dictate)


async def _cmd_dictate(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.adapters.storage.owner_lock import read_owner
    from aria_desktop.compose.assistant import owner_client
    from aria_desktop.settings import resolve_database_path

    owner = read_owner(resolve_database_path(settings))
    if owner is None:
        err("ARIA is not running: dictation uses the microphone of the running ARIA.")
        err("Start it first (`aria desktop` or `aria daemon`), then dictate again.")
        return EXIT_FAILURE
    async with await owner_client(settings, owner.port, owner.pid) as client:
        if args.action != "listen":
            await client.execute(_push(args.action))
            return EXIT_OK
        return await _listen_and_type(client)


def _push(action: str) -> PushToTalk:
    from aria_desktop.domain.commands import PushToTalk

    return PushToTalk(action=action, purpose="dictate")


async def _listen_and_type(client: ApiClient) -> int:
    """Listen now, answer a confirmation at the terminal, print what was typed."""
    from aria_desktop.domain.events import ActionConfirmRequest, ErrorEvent
    from aria_desktop.domain.voice_events import DictationEnd

    sub = client.subscribe(
        types=frozenset({DictationEnd.type, ErrorEvent.type, ActionConfirmRequest.type})
    )
    try:
        await client.execute(_push("listen"))
        err("Listening: speak, then pause.")
        async with asyncio.timeout(_WAIT_S):
            async for event in sub:
                if isinstance(event, ActionConfirmRequest) and event.tool == "computer":
                    await answer_confirmation(client, event, what=event.summary)
                elif isinstance(event, ErrorEvent):
                    err(event.message)
                    return EXIT_FAILURE
                elif isinstance(event, DictationEnd):
                    if event.status == "typed":
                        print(event.text)
                        return EXIT_OK
                    err(event.detail)
                    return EXIT_FAILURE
    except TimeoutError:
        err("No dictation ended in time; nothing more will be typed.")
    finally:
        with contextlib.suppress(Exception):
            sub.close()
    return EXIT_FAILURE
