"""CLI manners: ``aria status`` with ARIA not running says how to start it."""

from __future__ import annotations

from pathlib import Path

from tests.test_cli import aria, isolated_aria_env


def test_status_when_not_running_says_how_to_start_it(tmp_path: Path) -> None:
    result = aria(isolated_aria_env(tmp_path), "status")
    assert result.returncode == 3
    lines = result.stdout.splitlines()
    assert lines[0] == "ARIA is not running."
    assert "aria desktop" in lines[1]
    assert "aria daemon" in lines[1]
