"""An OpenAI-compatible server on another host is labelled cloud in the reply badge and the tray.

The backend is composed from the settings by the composition root (``build_router``), as in
``aria desktop``, with a URL on a host that is not this machine. Its traffic goes through an
HTTP proxy that is the OpenAI-compatible test server on 127.0.0.1, so nothing leaves loopback.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.compose.llm import build_router
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.settings import LLMSettings, OpenAICompatSettings, RetrySettings, Settings
from tests.fakes import FakeOpenAI
from tests.fakes.audit import MemoryAuditStore
from tests.fakes.http_server import REMOTE_URL, proxy_env
from tests.fakes.openai_server import openai_text
from tests.gui.conftest import Runner, Stack, wait_for


@pytest.fixture
def remote_openai(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """The test server, reached as :data:`REMOTE_URL` through the proxy environment."""
    with FakeOpenAI() as server:
        for name, value in proxy_env(server).items():
            monkeypatch.setenv(name, value)
        yield server


@pytest.fixture
def cloud_stack(tmp_path: Path, remote_openai: FakeOpenAI, run: Runner) -> Iterator[Stack]:
    settings = Settings(
        llm=LLMSettings(
            openai=OpenAICompatSettings(url=REMOTE_URL, model="smollm2"),
            chains={"chat": ("openai",), "extract": ("openai",)},
            retry=RetrySettings(max_attempts=1),
        )
    )

    async def build() -> Stack:
        db = await Database.open(tmp_path / "aria.db")
        router = build_router(settings)
        audit = AuditLog(MemoryAuditStore())
        orchestrator = Orchestrator(model=router, store=SQLiteConversationStore(db), audit=audit)
        return Stack(orchestrator, router, db)

    stack = run(build())
    yield stack
    run(stack.aclose())


def test_a_model_server_on_another_host_is_labelled_cloud(
    desktop_factory: Any, cloud_stack: Stack, remote_openai: FakeOpenAI, run: Runner
) -> None:
    remote_openai.script("/v1/chat/completions", openai_text("Answered from afar.", chunks=3))
    desktop = desktop_factory(cloud_stack.assistant, use_tray=True)
    finished: list[str] = []
    desktop.chat.turn_finished.connect(lambda _run, status: finished.append(status))
    desktop.chat_view.composer.setPlainText("Where do you run?")
    desktop.chat_view.send_button.click()
    run(wait_for(lambda: bool(finished)))
    assert finished == ["complete"]
    text = desktop.chat_view.transcript.plain_text()
    assert "Answered from afar." in text
    assert "smollm2 · cloud (openai) ·" in text
    run(wait_for(lambda: desktop.tray.state == "idle" and desktop.tray.backend == "openai"))
    assert "Model: cloud (openai)" in desktop.tray_view.icon.toolTip()
    (sent,) = remote_openai.requests_to("/v1/chat/completions")
    assert sent.headers["host"] == "models.example.test:8080"  # it went through the proxy
