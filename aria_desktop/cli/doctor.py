"""``aria doctor``: what works, what does not, and how to fix it."""

from __future__ import annotations

import argparse

from aria_desktop.cli._common import EXIT_FAILURE, EXIT_OK, Subparsers, print_json
from aria_desktop.cli._settings_problems import SHOWS_PROBLEMS, problems_of
from aria_desktop.settings import Settings

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the ``doctor`` subcommand."""
    doctor = sub.add_parser("doctor", help="check the set-up and explain how to fix problems")
    doctor.add_argument("--json", action="store_true")
    doctor.set_defaults(handler=_cmd_doctor, **{SHOWS_PROBLEMS: True})


async def _cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.doctor import run_checks

    results = await run_checks(settings, problems_of(args))
    if args.json:
        print_json([r.__dict__ for r in results])
    else:
        for r in results:
            print(f"{r.status:4}  {r.name:18} {r.detail}")
            if r.fix and r.status != "OK":
                print(f"      {'':18} fix: {r.fix}")
    return EXIT_FAILURE if any(r.status == "FAIL" for r in results) else EXIT_OK
