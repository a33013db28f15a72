"""How the ``aria`` commands tell the settings problems found at start, each once.

Every command runs on the tolerant settings (ARCHITECTURE.md: a start that never breaks);
``main`` logs the problems and, unless the command shows them itself (``doctor``, ``config``,
``status``), prints them here on standard error so results on standard output stay clean.
"""

from __future__ import annotations

import argparse

from aria_desktop.cli._common import err
from aria_desktop.domain.settings_problems import SettingsProblem

__all__ = ["SHOWS_PROBLEMS", "problem_line", "problems_of", "tell_problems"]

SHOWS_PROBLEMS = "shows_settings_problems"
"""A parser default: the command names the settings problems itself (``main`` does not)."""

_FIX_HINT = "Hint: fix it in the settings file, or run `aria config check` to list every problem."


def problems_of(args: argparse.Namespace) -> tuple[SettingsProblem, ...]:
    """The settings problems ``main`` found for this command (none when run without it)."""
    found = getattr(args, "settings_problems", ())
    return tuple(found)


def problem_line(problem: SettingsProblem) -> str:
    """One problem as one line for people: the sentence, then where to look."""
    where = problem.where()
    return f"{problem.message} ({where})" if where else problem.message


def tell_problems(problems: tuple[SettingsProblem, ...], *, hint: bool = True) -> None:
    """Each problem once on standard error, and the hint once after them all."""
    for problem in problems:
        err(f"Settings: {problem_line(problem)}")
    if problems and hint:
        err(_FIX_HINT)
