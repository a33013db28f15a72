"""Loading an Ollama model ahead of a turn (``adapters/llm/ollama_load.py``) and ``aria doctor``'s
load time line, against the Ollama test server: the documented load request (``/api/generate``
without a prompt, with ``keep_alive``), a missing model with ``ollama pull``, a server that is not
running."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aria_desktop.adapters.llm.ollama_load import load_ollama_model
from aria_desktop.doctor.model_load import check_model_load
from aria_desktop.domain.errors import BackendUnreachableError, ModelNotFoundError
from aria_desktop.settings import LLMSettings, OllamaSettings, Settings
from tests.fakes import FakeOllama, closed_port
from tests.fakes.http_server import json_reply


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama(models=["llama3.2:3b"]) as server:
        yield server


async def test_the_load_request_names_the_model_and_keep_alive(ollama: FakeOllama) -> None:
    await load_ollama_model(ollama.url, "llama3.2:3b", keep_alive="30m", timeout_s=5)
    (request,) = ollama.requests_to("/api/generate")
    assert request.json() == {"model": "llama3.2:3b", "stream": False, "keep_alive": "30m"}


async def test_a_missing_model_says_how_to_pull_it(ollama: FakeOllama) -> None:
    with pytest.raises(ModelNotFoundError) as caught:
        await load_ollama_model(ollama.url, "mistral:7b", keep_alive=None, timeout_s=5)
    assert "ollama pull mistral:7b" in caught.value.hint


async def test_a_server_that_is_not_running_is_unreachable() -> None:
    with closed_port() as port, pytest.raises(BackendUnreachableError) as caught:
        await load_ollama_model(f"http://127.0.0.1:{port}", "x", keep_alive=None, timeout_s=5)
    assert "ollama serve" in caught.value.hint


def _settings(url: str, model: str) -> Settings:
    return Settings(
        llm=LLMSettings(ollama=OllamaSettings(url=url, model=model), chains={"chat": ("ollama",)})
    )


async def test_doctor_reports_the_load_time(ollama: FakeOllama) -> None:
    ollama.script(
        "/api/generate", json_reply(200, {"model": "llama3.2:3b", "response": "", "done": True})
    )
    (result,) = await check_model_load(_settings(ollama.url, "llama3.2:3b"))
    assert result.status == "OK"
    assert result.detail.startswith("model llama3.2:3b loaded in ")
    assert result.detail.endswith(" s")


async def test_doctor_names_the_pull_command_for_a_missing_model(ollama: FakeOllama) -> None:
    (result,) = await check_model_load(_settings(ollama.url, "qwen3:8b"))
    assert result.status == "WARN"
    assert result.fix.startswith("ollama pull qwen3:8b")


async def test_doctor_skips_the_check_without_ollama_in_the_chat_chain() -> None:
    settings = Settings(llm=LLMSettings(chains={"chat": ("anthropic",)}))
    assert await check_model_load(settings) == []
