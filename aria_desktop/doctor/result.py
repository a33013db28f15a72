"""One line of ``aria doctor``'s report, and the shorthands every check builds it with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["PROBE_TIMEOUT_S", "CheckResult", "Status", "judged", "ok", "warn"]

PROBE_TIMEOUT_S = 4.0
"""How long a check waits for a server or a model before it reports a warning, seconds."""

Status = Literal["OK", "WARN", "FAIL"]


@dataclass(frozen=True, kw_only=True)
class CheckResult:
    """One line of the doctor's report.

    Attributes:
        name: what was checked ("sqlite", "microphone", ...).
        status: OK, WARN (works, with less) or FAIL (ARIA cannot work until fixed).
        detail: what was found.
        fix: what to do about it (shown when the status is not OK).
    """

    name: str
    status: Status
    detail: str
    fix: str = ""


def ok(name: str, detail: str) -> CheckResult:
    """A check that passed."""
    return CheckResult(name=name, status="OK", detail=detail)


def warn(name: str, detail: str, fix: str = "") -> CheckResult:
    """A check that found something ARIA works around, with what to do about it."""
    return CheckResult(name=name, status="WARN", detail=detail, fix=fix)


def judged(name: str, passed: bool, detail: str, fix: str, *, bad: Status = "WARN") -> CheckResult:
    """OK when ``passed``, else ``bad`` with ``fix`` (a passed check carries no fix)."""
    return CheckResult(
        name=name, status="OK" if passed else bad, detail=detail, fix="" if passed else fix
    )
