"""Check that the installed distributions are exactly the versions in packaging/requirements.lock.

`bash packaging/setup.sh` installs with the lock as pip constraints; this check proves the
result, so a test run on a machine whose environment drifted (an older venv, a hand-installed
upgrade) fails up front instead of passing or failing for reasons the lock does not describe.
It runs with the virtualenv's interpreter and uses only the standard library.

Usage: python packaging/check_lock.py [--complete] [--extra NAME==VERSION ...]

``--complete`` also requires every locked package to be installed (the test install covers
every extra; a plain ``start`` install leaves out the dev tools). ``--extra`` names a pin that
the set-up script installs outside the lock (a ``--no-deps`` install).
"""

from __future__ import annotations

import argparse
import re
import sys
from importlib import metadata
from pathlib import Path

_LOCK = Path(__file__).resolve().parent / "requirements.lock"
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)")


def _normalise(name: str) -> str:
    """The PEP 503 form of a name, so `PySide6_Essentials` matches `pyside6-essentials`."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(lines: list[str]) -> dict[str, str]:
    """Map each pinned name (normalised) to its version, from lock-file lines."""
    pins: dict[str, str] = {}
    for line in lines:
        match = _PIN.match(line.strip())
        if match:
            pins[_normalise(match.group(1))] = match.group(2)
    return pins


def installed_versions() -> dict[str, str]:
    """Map each distribution installed in this interpreter's environment to its version."""
    return {_normalise(dist.metadata["Name"]): dist.version for dist in metadata.distributions()}


def mismatches(pins: dict[str, str], installed: dict[str, str], *, complete: bool) -> list[str]:
    """Describe every pin the environment breaks: a different version, or missing if complete."""
    problems: list[str] = []
    for name, wanted in sorted(pins.items()):
        have = installed.get(name)
        if have is None:
            if complete:
                problems.append(f"{name}: locked {wanted}, not installed")
        elif have != wanted:
            problems.append(f"{name}: locked {wanted}, installed {have}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Print the comparison; exit status 1 when the environment differs from the lock."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--complete", action="store_true", help="every locked package installed")
    parser.add_argument("--extra", action="append", default=[], help="NAME==VERSION outside lock")
    args = parser.parse_args(argv)
    pins = read_pins(_LOCK.read_text(encoding="utf-8").splitlines())
    pins.update(read_pins(args.extra))
    problems = mismatches(pins, installed_versions(), complete=args.complete)
    if problems:
        print(f"Installed versions differ from {_LOCK.name}:", *problems, sep="\n  ")
        return 1
    print(f"Installed versions equal {_LOCK.name} ({len(pins)} pins checked).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
