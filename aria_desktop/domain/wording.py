"""Small helpers for text people read: a count with its noun in the right number.

Pure and shared by the CLI and the windows, so "1 file" and "3 files" read the same in both.
"""

from __future__ import annotations

__all__ = ["counted"]


def counted(count: int, one: str, many: str = "") -> str:
    """Say a count with its noun in the right number ("1 file", "3 files", "2 passages")."""
    return f"{count} {one if count == 1 else (many or one + 's')}"
