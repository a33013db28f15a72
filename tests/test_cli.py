"""The ``aria`` command as a user runs it: a real subprocess, real files, the Ollama test
server over HTTP. Checks exit codes, output, and that no traceback ever reaches the user."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import FakeOllama, FakeOpenAI
from tests.fakes.http_server import REMOTE_URL, closed_port, proxy_env
from tests.fakes.ollama_server import ollama_text
from tests.fakes.openai_server import openai_text

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def aria_env(tmp_path: Path) -> dict[str, str]:
    return isolated_aria_env(tmp_path)


def isolated_aria_env(tmp_path: Path) -> dict[str, str]:
    """The environment of an ``aria`` subprocess whose folders are all under ``tmp_path``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARIA_", "ANTHROPIC_"))}
    env.update(
        ARIA_CONFIG_DIR=str(tmp_path / "config"),
        ARIA_DATA_DIR=str(tmp_path / "data"),
        ARIA_STATE_DIR=str(tmp_path / "state"),
        ARIA_RUNTIME_DIR=str(tmp_path / "run"),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
    )
    return env


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


def aria(
    env: dict[str, str], *args: str, stdin: str = "", timeout_s: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aria_desktop", *args],
        env=env,
        cwd=REPO,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert "Traceback" not in result.stdout


def test_help_lists_the_commands(aria_env: dict[str, str]) -> None:
    result = aria(aria_env, "--help")
    assert result.returncode == 0
    for command in ("chat", "conversations", "config", "audit", "doctor", "bench"):
        assert command in result.stdout


@pytest.mark.slow
def test_chat_streams_the_reply_and_records_the_model(
    aria_env: dict[str, str], ollama: FakeOllama
) -> None:
    aria_env["ARIA_LLM__OLLAMA__URL"] = ollama.url
    aria_env["ARIA_LLM__OLLAMA__MODEL"] = "llama3.2"
    ollama.script("/api/chat", ollama_text("Paris is the capital of France.", chunks=5))
    result = aria(aria_env, "chat", "What is the capital of France?")
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Paris is the capital of France."
    assert "— ollama · llama3.2 · local ·" in result.stderr

    listed = aria(aria_env, "conversations", "list", "--json")
    [conversation] = json.loads(listed.stdout)
    assert conversation["title"] == "What is the capital of France?"
    shown = aria(aria_env, "conversations", "show", conversation["id"], "--json")
    messages = json.loads(shown.stdout)["messages"]
    assert [(m["role"], m["status"], m["model"]) for m in messages] == [
        ("user", "complete", ""),
        ("assistant", "complete", "llama3.2"),
    ]
    deleted = aria(aria_env, "conversations", "delete", conversation["id"])
    assert deleted.returncode == 0
    assert json.loads(aria(aria_env, "conversations", "list", "--json").stdout) == []


def test_chat_names_a_model_server_on_another_host_as_cloud(aria_env: dict[str, str]) -> None:
    with FakeOpenAI() as server:
        server.script("/v1/chat/completions", openai_text("Answered from afar.", chunks=3))
        aria_env.update(proxy_env(server))  # REMOTE_URL's traffic goes to the test server
        aria_env.update(
            ARIA_LLM__OPENAI__URL=REMOTE_URL,
            ARIA_LLM__OPENAI__MODEL="smollm2",
            ARIA_LLM__CHAINS__CHAT="openai",
            ARIA_LLM__CHAINS__EXTRACT="openai",
            ARIA_LLM__RETRY__MAX_ATTEMPTS="1",
        )
        result = aria(aria_env, "chat", "Where do you run?")
        sent = server.requests_to("/v1/chat/completions")
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Answered from afar."
    assert "— openai · smollm2 · cloud ·" in result.stderr
    assert sent
    assert {request.headers["host"] for request in sent} == {"models.example.test:8080"}


def test_chat_json_prints_one_event_per_line(aria_env: dict[str, str], ollama: FakeOllama) -> None:
    aria_env["ARIA_LLM__OLLAMA__URL"] = ollama.url
    ollama.script("/api/chat", ollama_text("Hi.", chunks=1))
    result = aria(aria_env, "chat", "--json", "hello")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["type"] == "run-start"
    assert events[-1]["type"] == "run-end"
    assert events[-1]["status"] == "complete"
    assert "llm-delta" in {e["type"] for e in events}


def test_chat_with_no_reachable_backend_says_how_to_configure_one(
    aria_env: dict[str, str],
) -> None:
    with closed_port() as port:
        aria_env["ARIA_LLM__OLLAMA__URL"] = f"http://127.0.0.1:{port}"
        result = aria(aria_env, "chat", "hello?")
    no_traceback(result)
    assert result.returncode == 1
    assert "Error:" in result.stderr
    assert "aria config set llm.ollama.url" in result.stderr
    assert "anthropic_api_key" in result.stderr


def test_continuing_an_unknown_conversation_is_a_clear_error(aria_env: dict[str, str]) -> None:
    result = aria(aria_env, "chat", "-c", "nope", "hello")
    no_traceback(result)
    assert result.returncode == 1
    assert "no conversation 'nope'" in result.stderr


def test_config_set_and_show_round_trip(aria_env: dict[str, str]) -> None:
    assert aria(aria_env, "config", "set", "agent.max_steps", "4").returncode == 0
    shown = json.loads(aria(aria_env, "config", "show", "--json").stdout)
    assert shown["agent"]["max_steps"] == 4
    assert shown["secrets"]["anthropic_api_key"] == "missing"


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("agent.max_stepz", "4", "agent.max_stepz"),
        ("agent.max_steps", "many", "agent.max_steps"),
        ("log.level", "LOUD", "log.level"),
    ],
)
def test_bad_settings_are_reported_with_the_key_and_exit_2(
    aria_env: dict[str, str], key: str, value: str, expected: str
) -> None:
    result = aria(aria_env, "config", "set", key, value)
    no_traceback(result)
    assert result.returncode == 2
    assert expected in result.stderr


