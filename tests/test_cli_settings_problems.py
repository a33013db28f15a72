"""A typo or a broken settings file never stops ``aria``: each command runs and names it once.

Real ``aria`` subprocesses on real files (``tests/test_cli.py``'s isolated environment).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import aria, isolated_aria_env

_TYPO = "[voice]\nenabeld = true\n"
_BROKEN = "[voice\nenabled = true\n"
_COMMANDS = (("status",), ("config", "show"), ("config", "path"), ("config", "check"))


def _env_with(tmp_path: Path, text: str) -> dict[str, str]:
    env = isolated_aria_env(tmp_path)
    config = Path(env["ARIA_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "settings.toml").write_text(text, encoding="utf-8")
    return env


@pytest.mark.parametrize(
    ("text", "named"),
    [(_TYPO, "voice.enabeld is not a setting"), (_BROKEN, "settings file cannot be read")],
    ids=["typo", "broken"],
)
def test_status_and_config_run_and_name_the_problem_once(
    tmp_path: Path, text: str, named: str
) -> None:
    env = _env_with(tmp_path, text)
    for command in _COMMANDS:
        done = aria(env, *command)
        out = done.stdout + done.stderr
        assert "Traceback" not in out
        assert out.count(named) == 1, (command, out)
        assert "settings.toml" in out
        expected = {"status": 3, "check": 2}.get(command[-1], 0)  # 3: not running
        assert done.returncode == expected, (command, out)
    assert (Path(env["ARIA_CONFIG_DIR"]) / "settings.toml").read_text(encoding="utf-8") == text
    log = (Path(env["ARIA_STATE_DIR"]) / "aria.log").read_text(encoding="utf-8")
    assert "WARNING" in log
    assert "Settings problem" in log  # every command (the daemon too) logs each as a warning


def test_the_problem_is_in_the_json_of_status_and_config_check(tmp_path: Path) -> None:
    env = _env_with(tmp_path, _TYPO)
    status = json.loads(aria(env, "status", "--json").stdout)
    (problem,) = status["settings_problems"]
    assert (problem["key"], problem["line"], problem["column"]) == ("voice.enabeld", 2, 1)
    checked = json.loads(aria(env, "config", "check", "--json").stdout)
    assert checked == status["settings_problems"]


@pytest.mark.parametrize(
    ("text", "status", "named"),
    [(_TYPO, "WARN", "did you mean voice.enabled?"), (_BROKEN, "FAIL", "cannot be read")],
    ids=["typo", "broken"],
)
def test_doctor_names_the_problem_in_its_first_row(
    tmp_path: Path, text: str, status: str, named: str
) -> None:
    env = _env_with(tmp_path, text)
    done = aria(env, "doctor", "--json")
    rows = json.loads(done.stdout)
    assert rows[0]["name"] == "config"
    assert rows[0]["status"] == status
    assert named in rows[0]["detail"]
    assert "line" in rows[0]["fix"]
    assert "settings.toml" in rows[0]["fix"]
    assert sum(named in row["detail"] for row in rows) == 1
    assert "Traceback" not in done.stderr
    assert named not in done.stderr  # named once: in the report, not again on stderr


def test_config_check_passes_a_good_file(tmp_path: Path) -> None:
    env = _env_with(tmp_path, "[voice]\nenabled = false\n")
    done = aria(env, "config", "check")
    assert done.returncode == 0
    assert "is fine" in done.stdout
