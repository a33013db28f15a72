"""Read-only facts about the paths a shell command names, for the core's classifier."""

from __future__ import annotations

import os

from aria_desktop.domain.sandbox import Sandbox

__all__ = ["LocalPathFacts"]


class LocalPathFacts:
    """Answers the classifier's questions from the real file system (never changes it)."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def resolve(self, path: str) -> str:
        """``path`` with its links resolved (as far as it exists)."""
        return os.path.realpath(path)

    def exists(self, path: str) -> bool:
        """Something (also a dangling link) is at ``path``."""
        return os.path.lexists(path)

    def is_dir(self, path: str) -> bool:
        """``path`` is a folder (links followed)."""
        return os.path.isdir(path)
