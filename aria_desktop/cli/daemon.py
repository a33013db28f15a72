"""``aria daemon``, ``aria status`` and ``aria token``: the headless owner and its API."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from typing import Any

from aria_desktop import __version__, paths
from aria_desktop.cli._common import EXIT_OK, Subparsers, err, print_json
from aria_desktop.cli._settings_problems import SHOWS_PROBLEMS, problems_of, tell_problems
from aria_desktop.settings import Settings, resolve_database_path

__all__ = ["register"]

EXIT_NOT_RUNNING = 3
"""``aria status`` exit status when no ARIA runs (as ``systemctl status`` does)."""


def register(sub: Subparsers) -> None:
    """Add the ``daemon``, ``status`` and ``token`` subcommands."""
    daemon = sub.add_parser("daemon", help="run ARIA headless: core + local HTTP API")
    daemon.add_argument("--host", help="listen address (default: api.host)")
    daemon.add_argument("--port", type=int, help="API port (default: api.port; 0 = any)")
    daemon.set_defaults(handler=_cmd_daemon)

    status = sub.add_parser("status", help="show whether ARIA runs, and where")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=_cmd_status, **{SHOWS_PROBLEMS: True})

    token = sub.add_parser("token", help="show or rotate the local API token")
    token_sub = token.add_subparsers(dest="action", required=True, metavar="ACTION")
    token_sub.add_parser("show", help="print the token (creating it if needed)")
    token_sub.add_parser("rotate", help="issue a new token; the old one stops working at once")
    token_sub.add_parser("path", help="print the token file's path")
    token.set_defaults(handler=_cmd_token)


async def _cmd_daemon(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.compose.owner import Owner, start_owner
    from aria_desktop.daemon import run_until_stopped

    api = settings.api
    if args.host is not None or args.port is not None:
        api = dataclasses.replace(
            api,
            host=args.host if args.host is not None else api.host,
            port=args.port if args.port is not None else api.port,
        )
        settings = dataclasses.replace(settings, api=api)

    async def start() -> Owner:
        return await start_owner(settings)

    async def stop(owner: Owner) -> None:
        await owner.stop()

    def ready(owner: Owner) -> None:
        names = ", ".join(spec.name for spec in owner.automations.specs) or "none"
        err(f"ARIA {__version__} running (pid {os.getpid()}); API on {owner.server.url}")
        err(f"Automations: {names}. Stop with Ctrl+C or SIGTERM.")

    await run_until_stopped(start, stop, on_ready=ready)
    return EXIT_OK


async def _cmd_status(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.adapters.storage.owner_lock import read_owner
    from aria_desktop.api.config import client_host

    owner = read_owner(resolve_database_path(settings))
    info: dict[str, Any] = {"running": owner is not None}
    problems = problems_of(args)
    if args.json:
        info["settings_problems"] = [problem.to_dict() for problem in problems]
    else:
        tell_problems(problems)  # first: they hold whether it is running or not
    if owner is None:
        if args.json:
            print_json(info)
        else:
            print("ARIA is not running.")
            print(
                "Start it with `aria desktop` (the tray app) or `aria daemon` (no window); "
                "commands like `aria chat` also work without it."
            )
        return EXIT_NOT_RUNNING
    info.update(pid=owner.pid, port=owner.port, started_at=owner.started_at)
    if owner.port is not None:
        url = f"http://{client_host(settings.api.host)}:{owner.port}"
        info["url"] = url
        info.update(await _probe(url))
    if args.json:
        print_json(info)
        return EXIT_OK
    uptime_s = time.time() - owner.started_at
    print(f"ARIA is running: pid {owner.pid}, up {_duration(uptime_s)}.")
    if owner.port is None:
        print("Its local API is not listening (yet).")
        return EXIT_OK
    print(f"API: {info['url']} ({info.get('health', 'no answer')})")
    if "version" in info:
        print(f"Version: {info['version']}")
    if "state" in info:
        print(f"State: {info['state']}")
    for capability in info.get("capabilities", []):
        mark = "yes" if capability["available"] else f"no — {capability['reason']}"
        print(f"  {capability['name']}: {mark}")
    if "error" in info:
        err(f"Note: {info['error']}")
    return EXIT_OK


async def _probe(url: str) -> dict[str, Any]:
    """Health (no token), then state and capabilities (token) of a running owner."""
    import httpx

    from aria_desktop.api.token import TokenFile
    from aria_desktop.domain.errors import AriaError

    found: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=url, timeout=3.0) as client:
        try:
            health = (await client.get("/api/v1/health")).json()
            found.update(health="healthy", version=health.get("version", "?"))
        except (httpx.HTTPError, ValueError) as exc:
            found["health"] = f"not answering: {exc.__class__.__name__}"
            return found
        try:
            token = TokenFile(paths.api_token_path()).read()
            headers = {"Authorization": f"Bearer {token}"}
            state = await client.get("/api/v1/state", headers=headers)
            caps = await client.get("/api/v1/capabilities", headers=headers)
            if state.status_code == 200:
                found["state"] = state.json()["state"]
                found["capabilities"] = caps.json()
            else:
                found["error"] = f"the API answered {state.status_code} to our token"
        except AriaError as exc:
            found["error"] = exc.message
        except (httpx.HTTPError, ValueError) as exc:
            found["error"] = exc.__class__.__name__
    return found


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(max(0.0, seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {secs} s"


async def _cmd_token(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.api.token import TokenFile

    token = TokenFile(paths.api_token_path())
    if args.action == "path":
        print(token.path)
    elif args.action == "show":
        token.ensure()
        print(token.read())
    else:
        print(token.rotate())
        err("The old token no longer works, also for a running ARIA. Update your scripts.")
    if sys.stdout.isatty() and args.action != "path":
        err("Keep it secret: anyone with this token can use ARIA as you.")
    return EXIT_OK