def test_broken_settings_file_is_reported_and_the_command_runs_on_defaults(
    aria_env: dict[str, str],
) -> None:
    config = Path(aria_env["ARIA_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "settings.toml").write_text("[agent]\nmax_steps = = 3\n", encoding="utf-8")
    result = aria(aria_env, "timers")
    no_traceback(result)
    assert result.returncode == 0
    assert "settings.toml" in result.stderr
    assert "line 2" in result.stderr
    refused = aria(aria_env, "config", "set", "agent.max_steps", "4")  # never over the user's file
    assert refused.returncode == 2
    assert "not saved" in refused.stderr
    assert (config / "settings.toml").read_text(encoding="utf-8") == "[agent]\nmax_steps = = 3\n"


def test_secret_without_keyring_is_refused_unless_the_file_fallback_is_chosen(
    aria_env: dict[str, str],
) -> None:
    refused = aria(
        aria_env, "config", "set-secret", "anthropic_api_key", stdin="sk-ant-abc123456789\n"
    )
    no_traceback(refused)
    assert refused.returncode == 1
    assert "--insecure-file" in refused.stderr
    secrets_file = Path(aria_env["ARIA_CONFIG_DIR"]) / "secrets.toml"
    assert not secrets_file.exists()
    stored = aria(
        aria_env,
        "config",
        "set-secret",
        "anthropic_api_key",
        "--insecure-file",
        stdin="sk-ant-abc123456789\n",
    )
    assert stored.returncode == 0, stored.stderr
    assert secrets_file.stat().st_mode & 0o777 == 0o600
    shown = aria(aria_env, "config", "show")
    assert "sk-ant-abc123456789" not in shown.stdout


@pytest.mark.slow
def test_audit_verify_reports_a_tampered_record(aria_env: dict[str, str]) -> None:
    from aria_desktop.adapters.storage.audit_file import AuditFile
    from aria_desktop.core.audit import AuditLog

    data = Path(aria_env["ARIA_DATA_DIR"])
    state = Path(aria_env["ARIA_STATE_DIR"])
    log = AuditLog(AuditFile(data / "audit" / "audit.jsonl", state / "audit.checkpoint"))

    async def fill() -> None:
        for i in range(3):
            await log.append("tool-call", {"tool": "echo", "n": i})

    asyncio.run(fill())
    ok = aria(aria_env, "audit", "verify")
    assert ok.returncode == 0
    assert "3 records" in ok.stdout
    listed = aria(aria_env, "audit", "list", "--json")
    assert [json.loads(line)["seq"] for line in listed.stdout.splitlines()] == [1, 2, 3]

    path = data / "audit" / "audit.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1].replace('"n":1', '"n":7')
    path.write_text("".join(lines), encoding="utf-8")
    bad = aria(aria_env, "audit", "verify")
    no_traceback(bad)
    assert bad.returncode == 1
    assert "record 2" in bad.stdout


@pytest.mark.slow
def test_doctor_fails_without_a_backend_and_explains_the_fix(aria_env: dict[str, str]) -> None:
    with closed_port() as port:
        aria_env["ARIA_LLM__OLLAMA__URL"] = f"http://127.0.0.1:{port}"
        result = aria(aria_env, "doctor")
    no_traceback(result)
    assert result.returncode == 1
    assert "FAIL  llm" in result.stdout
    assert "OK    sqlite" in result.stdout


@pytest.mark.slow
def test_doctor_passes_with_a_reachable_ollama(
    aria_env: dict[str, str], ollama: FakeOllama
) -> None:
    aria_env["ARIA_LLM__OLLAMA__URL"] = ollama.url
    aria_env["ARIA_LLM__OLLAMA__MODEL"] = "qwen3:8b"
    result = aria(aria_env, "doctor", "--json")
    assert result.returncode == 0, result.stdout
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert checks["ollama"]["status"] == "OK"
    assert "qwen3:8b" in checks["ollama"]["detail"]
    # Learned from /api/show, capped by llm.max_context_tokens.
    assert checks["ollama model"]["status"] == "OK"
    assert checks["ollama model"]["detail"] == (
        "8192-token window (from /api/show); can: completion, tools"
    )


def test_config_set_says_when_a_running_aria_uses_the_change(aria_env: dict[str, str]) -> None:
    live = aria(aria_env, "config", "set", "llm.ollama.model", "qwen3:8b")
    assert live.returncode == 0
    assert "from its next turn" in live.stderr
    later = aria(aria_env, "config", "set", "agent.max_steps", "4")
    assert "after a restart" in later.stderr


def test_dictate_without_a_running_aria_says_how_to_start_one(aria_env: dict[str, str]) -> None:
    result = aria(aria_env, "dictate")
    no_traceback(result)
    assert result.returncode == 1
    assert "ARIA is not running" in result.stderr
    assert "aria daemon" in result.stderr
