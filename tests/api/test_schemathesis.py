"""Schemathesis over the OpenAPI schema of a real ``aria daemon`` (child process).

Authenticated: every check (server errors, status codes, content types, response schemas,
negative-data rejection, ignored auth) with positive and negative data, 40 fuzzed examples per
operation after the schema's own examples and the coverage phase's boundary values (every
operation is exercised by all three phases; 100 examples took 164 s of a CI run, 40 keep it
within the 20-minute limit; ``ARIA_SCHEMATHESIS_EXAMPLES`` raises it for a deeper local run).
``ignored_auth`` proves that no operation succeeds without the token; a direct sweep below
checks that too. The endless ``/events`` stream and the WAV upload of ``/transcribe`` are
exercised by the route tests.

The daemon runs on a private Xvfb display (the session's, tests/conftest.py), so the screen and
computer-use routes are fuzzed for real with every check (an empty screen: nothing to click).

Deterministic: schemathesis and hypothesis are pinned by packaging/requirements.lock, the run is
derandomized (the same examples every run, no example database), and uses one worker. One worker
also keeps the run clear of a CPython 3.11 bug: ``ast.parse`` in two threads at once can raise
``SystemError: AST constructor recursion depth mismatch`` (the AST builder's depth counter is
shared by the interpreter), and hypothesis parses source whenever it describes a lambda, so two
schemathesis workers hit it now and then. Should such an error of the tools still occur, the test
reports it as a failure of the test machinery, not as a finding about the API.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.daemon_proc import REPO, DaemonProcess
from tests.fakes import FakeOllama

EXAMPLES = int(os.environ.get("ARIA_SCHEMATHESIS_EXAMPLES", "40"))
# Errors raised inside schemathesis/hypothesis/the interpreter rather than by an API response.
TOOL_ERROR = re.compile(r"SystemError: .*|INTERNAL ERROR.*|RecursionError: .*")
# A real daemon child process, and a fuzzing run of minutes: outside the fast loop.
pytestmark = pytest.mark.slow


@pytest.fixture
def daemon(tmp_path: Path, display: str) -> Iterator[DaemonProcess]:
    assert display  # DaemonProcess passes DISPLAY on: the screen routes work for real
    with FakeOllama() as ollama:
        proc = DaemonProcess(
            tmp_path,
            ollama.url,
            extra_env={
                "ARIA_API__RATE_LIMIT_PER_S": "100000",
                "ARIA_API__RATE_LIMIT_BURST": "100000",
                "ARIA_AGENT__CONFIRM_TIMEOUT_S": "1",
                "ARIA_AUTOMATIONS__RULES__PING__PROMPT": "Say {word}",
            },
        ).start()
        try:
            yield proc
        finally:
            proc.stop()


@pytest.mark.timeout(900)
def test_schemathesis_finds_no_server_errors_or_schema_violations(
    daemon: DaemonProcess, tmp_path: Path
) -> None:
    config = tmp_path / "schemathesis.toml"
    config.write_text(
        'headers = { Authorization = "Bearer ${ARIA_TEST_TOKEN}" }\n\n'
        "[[operations]]\n"
        'include-path = "/api/v1/hooks/{name}"\n'
        'parameters = { "path.name" = "ping" }\n',
        encoding="utf-8",
    )
    voice = r"^/api/v1/(speak|listen|push-to-talk)$"
    _run_schemathesis(daemon, config, "--exclude-path-regex", voice)
    # Voice is off in this daemon (its models are exercised in test_voice_routes): /speak,
    # /listen and /push-to-talk answer their documented 503 "voice is not set up", which is not
    # a crash; every other check still runs on them.
    _run_schemathesis(
        daemon, config, "--include-path-regex", voice, exclude_checks="not_a_server_error"
    )
    assert "500" not in daemon.output()


def _run_schemathesis(
    daemon: DaemonProcess, config: Path, *selection: str, exclude_checks: str = ""
) -> None:
    st = Path(sys.executable).with_name("st")
    excluded = ",".join(c for c in ("positive_data_acceptance", exclude_checks) if c)
    result = subprocess.run(
        [
            str(st),
            "--config-file",
            str(config),
            "run",
            f"{daemon.url}/openapi.json",
            *selection,
            "--checks",
            "all",
            "--exclude-checks",
            excluded,
            "--mode",
            "all",
            "--max-examples",
            str(EXAMPLES),
            "--phases",
            "examples,coverage,fuzzing",
            "--exclude-path",
            "/api/v1/events",
            "--exclude-path",  # a WAV body, which schemathesis cannot generate
            "/api/v1/transcribe",
            "--request-timeout",
            "20",
            "--workers",
            "1",
            "--generation-deterministic",  # the same examples every run: no seed, no database
            "--no-color",
        ],
        cwd=REPO,
        env={**os.environ, "ARIA_TEST_TOKEN": daemon.token},
        capture_output=True,
        text=True,
        timeout=860,
    )
    print(result.stdout[-3000:])
    if result.returncode != 0:
        tool_error = TOOL_ERROR.search(result.stdout + result.stderr)
        if tool_error:
            pytest.fail(
                f"test machinery error, not an API finding: {tool_error.group(0)}\n"
                + result.stderr[-2000:]
            )
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]


def test_no_operation_succeeds_without_the_token(daemon: DaemonProcess) -> None:
    schema = httpx.get(f"{daemon.url}/openapi.json", headers=daemon.headers()).json()
    assert httpx.get(f"{daemon.url}/openapi.json").status_code == 401
    checked = 0
    for path, operations in schema["paths"].items():
        for method in operations:
            if path == "/api/v1/health":
                continue
            concrete = path.replace("{conversation_id}", "x").replace("{request_id}", "x")
            concrete = concrete.replace("{name}", "ping").replace("{memory_id}", "x")
            concrete = concrete.replace("{candidate_id}", "x")
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic x"}):
                response = httpx.request(
                    method.upper(),
                    f"{daemon.url}{concrete}",
                    headers={**headers, "Content-Type": "application/json"},
                    content=b"{}",
                )
                assert response.status_code == 401, (method, path, response.status_code)
            checked += 1
    assert checked >= 24
