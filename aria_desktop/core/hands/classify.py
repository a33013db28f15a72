"""The shell tool's policy: allow, confirm or deny one argv by what it would do.

Only a command from the read-only allow-list whose every effect reads, and whose every path
lies inside the allowed roots, runs without asking. A path in a secret store (``~/.ssh``,
keyrings, password databases, ARIA's own data) is refused outright; everything else —
writes, deletes, installs, permissions, network, inline code, unknown programs, paths
outside the roots — asks, with the effects in words (ARCHITECTURE.md: safety). Pure: the
file system is only asked through :class:`PathFacts`.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal

from aria_desktop.core.hands.commands import READ_ONLY_COMMANDS, effects_of
from aria_desktop.core.hands.effects import KIND_WORDS, Context, Effect, EffectKind
from aria_desktop.core.hands.ports import PathFacts
from aria_desktop.domain.sandbox import inside, protected, refusal

__all__ = ["Assessment", "assess"]

_MAX_ARGV = 256
_MAX_ARG_CHARS = 8192


@dataclass(frozen=True, kw_only=True)
class Assessment:
    """The verdict on one command and why.

    Attributes:
        command: the argv quoted as one line (what the user is shown).
        verdict: allow, confirm or deny.
        rule: the rule that decided (audited).
        reason: why, in words.
        effects: what the command would do.
    """

    command: str
    verdict: Literal["allow", "confirm", "deny"]
    rule: str
    reason: str
    effects: tuple[Effect, ...]

    @property
    def kinds(self) -> tuple[EffectKind, ...]:
        """The distinct effect kinds, in order of appearance."""
        return tuple(dict.fromkeys(effect.kind for effect in self.effects))

    def words(self) -> str:
        """The effects in one sentence ("deletes 3 items in ~/Downloads; uses the network")."""
        return "; ".join(dict.fromkeys(effect.words for effect in self.effects)) or "nothing"


def assess(
    argv: list[str],
    *,
    cwd: str,
    facts: PathFacts,
    scratch: str = "",
    allowed_dirs: tuple[str, ...] = (),
) -> Assessment:
    """Judge ``argv`` run in ``cwd`` (an absolute, resolved folder)."""
    command = shlex.join(argv)[:2000] if argv else ""
    problem = _argv_problem(argv)
    if problem:
        return Assessment(
            command=command, verdict="deny", rule="shell:argv", reason=problem, effects=()
        )
    dirs = allowed_dirs or facts.sandbox.roots
    if not any(inside(cwd, d) for d in dirs) or refusal(cwd, facts.sandbox):
        return Assessment(
            command=command,
            verdict="deny",
            rule="shell:cwd",
            reason=f"the working folder {cwd} is not an allowed shell folder "
            f"({refusal(cwd, facts.sandbox) or 'not in tools.shell.folders'})",
            effects=(),
        )
    ctx = Context(cwd=cwd, facts=facts, scratch=scratch)
    effects = tuple(effects_of(argv, ctx))
    secret = next((p for p in (*ctx.touched, cwd) if protected(p, facts.sandbox)), None)
    if secret is not None:
        return Assessment(
            command=command,
            verdict="deny",
            rule="shell:protected-path",
            reason=str(protected(secret, facts.sandbox)),
            effects=effects,
        )
    kinds = {effect.kind for effect in effects}
    outside = [p for p in ctx.touched if refusal(p, facts.sandbox)]
    if kinds == {"read_only"} and _program(argv) in READ_ONLY_COMMANDS and not outside:
        return Assessment(
            command=command,
            verdict="allow",
            rule="shell:read-only",
            reason="an allow-listed command that only reads inside the allowed folders",
            effects=effects,
        )
    reasons = [KIND_WORDS[k] for k in _ordered(kinds) if k != "read_only"]
    if outside:
        reasons.append(f"touches {refusal(outside[0], facts.sandbox)}")
    if not reasons:
        reasons.append(f"{_program(argv)} is not on the read-only allow-list")
    if kinds - {"read_only"}:
        rule = "shell:" + _ordered(kinds)[0]
    else:
        rule = "shell:outside-roots" if outside else "shell:not-allow-listed"
    return Assessment(
        command=command, verdict="confirm", rule=rule, reason="; ".join(reasons), effects=effects
    )


_ORDER: tuple[EffectKind, ...] = (
    "deletes",
    "installs",
    "permissions",
    "inline_code",
    "network",
    "writes",
    "writes_scratch",
    "unknown",
    "read_only",
)


def _ordered(kinds: set[EffectKind]) -> list[EffectKind]:
    """The kinds, most serious first."""
    return [kind for kind in _ORDER if kind in kinds]


def _program(argv: list[str]) -> str:
    return argv[0].rsplit("/", 1)[-1] if argv else ""


def _argv_problem(argv: list[str]) -> str | None:
    if not argv or not argv[0]:
        return "the command is empty"
    if len(argv) > _MAX_ARGV:
        return f"the command has more than {_MAX_ARGV} arguments"
    for arg in argv:
        if "\x00" in arg:
            return "an argument contains a NUL byte"
        if len(arg) > _MAX_ARG_CHARS:
            return f"an argument is longer than {_MAX_ARG_CHARS} characters"
    return None
