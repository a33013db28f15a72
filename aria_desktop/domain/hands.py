"""Facts the file and shell tools exchange between their adapter and the core.

Plain frozen dataclasses (ARCHITECTURE.md: layers): the adapter in ``hands/`` produces them,
``core/hands/`` turns them into tool results and confirmation texts.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FileChange", "ShellOutcome"]


@dataclass(frozen=True, kw_only=True)
class ShellOutcome:
    """How one shell command ended and what it printed (head and tail kept).

    Attributes:
        output_id: the stored full output (paged with the ``shell_output`` tool).
        exit_code: the process's exit status (negative: killed by that signal).
        timed_out: it ran past its timeout and its whole process group was killed.
        duration_s: wall time, seconds.
        total_bytes: bytes printed (stdout and stderr together).
        head: the first bytes of the output, decoded.
        tail: the last bytes of the output, decoded ("" when ``head`` holds everything).
    """

    output_id: str
    exit_code: int
    timed_out: bool
    duration_s: float
    total_bytes: int
    head: str
    tail: str = ""


@dataclass(frozen=True, kw_only=True)
class FileChange:
    """A change to one file, computed before it is made (shown to the user to confirm).

    Attributes:
        path: the resolved absolute path.
        display: the path as the user reads it (``~/...``).
        diff: unified diff of the change (empty for a new empty file).
        token: the file's state when the change was computed (``absent`` or a SHA-256 of its
            bytes); the change is applied only to a file still in that state.
        content: the file's text after the change.
        created: the file does not exist yet.
    """

    path: str
    created: bool
    display: str
    diff: str
    token: str
    content: str
