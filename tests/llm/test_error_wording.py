"""What the model errors say: a bare 404 is "not Ollama", not "pull the model"; a paused backend
says how many tries failed; message and hint read as sentences; each hint is given once."""

from __future__ import annotations

from aria_desktop.adapters.llm import BreakerPolicy, OllamaBackend, RetryPolicy, Router
from aria_desktop.domain.error_text import with_hint
from aria_desktop.domain.errors import (
    CircuitOpenError,
    MalformedResponseError,
    ModelNotFoundError,
    NoBackendError,
)
from tests.fakes import FakeOllama, closed_port
from tests.fakes.http_server import FakeHTTPServer
from tests.fakes.ollama_server import ollama_error
from tests.llm.conftest import FAST, REQUEST, FakeClock, collect_until_error


async def test_a_404_from_a_server_that_is_not_ollama_says_so_not_pull_the_model() -> None:
    with FakeHTTPServer() as other:  # answers every path with a plain 404
        backend = OllamaBackend(base_url=other.url, model="llama3.2", timeouts=FAST)
        _, error = await collect_until_error(backend.stream_chat(REQUEST))
        await backend.aclose()
    assert isinstance(error, MalformedResponseError)
    assert "the address answers, but not as ollama does" in error.message
    assert "pull" not in error.hint.lower()
    assert not error.retryable


async def test_ollama_lacking_the_model_still_says_pull_it(ollama_server: FakeOllama) -> None:
    ollama_server.script("/api/chat", ollama_error(404, 'model "llama3.2" not found'))
    backend = OllamaBackend(base_url=ollama_server.url, model="llama3.2", timeouts=FAST)
    _, error = await collect_until_error(backend.stream_chat(REQUEST))
    await backend.aclose()
    assert isinstance(error, ModelNotFoundError)
    assert "ollama pull llama3.2" in error.hint


async def test_a_backend_paused_after_one_failed_try_says_one_not_repeatedly(
    ollama_server: FakeOllama, clock: FakeClock
) -> None:
    ollama_server.default_reply = lambda request: ollama_error(500, "down")
    r = Router(
        {"ollama": OllamaBackend(base_url=ollama_server.url, model="m", timeouts=FAST)},
        {"chat": ("ollama",)},
        retry=RetryPolicy(max_attempts=1),
        breaker=BreakerPolicy(failure_threshold=1, reset_s=30.0),
        monotonic=clock.monotonic,
        sleep=clock.sleep,
    )
    await collect_until_error(r.stream(REQUEST))  # the one question that failed
    _, error = await collect_until_error(r.stream(REQUEST))
    await r.aclose()
    assert isinstance(error, NoBackendError)
    paused = error.__cause__
    assert isinstance(paused, CircuitOpenError)
    assert "paused after 1 failed try; ARIA tries it again in 30 s" in paused.message
    assert "repeatedly" not in paused.message


async def test_no_backend_gives_each_hint_once() -> None:
    with closed_port() as port:
        r = Router(
            {
                "ollama": OllamaBackend(
                    base_url=f"http://127.0.0.1:{port}", model="m", timeouts=FAST
                )
            },
            {"chat": ("ollama", "anthropic")},
            retry=RetryPolicy(max_attempts=1),
        )
        _, error = await collect_until_error(r.stream(REQUEST))
        await r.aclose()
    assert isinstance(error, NoBackendError)
    assert "ollama serve" in error.hint
    assert error.hint.count("aria config set llm.ollama.url") == 1
    assert error.hint.count("aria doctor") == 1


def test_a_message_and_its_hint_read_as_two_sentences() -> None:
    assert (
        with_hint("cannot connect: All connection attempts failed", "Is Ollama running?")
        == "cannot connect: All connection attempts failed. Is Ollama running?"
    )
    assert with_hint("It stopped.", "Start it.") == "It stopped. Start it."
    assert with_hint("It stopped", "") == "It stopped"
