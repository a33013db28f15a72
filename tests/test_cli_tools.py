"""``aria tools`` as a user runs it (a subprocess with a temporary home): the tool list with
policies, and the shell and path checks that decide without running anything."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.test_cli import aria as run_aria
from tests.test_cli import isolated_aria_env, no_traceback


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    (home / "Downloads").mkdir(parents=True)
    (home / "Downloads" / "a.txt").write_text("a\n")
    return {**isolated_aria_env(tmp_path), "HOME": str(home)}


def aria(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    result = run_aria(env, *args)
    no_traceback(result)
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


async def test_the_terminal_prompt_shows_the_diff_whole_and_indented(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from aria_desktop.cli._common import confirm_at_terminal
    from aria_desktop.domain.events import ActionConfirmRequest

    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return "y"

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("builtins.input", answer)
    request = ActionConfirmRequest(
        run_id=None,
        request_id="r1",
        nonce="n1",
        tool="file_edit",
        summary="Edit ~/notes.txt:\n-beta\n+BETA",
        reason="changes the contents of a file",
        timeout_s=5.0,
    )
    assert await confirm_at_terminal(request, what="file_edit")
    assert prompts == [
        "ARIA wants to: Edit ~/notes.txt:\n    -beta\n    +BETA\n"
        "  (changes the contents of a file) Allow? [y/N] "
    ]
