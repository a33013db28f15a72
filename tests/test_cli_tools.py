"""``aria tools`` as a user runs it (a subprocess with a temporary home): the tool list with
policies, and the shell and path checks that decide without running anything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    (home / "Downloads").mkdir(parents=True)
    (home / "Downloads" / "a.txt").write_text("a\n")
    values = {k: v for k, v in os.environ.items() if not k.startswith(("ARIA_", "ANTHROPIC_"))}
    values.update(
        HOME=str(home),
        ARIA_CONFIG_DIR=str(tmp_path / "config"),
        ARIA_DATA_DIR=str(tmp_path / "data"),
        ARIA_STATE_DIR=str(tmp_path / "state"),
        ARIA_RUNTIME_DIR=str(tmp_path / "run"),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
    )
    return values


def aria(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "aria_desktop", *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def test_tools_list_shows_every_tool_with_its_policy(env: dict[str, str]) -> None:
    result = aria(env, "tools", "list", "--json")
    assert result.returncode == 0, result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    for name in ("file_read", "file_trash", "shell_run", "remember", "forget", "computer_click"):
        assert name in rows
    assert rows["shell_run"]["offered"] is False
    assert rows["shell_run"]["policy"].startswith("off (tools.shell.enabled = false)")
    assert rows["file_edit"]["policy"] == "ask, showing the diff"


def test_check_shell_says_ask_and_why_without_running(env: dict[str, str]) -> None:
    aria(env, "config", "set", "tools.shell.enabled", "true")
    target = Path(env["HOME"]) / "Downloads" / "a.txt"
    result = aria(env, "tools", "check", "shell", "--json", "--", "rm", "-f", str(target))
    assert result.returncode == 0, result.stderr
    decision = json.loads(result.stdout)
    assert decision["verdict"] == "ask"
    assert decision["rule"] == "shell:deletes"
    assert decision["effects"][0]["words"] == "deletes ~/Downloads/a.txt"
    assert target.exists()
    allowed = json.loads(aria(env, "tools", "check", "shell", "--json", "--", "ls", "-la").stdout)
    assert allowed["verdict"] == "allow"
    text = aria(env, "tools", "check", "shell", "--", "cat", "~/.ssh/id_rsa").stdout
    assert text.startswith("refuse: cat")
    assert "protected folder (~/.ssh)" in text


def test_check_shell_while_the_shell_is_off_refuses_and_says_what_it_would_do(
    env: dict[str, str],
) -> None:
    decision = json.loads(aria(env, "tools", "check", "shell", "--json", "--", "ls").stdout)
    assert decision["verdict"] == "refuse"
    assert "if it were on: allow" in decision["reason"]


def test_check_path_for_reading_and_writing(env: dict[str, str]) -> None:
    ok = json.loads(aria(env, "tools", "check", "path", "--json", "~/Downloads/a.txt").stdout)
    assert ok["verdict"] == "allow"
    write = json.loads(
        aria(env, "tools", "check", "path", "--write", "--json", "~/Downloads/a.txt").stdout
    )
    assert write["verdict"] == "ask"
    out = aria(env, "tools", "check", "path", "~/../../etc/shadow")
    assert out.stdout.startswith("refuse:")
    assert "'..'" in out.stdout
