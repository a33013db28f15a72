"""The process id of a stdio server ARIA started (for ``aria mcp servers``).

The SDK does not expose the child process, so on Linux it is looked up among ARIA's own
children by its command line in ``/proc``; elsewhere (or when it cannot be told apart) the
status shows none.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

__all__ = ["find_child"]

_PROC = Path("/proc")


def _children(parent: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = list((_PROC / str(parent) / "task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(pid) for pid in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return found


def find_child(command: str, args: Sequence[str], taken: set[int]) -> int | None:
    """ARIA's child process running ``command args`` not in ``taken``, newest first."""
    wanted = [os.path.basename(command), *args]
    for pid in sorted(_children(os.getpid()), reverse=True):
        if pid in taken:
            continue
        try:
            raw = (_PROC / str(pid) / "cmdline").read_bytes()
        except OSError:
            continue
        parts = [part.decode(errors="replace") for part in raw.split(b"\0") if part]
        names = [os.path.basename(part) for part in parts]
        tail = names[-len(wanted) :] == wanted
        # An interpreter may run the command as a script: its name and arguments end the line.
        script = os.path.basename(command) in names and parts[-len(args) :] == list(args)
        if tail or (script and args):
            return pid
    return None
