"""What the file and shell tools need from the world (satisfied by ``hands/``).

Kept beside the tools rather than in ``core/ports.py``: only ``core/hands`` uses them. The
adapter's methods are synchronous (file system calls); the tools run them in a thread
(ARCHITECTURE.md: one loop).
"""

from __future__ import annotations

from typing import Any, Protocol

from aria_desktop.domain.hands import FileChange, ShellOutcome
from aria_desktop.domain.sandbox import Sandbox

__all__ = ["FileSystem", "PathFacts", "Shell"]


class FileSystem(Protocol):
    """File operations confined to the allowed roots (``hands.files.SandboxedFiles``)."""

    def check(self, raw: str, *, write: bool = False) -> str: ...

    def list_dir(self, raw: str) -> dict[str, Any]: ...

    def read_text(self, raw: str, *, offset: int = 0) -> dict[str, Any]: ...

    def find(
        self, raw: str, *, name: str = "", text: str = "", limit: int = 100
    ) -> dict[str, Any]: ...

    def plan_write(self, raw: str, content: str, *, overwrite: bool) -> FileChange: ...

    def plan_edit(self, raw: str, old_text: str, new_text: str) -> FileChange: ...

    def apply(self, change: FileChange) -> dict[str, Any]: ...

    def plan_move(self, source: str, target: str, *, overwrite: bool) -> tuple[str, str, bool]: ...

    def move(self, source: str, target: str, *, overwrite: bool) -> dict[str, Any]: ...

    def trash(self, raw: str) -> dict[str, Any]: ...

    def is_dir(self, path: str) -> bool: ...

    def exists(self, path: str) -> bool: ...


class PathFacts(Protocol):
    """What the shell classifier may ask about the paths a command names (no changes)."""

    sandbox: Sandbox

    def resolve(self, path: str) -> str:
        """``path`` (absolute, normalised) with its links resolved."""
        ...

    def exists(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...


class Shell(Protocol):
    """Runs argv commands and pages their stored output (``hands.shell.ShellRunner``)."""

    async def run(self, argv: list[str], *, cwd: str, timeout_s: float) -> ShellOutcome: ...

    def page(self, output_id: str, *, offset: int, limit: int) -> tuple[str, int]: ...
