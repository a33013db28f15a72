"""The ``[tools]`` settings: where the file tools may reach and whether the shell is on.

Kept in its own module beside ``schema.py`` (which holds only the field in ``Settings``); limits
sit beside each field the way ``settings/rules.py`` describes. Paths may start with ``~``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aria_desktop.settings.rules import POSITIVE, rules

__all__ = ["FileToolSettings", "ShellSettings", "ToolsSettings"]


@dataclass(frozen=True)
class FileToolSettings:
    """The file tools (list, read, write, edit, move, trash, find).

    Attributes:
        roots: folders the file and shell tools may use (``~`` = the home folder). Secret
            stores (``~/.ssh``, ``~/.gnupg``, keyrings, browser profiles, password databases)
            and ARIA's own data stay out of reach whatever is listed here.
        exclude: further folders never reachable.
        allow_hidden: dot-files and dot-folders below a root are reachable.
        read_max_kb: the most text one read returns, KiB (larger files are read in parts; at
            most 15 so a part fits in one tool result).
        edit_max_kb: the largest file that is edited or written over, KiB.
    """

    roots: tuple[str, ...] = ("~",)
    exclude: tuple[str, ...] = ()
    allow_hidden: bool = False
    read_max_kb: int = field(default=12, metadata=rules(minimum=(1.0, True), maximum=15.0))
    edit_max_kb: int = field(default=1024, metadata=rules(minimum=(1.0, True), maximum=65536.0))


@dataclass(frozen=True)
class ShellSettings:
    """The shell tool: one argv command at a time, approved by what it would do.

    Attributes:
        enabled: the model may run commands (off by default).
        timeout_s: a command's time limit when the model names none, seconds.
        folders: folders a command may run in ("" entries ignored; empty: the file roots).
        max_timeout_s: the longest time limit the model may ask for, seconds.
        scratch: a folder where commands' writes are told apart as scratch writes ("": no
            scratch folder); they are still asked about.
        output_kb: output kept for the model, KiB (half head, half tail, at most 14 so both fit
            in one tool result; the full output is stored and paged with ``shell_output``).
    """

    enabled: bool = False
    timeout_s: float = field(default=30.0, metadata=POSITIVE)
    folders: tuple[str, ...] = ()
    max_timeout_s: float = field(default=300.0, metadata=POSITIVE)
    scratch: str = "~/aria-scratch"
    output_kb: int = field(default=8, metadata=rules(minimum=(1.0, True), maximum=14.0))


@dataclass(frozen=True)
class ToolsSettings:
    """The model's hands on the system: file tools and the shell tool.

    Attributes:
        files: the file tools' reach.
        shell: the shell tool's switch and limits.
    """

    files: FileToolSettings = field(default_factory=FileToolSettings)
    shell: ShellSettings = field(default_factory=ShellSettings)
