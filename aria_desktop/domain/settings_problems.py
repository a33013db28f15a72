"""A problem found in the user's settings, as every front-end shows it.

A typo or a bad value in ``settings.toml`` must never stop ARIA from starting
(ARCHITECTURE.md: a start that never breaks): the tolerant load skips what it cannot use and
returns these instead, and the CLI, the doctor, the desktop's start-up window and
``GET /api/v1/state`` all show the same values. They are plain data (no Qt, no settings
module) so the GUI and the API client can hold them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["SettingsProblem"]


@dataclass(frozen=True, kw_only=True)
class SettingsProblem:
    """One thing in the settings ARIA could not use, and what it did instead.

    Attributes:
        key: the dotted key it concerns (``voice.enabeld``); "" for the whole file (it does
            not parse, or cannot be read).
        message: one plain sentence: what is wrong and what ARIA does instead ("voice.enabeld
            is not a setting ARIA knows (did you mean voice.enabled?); it is ignored.").
        file: the settings file it is in; "" when it came from elsewhere (an environment
            variable).
        line: 1-based line in ``file`` where it can be found, when known.
        column: 1-based column on that line, when known.
    """

    key: str
    message: str
    file: str = ""
    line: int | None = None
    column: int | None = None

    def where(self) -> str:
        """Where to look, for people: "line 3, column 7 of /home/me/.config/aria/settings.toml"."""
        if not self.file:
            return ""
        if self.line is None:
            return self.file
        column = f", column {self.column}" if self.column is not None else ""
        return f"line {self.line}{column} of {self.file}"

    def to_dict(self) -> dict[str, Any]:
        """The wire form (``GET /api/v1/state``, ``--json`` output)."""
        return {
            "key": self.key,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SettingsProblem:
        """The inverse of :meth:`to_dict` (missing members take their defaults)."""
        line, column = data.get("line"), data.get("column")
        return cls(
            key=str(data.get("key", "")),
            message=str(data.get("message", "")),
            file=str(data.get("file", "") or ""),
            line=int(line) if line is not None else None,
            column=int(column) if column is not None else None,
        )
