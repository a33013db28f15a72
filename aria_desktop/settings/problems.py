"""Mistakes in the settings as ``SettingsProblem`` values: plain words, and where to look.

The tolerant load (``loading.load_settings_with_problems``) turns every mistake it skips into
one sentence saying what is wrong and what ARIA does instead, with the file, line and column
where the user finds it (ARCHITECTURE.md: a start that never breaks). ``tomllib`` keeps no
positions, so a key's line is found again in the text (``locate_key``): tables, dotted keys,
inline tables; a key not found keeps its file without a line.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from aria_desktop.domain.errors import ConfigError
from aria_desktop.domain.settings_problems import SettingsProblem
from aria_desktop.settings.errors import SettingError
from aria_desktop.settings.keys import as_setting_text, leaf_for, leaf_map, section_class

__all__ = [
    "Found",
    "locate_key",
    "problem_of",
    "toml_problem",
    "unreadable_problem",
    "utf8_problem",
]

_HEADER_RE = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY_RE = re.compile(
    r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*="""
)
_PART_RE = re.compile(r"""[A-Za-z0-9_-]+|"[^"]*"|'[^']*'""")
_POSITION_RE = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_END_RE = re.compile(r"\s*\(at end of document\)$")
_ON_DEFAULTS = (
    "ARIA runs on its defaults until it is fixed, and leaves the file as it is. Text needs "
    "quotes and lists need brackets."
)


@dataclass(frozen=True, kw_only=True)
class Found:
    """A mistake the tolerant load skipped.

    Attributes:
        error: what was wrong (a ``SettingError`` names its key).
        involved: the keys that took their defaults because of it, when a rule between fields
            failed; () for a mistake about the error's own key.
    """

    error: ConfigError
    involved: tuple[str, ...]


def _parts(dotted: str) -> list[str]:
    return [part.strip("\"'") for part in _PART_RE.findall(dotted)]


def locate_key(text: str, key: str) -> tuple[int, int] | None:
    """(line, column), both from 1, where dotted ``key`` is written in TOML ``text``."""
    table: list[str] = []
    wanted = key.split(".")
    fallback: tuple[int, int] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER_RE.match(line)
        if header:
            table = _parts(header.group(1))
            if table == wanted:
                return number, line.index("[") + 1
            continue
        match = _KEY_RE.match(line)
        if not match:
            continue
        full = table + _parts(match.group(1))
        if full == wanted:
            return number, match.start(1) + 1
        if fallback is None and wanted[: len(full)] == full:  # an inline table holds it
            word = re.search(rf"\b{re.escape(wanted[-1])}\b", line[match.end() :])
            if word:
                fallback = number, match.end() + word.start() + 1
    return fallback


def _default_text(key: str) -> str | None:
    """How the default of ``key`` reads ("0.8", "nothing"); None when it is no single key."""
    leaves = leaf_map()
    parent, _, name = key.rpartition(".")
    if parent in leaves and leaves[parent].kind == "chains":
        chain = leaves[parent].default.get(name)
        return ",".join(chain) if chain is not None else None
    try:
        leaf = leaf_for(key, leaves)
    except KeyError:
        return None
    if leaf.kind in ("chains", "named"):
        return None
    text = as_setting_text(leaf.default)
    return text if text else "nothing"


def _outcome(error: ConfigError, key: str, involved: tuple[str, ...]) -> str:
    """What ARIA does instead, as the end of the sentence."""
    if len(involved) > 1:
        return f"ARIA uses the defaults of {' and '.join(involved)} instead"
    if isinstance(error, SettingError) and error.unknown:
        return "it is ignored"
    default = _default_text(key)
    if default is not None:
        return f"ARIA uses the default ({default}) instead"
    if section_class(key) is not None:
        return "ARIA uses the defaults of that section instead"
    return "ARIA leaves it out"


def problem_of(found: Found, *, file_source: str, file: Path, text: str) -> SettingsProblem:
    """The problem for one skipped mistake; ``file_source`` is how the file names itself."""
    error = found.error
    if isinstance(error, SettingError):
        key, plain, from_file = error.key, error.plain, error.source == file_source
    else:  # a text value (an environment variable) that names no single setting
        key, plain, from_file = "", error.message.rstrip("."), False
    if not from_file:
        source = f" ({error.source})" if isinstance(error, SettingError) else ""
        return SettingsProblem(
            key=key, message=f"{plain}{source}; {_outcome(error, key, found.involved)}."
        )
    message = f"{plain}; {_outcome(error, key, found.involved)}."
    where = locate_key(text, key) if key else None
    return SettingsProblem(
        key=key,
        message=message,
        file=str(file),
        line=where[0] if where else None,
        column=where[1] if where else None,
    )


def toml_problem(path: Path, text: str, exc: tomllib.TOMLDecodeError) -> SettingsProblem:
    """The file does not parse: the reason, line and column from ``tomllib``'s message."""
    reason = str(exc)
    line: int | None = None
    column: int | None = None
    position = _POSITION_RE.search(reason)
    if position:
        line, column = int(position.group(1)), int(position.group(2))
        reason = reason[: position.start()]
    elif _END_RE.search(reason):
        lines = text.splitlines() or [""]
        line, column = len(lines), len(lines[-1]) + 1
        reason = _END_RE.sub("", reason) + " (something opened earlier is not closed)"
    return SettingsProblem(
        key="",
        message=f"The settings file cannot be read: {reason}. {_ON_DEFAULTS}",
        file=str(path),
        line=line,
        column=column,
    )


def utf8_problem(path: Path, data: bytes, exc: UnicodeDecodeError) -> SettingsProblem:
    """The file is not UTF-8 text: where the first bad byte is."""
    before = data[: exc.start]
    line = before.count(b"\n") + 1
    column = exc.start - (before.rfind(b"\n") + 1) + 1
    return SettingsProblem(
        key="",
        message=(
            "The settings file is not saved as UTF-8 text. ARIA runs on its defaults until it "
            "is saved as UTF-8, and leaves the file as it is."
        ),
        file=str(path),
        line=line,
        column=column,
    )


def unreadable_problem(path: Path, exc: OSError) -> SettingsProblem:
    """The file exists (or was named) but cannot be read."""
    return SettingsProblem(
        key="",
        message=f"ARIA cannot read its settings file ({exc.strerror or exc}); it runs on its "
        "defaults until the file can be read.",
        file=str(path),
    )
