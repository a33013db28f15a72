"""Helpers to run storage code in child processes (ownership and crash tests)."""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def spawn(*args: str) -> subprocess.Popen[bytes]:
    """Start ``python args...`` in the repository root with unbuffered pipes."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def read_line(proc: subprocess.Popen[bytes], timeout_s: float) -> str:
    """The child's next stdout line; fails the test if none arrives in time."""
    assert proc.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        if not selector.select(timeout_s):
            proc.kill()
            raise AssertionError(f"child printed nothing within {timeout_s} s")
    line = proc.stdout.readline().decode()
    if not line:
        stderr = proc.stderr.read().decode() if proc.stderr else ""
        raise AssertionError(f"child exited early: {stderr}")
    return line.strip()
