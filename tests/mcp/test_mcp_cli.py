"""``aria mcp`` commands as a user runs them (no owner: the servers start for a moment)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def aria_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARIA_", "ANTHROPIC_"))}
    env.update(
        ARIA_CONFIG_DIR=str(tmp_path / "config"),
        ARIA_DATA_DIR=str(tmp_path / "data"),
        ARIA_STATE_DIR=str(tmp_path / "state"),
        ARIA_RUNTIME_DIR=str(tmp_path / "run"),
        PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring",
        PYTHONPATH=str(REPO),
    )
    return env


def aria(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aria_desktop", *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def test_import_then_list_servers_and_tools(aria_env: dict[str, str], tmp_path: Path) -> None:
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "fake": {
                        "command": sys.executable,
                        "args": ["-m", "tests.fakes.mcp_servers", "ok"],
                        "env": {"PYTHONPATH": str(REPO)},
                    },
                    "broken": {"command": "/nonexistent/mcp-server"},
                }
            }
        ),
        encoding="utf-8",
    )
    imported = aria(aria_env, "mcp", "import", str(claude))
    assert imported.returncode == 0, imported.stderr
    assert "Imported 2 servers" in imported.stdout
    servers = aria(aria_env, "mcp", "servers")
    assert "Traceback" not in servers.stderr + servers.stdout
    assert servers.returncode == 1  # one server is down
    assert "fake: running (stdio pid " in servers.stdout
    assert "broken: failed" in servers.stdout
    assert "last error:" in servers.stdout
    tools = aria(aria_env, "mcp", "tools")
    assert "fake__echo  policy=ask  not yet approved" in tools.stdout


def test_import_refuses_a_file_without_servers(aria_env: dict[str, str], tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text("{}", encoding="utf-8")
    result = aria(aria_env, "mcp", "import", str(other))
    assert result.returncode == 2
    assert "has no 'mcpServers'" in result.stderr
    assert "Traceback" not in result.stderr


async def test_login_signs_in_through_the_browser_and_says_when_no_keyring_can_keep_it(
    aria_env: dict[str, str], tmp_path: Path
) -> None:
    import asyncio

    from tests.fakes.oauth_mcp_server import oauth_mcp_server

    async with oauth_mcp_server() as server:
        (tmp_path / "config").mkdir()
        (tmp_path / "config" / "settings.toml").write_text(
            f'[mcp.servers.notes]\nurl = "{server.url}"\ntransport = "http"\n', encoding="utf-8"
        )
        env = {**aria_env, "BROWSER": f"{sys.executable} -m tests.fakes.follow_browser %s"}

        async def run(*args: str) -> tuple[int, str]:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "aria_desktop", *args, env=env, cwd=REPO,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            )  # fmt: skip
            out, _ = await asyncio.wait_for(proc.communicate(), 90)
            return proc.returncode or 0, out.decode()

        code, said = await run("mcp", "login", "notes")
        assert "Traceback" not in said
        assert "Open this address to sign in" in said
        assert "Signed in to notes (1 tools)." in said
        assert server.provider.access  # the server issued a token to ARIA
        # This machine has no keyring: the sign-in cannot outlive the command, and ARIA says so.
        assert code == 1
        assert "No keyring keeps the sign-in" in said

        code, said = await run("mcp", "logout", "notes")
        assert (code, said.strip()) == (0, "notes: not signed in.")
        code, said = await run("mcp", "login", "nope")
        assert code != 0
        assert "There is no MCP server named 'nope' (configured: notes)" in said
