"""``aria reminders``: list reminders and alarms, set one for a time said in words, cancel.

``aria reminders add "call mom" --at "tomorrow 9am"`` reads the time with the same parser as
"remind me tomorrow at 9 am to call mom" (``--at "every weekday at 7"`` recurs). Through the
owner's API when a daemon or the tray app runs (it tells the reminder when it is due);
otherwise the command opens the database itself and the reminder is told once ARIA runs
(late, if its time has passed by then).
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
from aria_desktop.domain.reminders import NewReminder, Reminder, ReminderKind
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.core.ports import ReminderAccess

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the ``reminders`` subcommand (no action: list them)."""
    parser = sub.add_parser("reminders", help="reminders and alarms: list, add, cancel")
    parser.set_defaults(handler=_cmd_reminders, action="list")
    _kind_options(parser)
    acts = parser.add_subparsers(dest="action", metavar="ACTION")
    _kind_options(
        acts.add_parser("list", help="pending ones, then those delivered in the last 7 days")
    )
    add = acts.add_parser("add", help='set one: add "call mom" --at "tomorrow 9am"')
    add.add_argument("text", nargs="?", default="", help="what to remind you of")
    add.add_argument(
        "--at",
        required=True,
        metavar="WHEN",
        help='"in 20 minutes", "4pm", "tomorrow 9am", "on friday at 6 pm", "every weekday at 7"',
    )
    add.add_argument("--alarm", action="store_true", help="an alarm (rings) instead")
    add.add_argument("--language", default="en", help="the language WHEN is in (en, de)")
    add.add_argument("--json", action="store_true")
    cancel = acts.add_parser("cancel", help="cancel one by its id, or --all")
    cancel.add_argument("reminder", nargs="?", default="", metavar="ID")
    cancel.add_argument("--all", action="store_true", help="cancel every pending one")
    _kind_options(cancel)


def _kind_options(parser: argparse.ArgumentParser) -> None:
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--alarms", action="store_true", help="alarms only")
    only.add_argument("--reminders", action="store_true", help="reminders only")
    parser.add_argument("--json", action="store_true")


def _open_reminders(
    settings: Settings, *, adding: bool
) -> contextlib.AbstractAsyncContextManager[ReminderAccess]:
    """The owner's reminders over its API, or the database opened here (closed on exit)."""
    from aria_desktop.compose.reminders import open_reminder_access

    return owner_or_local(
        settings,
        lambda client: client.reminders,
        lambda: open_reminder_access(settings),
        note_here="ARIA is not running: the reminder is kept and told once ARIA runs."
        if adding
        else "",
    )


def _kind(args: argparse.Namespace) -> ReminderKind | None:
    if getattr(args, "alarms", False):
        return "alarm"
    return "reminder" if getattr(args, "reminders", False) else None


def _line(reminder: Reminder) -> str:
    due = time.strftime("%a %d %b %H:%M", time.localtime(reminder.due_at))
    rule = f"  (cron {reminder.recurrence})" if reminder.recurrence else ""
    late = " late" if reminder.late and reminder.state == "delivered" else ""
    what = (reminder.text or "(alarm)") if reminder.kind == "alarm" else reminder.text
    return f"{reminder.id}  {reminder.kind:<8} {reminder.state + late:<14} {due}  {what}{rule}"


async def _cmd_reminders(args: argparse.Namespace, settings: Settings) -> int:
    action = args.action
    if action == "add" and not args.alarm and not args.text.strip():
        err('Say what to remind you of: aria reminders add "call mom" --at "tomorrow 9am".')
        return EXIT_USAGE
    if action == "cancel" and not args.reminder and not args.all:
        err("Say which one: aria reminders cancel ID (aria reminders lists them), or --all.")
        return EXIT_USAGE
    async with _open_reminders(settings, adding=action == "add") as reminders:
        shown: list[Reminder]
        if action == "add":
            kind: ReminderKind = "alarm" if args.alarm else "reminder"
            new = NewReminder(text=args.text, when=args.at, kind=kind, language=args.language)
            shown = [await reminders.add_reminder(new)]
        elif action == "cancel" and args.all:
            shown = await reminders.cancel_all_reminders(_kind(args))
        elif action == "cancel":
            shown = [await reminders.cancel_reminder(args.reminder)]
        else:
            shown = await reminders.list_reminders(kind=_kind(args))
    return _show(args, shown)


def _show(args: argparse.Namespace, shown: list[Reminder]) -> int:
    if args.json:
        data: Any = [dataclasses.asdict(r) for r in shown]
        print_json(data[0] if args.action == "add" else data)
        return EXIT_OK
    if not shown:
        err(
            "No reminders or alarms."
            if args.action in (None, "list")
            else "There was nothing to cancel."
        )
    verb = {"add": "Set", "cancel": "Cancelled"}
    for reminder in shown:
        prefix = f"{verb[args.action]}: " if args.action in verb else ""
        print(prefix + _line(reminder))
    return EXIT_OK
