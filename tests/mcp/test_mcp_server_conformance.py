"""The official MCP conformance suite's server scenarios against ``aria daemon``'s ``/mcp``.

The daemon runs as a user starts it (its own data folders; no model is needed for MCP). The
suite cannot send headers, so it reaches ``/mcp`` through tests/mcp/conformance/token_proxy.py,
which adds the API token as a configured MCP client would. One run of the suite covers every
server scenario; those that exercise the suite's own reference tools, resources and prompts, or
capabilities ARIA does not advertise, are listed with their reasons under ``server:`` in
tests/mcp/conformance/expected-failures.yml. The suite fails a listed scenario that passes.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.daemon_proc import DaemonProcess
from tests.mcp.test_mcp_conformance import HERE, NODE, ROOT, SUITE, _suite

# Every server scenario of conformance 0.1.16 (`conformance list`).
SCENARIOS = (
    "server-initialize",
    "logging-set-level",
    "ping",
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "json-schema-2020-12",
    "elicitation-sep1034-defaults",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "elicitation-sep1330-enums",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "dns-rebinding-protection",
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (NODE.exists() and SUITE.exists()),
        reason="the conformance suite is installed by `bash packaging/setup.sh test` (npm)",
    ),
]


@pytest.fixture
def mcp_url(tmp_path: Path) -> Iterator[str]:
    """``/mcp`` of a running ``aria daemon``, through the token-adding proxy."""
    daemon = DaemonProcess(tmp_path, "http://127.0.0.1:9").start()  # no model is needed
    aria_port = daemon.url.rsplit(":", 1)[1]
    proxy = subprocess.Popen(
        [sys.executable, "-m", "tests.mcp.conformance.token_proxy", aria_port, daemon.token],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proxy.stdout is not None
        port = int(proxy.stdout.readline())
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proxy.terminate()
        proxy.wait(10)
        daemon.stop()


def test_the_pinned_suite_has_exactly_the_server_scenarios_listed_here(tmp_path: Path) -> None:
    listed = _suite("list", cwd=tmp_path).stdout
    server_part = listed.split("Server scenarios", 1)[1].split("Client scenarios", 1)[0]
    names = [
        line.strip().removeprefix("- ").split(" ", 1)[0]
        for line in server_part.splitlines()
        if line.strip().startswith("- ")
    ]
    assert tuple(names) == SCENARIOS


def test_aria_daemon_meets_the_server_scenarios_it_advertises(mcp_url: str, tmp_path: Path) -> None:
    run = _suite(
        "server",
        "--url",
        mcp_url,
        "--expected-failures",
        str(HERE / "expected-failures.yml"),
        cwd=tmp_path,
    )
    assert run.returncode == 0, f"{run.stdout[-6000:]}\n{run.stderr[-2000:]}"
    summary = run.stdout.rsplit("=== SUMMARY ===", 1)[1]
    for scenario in ("server-initialize", "tools-list", "dns-rebinding-protection"):
        assert f"✓ {scenario}:" in summary
