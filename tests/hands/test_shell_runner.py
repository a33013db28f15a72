"""Running an argv: a scrubbed environment, no stdin, the whole process group killed at the
timeout, output capped to head and tail with the full copy pageable."""

from __future__ import annotations

import os
import select
import sys
from pathlib import Path

import pytest

from aria_desktop.adapters.hands.shell import ShellRunner, scrubbed_environment


@pytest.fixture
def runner(tmp_path: Path) -> ShellRunner:
    return ShellRunner(tmp_path / "outputs", keep_bytes=1000, store_max_bytes=1_000_000)


async def test_the_child_environment_holds_no_secret(
    runner: ShellRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {
        "ANTHROPIC_API_KEY": "sk-ant-secret1",
        "OPENAI_API_KEY": "sk-secret2",
        "GITHUB_TOKEN": "ghp_secret3",
        "ARIA_LLM__ANTHROPIC__API_KEY": "secret4",
        "ARIA_API_TOKEN": "secret5",
        "AWS_SECRET_ACCESS_KEY": "secret6",
        "DATABASE_PASSWORD": "secret7",
        "LC_SECRET_TOKEN": "secret8",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    outcome = await runner.run(["env"], cwd=str(tmp_path), timeout_s=10)
    assert outcome.exit_code == 0
    assert "PATH=" in outcome.head
    for name, value in secrets.items():
        assert name not in outcome.head
        assert value not in outcome.head
    assert "ARIA" not in outcome.head


def test_the_scrubbed_environment_keeps_only_harmless_variables() -> None:
    env = scrubbed_environment(
        {"PATH": "/bin", "HOME": "/h", "LANG": "C", "LC_ALL": "C", "FOO": "x", "ARIA_X": "1"}
    )
    assert env == {"PATH": "/bin", "HOME": "/h", "LANG": "C", "LC_ALL": "C"}


async def test_there_is_no_stdin(runner: ShellRunner, tmp_path: Path) -> None:
    outcome = await runner.run(["cat"], cwd=str(tmp_path), timeout_s=10)
    assert (outcome.exit_code, outcome.head, outcome.timed_out) == (0, "", False)


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs, waiting on the process itself (a pidfd turns readable when
    it has exited; SIGKILL is delivered asynchronously, so give it a bounded moment)."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return False
    try:
        readable, _, _ = select.select([pidfd], [], [], 5.0)
        return not readable
    finally:
        os.close(pidfd)


def _parent_of_a_sleeper(*, wait: bool) -> list[str]:
    """A command that starts a long-sleeping child, prints its pid, and waits for it or not."""
    script = (
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'],\n"
        "                         stdout=subprocess.DEVNULL)\n"
        "print(child.pid, flush=True)\n"
    ) + ("child.wait()\n" if wait else "")
    return [sys.executable, "-c", script]


async def test_a_command_over_its_timeout_is_killed_with_its_children(
    runner: ShellRunner, tmp_path: Path
) -> None:
    outcome = await runner.run(_parent_of_a_sleeper(wait=True), cwd=str(tmp_path), timeout_s=2)
    assert outcome.timed_out
    assert outcome.exit_code == -9
    child = int(outcome.head.split()[0])
    assert child != os.getpid()
    assert not _alive(child)


async def test_a_child_left_behind_by_a_finished_command_is_killed(
    runner: ShellRunner, tmp_path: Path
) -> None:
    argv = _parent_of_a_sleeper(wait=False)
    outcome = await runner.run(argv, cwd=str(tmp_path), timeout_s=20)
    assert not outcome.timed_out
    assert outcome.exit_code == 0
    assert not _alive(int(outcome.head.split()[0]))


async def test_long_output_keeps_head_and_tail_and_the_rest_is_pageable(
    runner: ShellRunner, tmp_path: Path
) -> None:
    script = "for i in range(5000): print(f'line {i:05d}')"
    outcome = await runner.run([sys.executable, "-c", script], cwd=str(tmp_path), timeout_s=20)
    assert outcome.total_bytes == 5000 * 11
    assert outcome.head.startswith("line 00000")
    assert len(outcome.head) == 1000
    assert outcome.tail.endswith("line 04999\n")
    assert len(outcome.tail) == 1000
    page, size = runner.page(outcome.output_id, offset=11 * 2500, limit=11)
    assert (page, size) == ("line 02500\n", 5000 * 11)


async def test_a_missing_program_is_a_clear_error(runner: ShellRunner, tmp_path: Path) -> None:
    from aria_desktop.domain.errors import ToolFailedError

    with pytest.raises(ToolFailedError, match="was not found"):
        await runner.run(["no-such-program-xyz"], cwd=str(tmp_path), timeout_s=5)
    with pytest.raises(ToolFailedError, match=r"working folder .* does not exist"):
        await runner.run(["ls"], cwd=str(tmp_path / "missing"), timeout_s=5)
