"""``aria usage`` as a user runs it: a chat through the Ollama test server is recorded in the
real database's usage ledger, and a later ``aria usage`` process reads it back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text
from tests.test_cli import aria, isolated_aria_env, no_traceback


@pytest.mark.slow
def test_usage_shows_todays_tokens_per_backend_after_a_chat(tmp_path: Path) -> None:
    env = isolated_aria_env(tmp_path)
    with FakeOllama() as ollama:
        env["ARIA_LLM__OLLAMA__URL"] = ollama.url
        env["ARIA_LLM__OLLAMA__MODEL"] = "llama3.2"
        ollama.script("/api/chat", ollama_text("Hi.", prompt_eval_count=30, eval_count=4))
        chat = aria(env, "chat", "Hello")
        assert chat.returncode == 0, chat.stderr
    result = aria(env, "usage", "--json")
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    [today] = report["today"]
    assert (today["backend"], today["model"], today["locality"]) == ("ollama", "llama3.2", "local")
    assert today["calls"] == 1
    assert (today["usage"]["input_tokens"], today["usage"]["output_tokens"]) == (30, 4)
    assert today["usage"]["cost"] == 0.0
    assert report["month"] == report["today"]
    text = aria(env, "usage")
    assert "ollama/llama3.2 (local): 1 calls, 30 in / 4 out, cost 0.0000" in text.stdout
