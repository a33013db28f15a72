"""Lists through a real ``aria daemon`` (child process): ``aria lists`` goes through the owner's
API and the recogniser knows a list made there at once; ``aria mcp serve`` (the official MCP
client over stdio) changes the owner's lists; schemathesis fuzzes the list routes against their
OpenAPI description."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters

from tests.api.daemon_proc import REPO, DaemonProcess
from tests.api.test_schemathesis import _run_schemathesis
from tests.fakes import FakeOllama

pytestmark = pytest.mark.slow


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[DaemonProcess]:
    with FakeOllama() as ollama:
        proc = DaemonProcess(
            tmp_path,
            ollama.url,
            extra_env={
                "ARIA_MEMORY__EMBEDDER": "none",
                "ARIA_API__RATE_LIMIT_PER_S": "100000",
                "ARIA_API__RATE_LIMIT_BURST": "100000",
            },
        ).start()
        try:
            yield proc
        finally:
            proc.stop()


def _aria(daemon: DaemonProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aria_desktop", *args],
        env=daemon.env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _say(daemon: DaemonProcess, text: str) -> str:
    """One chat turn over the daemon's API; the reply's text."""
    done = httpx.post(
        f"{daemon.url}/api/v1/chat",
        json={"message": text, "stream": False},
        headers=daemon.headers(),
        timeout=30,
    )
    assert done.status_code == 200, done.text
    return str(done.json()["text"])


def test_aria_lists_goes_through_the_owner_and_its_recogniser_learns_the_list(
    daemon: DaemonProcess,
) -> None:
    added = _aria(daemon, "lists", "add", "hardware", "a hammer")
    assert added.stdout == "Added a hammer to the hardware list.\n", added.stderr
    assert _say(daemon, "add screws to my hardware list") == "Added screws to your hardware list."
    shown = json.loads(_aria(daemon, "lists", "show", "hardware", "--json").stdout)
    assert [item["text"] for item in shown] == ["a hammer", "screws"]
    assert _aria(daemon, "lists", "done", "hardware", "screws").returncode == 0
    listed = httpx.get(f"{daemon.url}/api/v1/lists/hardware", headers=daemon.headers()).json()
    assert [i["text"] for i in listed["items"]] == ["a hammer"]
    assert (
        "Error: There is no 'nails'" in _aria(daemon, "lists", "remove", "hardware", "nails").stderr
    )


async def test_aria_mcp_serve_changes_the_owners_lists(daemon: DaemonProcess) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "aria_desktop", "mcp", "serve"],
        env=daemon.env,
        cwd=REPO,
    )
    async with Client(params) as client:
        await client.call_tool("add_list_items", {"items": ["milk", "bread"]})
        await client.call_tool("check_off_list_item", {"item": "milk"})
        read = await client.call_tool("list_items", {"list": "shopping"})
        assert [i["text"] for i in json.loads(read.content[0].text)["items"]] == ["bread"]  # type: ignore[union-attr]
    owner = httpx.get(
        f"{daemon.url}/api/v1/lists/shopping",
        params={"include_done": "true"},
        headers=daemon.headers(),
    ).json()
    assert [(i["text"], i["done"]) for i in owner["items"]] == [("bread", False), ("milk", True)]


@pytest.mark.timeout(600)
def test_schemathesis_finds_nothing_wrong_with_the_list_routes(
    daemon: DaemonProcess, tmp_path: Path
) -> None:
    config = tmp_path / "schemathesis.toml"
    config.write_text(
        'headers = { Authorization = "Bearer ${ARIA_TEST_TOKEN}" }\n', encoding="utf-8"
    )
    _run_schemathesis(daemon, config, "--include-path-regex", r"^/api/v1/lists")
    assert "500" not in daemon.output()
