"""``aria timers``: list the running timers, start one, pause, resume or cancel them.

Through the owner's API when a daemon or the tray app runs (it rings when a timer ends);
otherwise the command opens the database itself and the timer rings once ARIA runs (or is
announced as missed, if it ended before).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import time
from typing import TYPE_CHECKING, Any

from aria_desktop.cli._common import (
    EXIT_OK,
    EXIT_USAGE,
    Subparsers,
    err,
    owner_or_local,
    print_json,
)
from aria_desktop.domain.timers import Timer, parse_duration
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.core.ports import TimerAccess

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the ``timers`` subcommand (no action: list them)."""
    parser = sub.add_parser("timers", help="kitchen timers: list, start, pause, resume, cancel")
    parser.set_defaults(handler=_cmd_timers, action="list")
    parser.add_argument("--json", action="store_true")
    acts = parser.add_subparsers(dest="action", metavar="ACTION")
    acts.add_parser("list", help="running and paused timers").add_argument(
        "--json", action="store_true"
    )
    start = acts.add_parser("start", help="start a timer: 5m, 1h30m, 90s, 10 (minutes)")
    start.add_argument("duration")
    start.add_argument("--name", default="", help='what it is for ("pasta")')
    start.add_argument("--json", action="store_true")
    for action, what in (("pause", "pause"), ("resume", "resume"), ("cancel", "cancel")):
        one = acts.add_parser(action, help=f"{what} a timer by its name or id")
        one.add_argument("timer", nargs="?", default="", metavar="NAME|ID")
        if action == "cancel":
            one.add_argument("--all", action="store_true", help="cancel every timer")
        one.add_argument("--json", action="store_true")


def _open_timers(
    settings: Settings, *, starting: bool
) -> contextlib.AbstractAsyncContextManager[TimerAccess]:
    """The owner's timers over its API, or the database opened here (closed on exit)."""
    from aria_desktop.compose.timers import open_timer_access

    return owner_or_local(
        settings,
        lambda client: client.timers,
        lambda: open_timer_access(settings),
        note_here="ARIA is not running: the timer is kept and rings once ARIA runs."
        if starting
        else "",
    )


def _left(seconds: float) -> str:
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def _line(timer: Timer) -> str:
    name = timer.name or "(no name)"
    if timer.state == "running" and timer.ends_at is not None:
        when = f"ends {time.strftime('%H:%M:%S', time.localtime(timer.ends_at))}"
    else:
        when = timer.state
    return f"{timer.id}  {_left(timer.remaining_s):>8} left  {when:<14} {name}"


async def _cmd_timers(args: argparse.Namespace, settings: Settings) -> int:
    action = args.action
    duration = 0.0
    if action == "start":
        try:
            duration = parse_duration(args.duration)
        except ValueError as exc:
            err(f"Error: {exc}.")
            return EXIT_USAGE
    if action in ("pause", "resume", "cancel") and not args.timer and not getattr(args, "all", 0):
        err(f"Say which timer to {action}: aria timers {action} NAME|ID (aria timers lists them).")
        return EXIT_USAGE
    async with _open_timers(settings, starting=action == "start") as timers:
        shown: list[Timer]
        if action == "start":
            shown = [await timers.start_timer(duration, name=args.name)]
        elif action == "cancel" and args.all:
            shown = await timers.cancel_all_timers()
        elif action in ("pause", "resume", "cancel"):
            change = {
                "pause": timers.pause_timer,
                "resume": timers.resume_timer,
                "cancel": timers.cancel_timer,
            }
            shown = [await change[action](args.timer)]
        else:
            shown = await timers.list_timers()
    return _show(args, shown)


def _show(args: argparse.Namespace, shown: list[Timer]) -> int:
    if args.json:
        data: Any = [dataclasses.asdict(t) for t in shown]
        print_json(data[0] if args.action in ("start", "pause", "resume") else data)
        return EXIT_OK
    if not shown:
        err(
            "No timers running."
            if args.action in (None, "list")
            else "There were no timers to cancel."
        )
    verb = {"start": "Started", "pause": "Paused", "resume": "Resumed", "cancel": "Cancelled"}
    for timer in shown:
        prefix = f"{verb[args.action]}: " if args.action in verb else ""
        print(prefix + _line(timer))
    return EXIT_OK
