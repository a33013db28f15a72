"""``aria audit``: read and verify the hash-chained audit log."""

from __future__ import annotations

import argparse
import dataclasses
import json

from aria_desktop.cli._args import add_actions
from aria_desktop.cli._common import EXIT_FAILURE, EXIT_OK, Subparsers, err, fmt_time, print_json
from aria_desktop.settings import Settings

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the ``audit`` subcommand."""
    audit_sub = add_actions(sub, "audit", "the tamper-evident log of tool calls", _cmd_audit)
    audit_list = audit_sub.add_parser("list", help="print records")
    audit_list.add_argument("--limit", type=int, default=50, help="last N records (0 = all)")
    audit_list.add_argument("--json", action="store_true")
    audit_sub.add_parser("verify", help="check the hash chain; report the first bad record")


async def _cmd_audit(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.compose.app import open_audit_log

    audit = open_audit_log()
    if args.action == "verify":
        report = audit.verify()
        if report.ok:
            print(f"OK: {report.records} records, chain and checkpoint intact.")
            return EXIT_OK
        print(f"FAIL: record {report.first_bad_seq}: {report.reason}")
        return EXIT_FAILURE
    records = list(audit.records(limit=args.limit or None))
    for record in records:
        if args.json:
            print_json(dataclasses.asdict(record))  # seq, ts, kind, data, prev, hash
        else:
            data = json.dumps(dict(record.data), ensure_ascii=False)
            print(f"{record.seq:>6}  {fmt_time(record.ts)}  {record.kind:16} {data[:160]}")
    if not records and not args.json:
        err("The audit log is empty: no tool has been called yet.")
    return EXIT_OK
