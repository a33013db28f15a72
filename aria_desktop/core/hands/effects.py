"""What a shell command would do, as data: effect kinds, the paths they touch, plain words.

The shell tool is approved by effect, not by name (ARCHITECTURE.md: safety):
``core/hands/commands.py`` reads an argv and says what it does; ``core/hands/classify.py``
turns the effects into allow / confirm / deny. This module holds the vocabulary both use and
the path helpers (relative to the command's working folder, resolved through
:class:`~aria_desktop.core.hands.ports.PathFacts`, so tests use plain dictionaries).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from aria_desktop.core.hands.ports import PathFacts
from aria_desktop.domain.sandbox import inside, shorten

__all__ = ["KIND_WORDS", "Context", "Effect", "EffectKind", "count_of"]

EffectKind = Literal[
    "read_only",
    "writes_scratch",
    "writes",
    "deletes",
    "installs",
    "permissions",
    "network",
    "inline_code",
    "unknown",
]

KIND_WORDS: dict[EffectKind, str] = {
    "read_only": "only reads",
    "writes_scratch": "writes only inside the scratch folder",
    "writes": "writes or changes files",
    "deletes": "deletes or overwrites files",
    "installs": "installs software",
    "permissions": "changes permissions or runs as another user",
    "network": "uses the network",
    "inline_code": "runs an interpreter with inline code",
    "unknown": "does something ARIA cannot judge",
}
"""Each kind in words, for reasons and ``aria tools check shell``."""


@dataclass(frozen=True, kw_only=True)
class Effect:
    """One thing a command does.

    Attributes:
        kind: what sort of effect.
        words: the effect in plain words ("deletes 3 items in ~/Downloads").
        paths: resolved absolute paths it touches (empty: none named, or not knowable).
    """

    kind: EffectKind
    words: str
    paths: tuple[str, ...] = ()


@dataclass
class Context:
    """What a command is judged against: its folder, the path facts, the scratch folder."""

    cwd: str
    facts: PathFacts
    scratch: str = ""
    touched: list[str] = field(default_factory=list)

    @property
    def home(self) -> str:
        return self.facts.sandbox.home

    def path(self, raw: str) -> str:
        """``raw`` as an absolute resolved path (``~`` expanded, relative to the cwd); noted."""
        if raw == "~" or raw.startswith("~/"):
            raw = self.home + raw[1:]
        absolute = posixpath.normpath(posixpath.join(self.cwd, raw))
        resolved = self.facts.resolve(absolute)
        self.touched.append(resolved)
        return resolved

    def paths(self, raws: list[str]) -> tuple[str, ...]:
        return tuple(self.path(raw) for raw in raws)

    def show(self, path: str) -> str:
        return shorten(path, self.home)

    def where(self, paths: tuple[str, ...]) -> str:
        """``~/a/b`` for one path, ``N items in ~/a`` for several (their common folder)."""
        if not paths:
            return f"files in {self.show(self.cwd)}"
        if len(paths) == 1:
            return self.show(paths[0])
        common = posixpath.commonpath(list(paths))
        if common in paths:
            common = posixpath.dirname(common) if len(set(paths)) > 1 else common
        return f"{count_of(paths, self.facts.is_dir, self.facts.exists)} in {self.show(common)}"

    def changes(self, kind: EffectKind, verb: str, paths: tuple[str, ...]) -> Effect:
        """A writing effect, told apart as scratch-only when every path lies in scratch."""
        scoped = paths or (self.cwd,)
        if kind == "writes" and self.scratch and all(inside(p, self.scratch) for p in scoped):
            kind = "writes_scratch"
        return Effect(kind=kind, words=f"{verb} {self.where(paths)}", paths=scoped)


def count_of(
    paths: tuple[str, ...] | list[str],
    is_dir: Callable[[str], bool],
    exists: Callable[[str], bool],
) -> str:
    """``3 files``, ``2 folders`` or ``3 items`` (mixed, or not all there yet)."""
    n = len(paths)
    if all(exists(p) and not is_dir(p) for p in paths):
        return f"{n} file" if n == 1 else f"{n} files"
    if all(is_dir(p) for p in paths):
        return f"{n} folder" if n == 1 else f"{n} folders"
    return f"{n} item" if n == 1 else f"{n} items"


def positional(args: list[str], *, with_value: frozenset[str] = frozenset()) -> list[str]:
    """Arguments that are not options (``--`` ends options; options in ``with_value`` eat one)."""
    out: list[str] = []
    skip = False
    ended = False
    for arg in args:
        if skip:
            skip = False
            continue
        if ended or not arg.startswith("-") or arg == "-":
            out.append(arg)
        elif arg == "--":
            ended = True
        elif arg in with_value:
            skip = True
    return out


def has_flag(args: list[str], *flags: str, letters: str = "") -> bool:
    """``args`` hold one of ``flags`` (also ``--x=...``), or a short cluster with a letter."""
    for arg in args:
        if arg == "--":
            return False
        if arg in flags or any(arg.startswith(f + "=") for f in flags if f.startswith("--")):
            return True
        short = letters and arg.startswith("-") and not arg.startswith("--")
        if short and any(letter in arg[1:] for letter in letters):
            return True
    return False


def option_value(args: list[str], *names: str) -> str | None:
    """The value of the first option in ``names`` (``-o X``, ``-oX``, ``--out=X``)."""
    for index, arg in enumerate(args):
        for name in names:
            if arg == name and index + 1 < len(args):
                return args[index + 1]
            if name.startswith("--") and arg.startswith(name + "="):
                return arg[len(name) + 1 :]
            if not name.startswith("--") and arg.startswith(name) and len(arg) > len(name):
                return arg[len(name) :]
    return None
