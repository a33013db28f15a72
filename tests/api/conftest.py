"""A full ARIA behind the real HTTP API on 127.0.0.1: orchestrator, router to the Ollama test
server, SQLite in tmp_path, long-term memory (keyword search; no extraction, so chat tests keep
their scripted model replies), automations, and httpx clients speaking to it over the loopback.

Parametrize ``memory_enabled`` with False for an ARIA without long-term memory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import openai
import pytest

from aria_desktop import __version__
from aria_desktop.adapters.llm import BreakerPolicy, OllamaBackend, RetryPolicy, Router, Timeouts
from aria_desktop.adapters.memory.episodes import SQLiteEpisodeStore
from aria_desktop.adapters.memory.store import SQLiteMemoryStore
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.webhooks.outgoing import HttpResultSender
from aria_desktop.api.config import ApiConfig
from aria_desktop.api.runner import ApiServer
from aria_desktop.api.token import TokenFile
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.automations import AutomationEngine
from aria_desktop.core.memory.episodes import EpisodeKeeper
from aria_desktop.core.memory.service import MemoryConfig, MemoryService
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.tools import PermissionClass, Tool
from aria_desktop.domain.automation import AutomationSpec
from aria_desktop.settings import FileSettingsAccess
from tests.fakes import FakeOllama
from tests.fakes.audit import MemoryAuditStore

FAST = Timeouts(connect_s=1.0, first_token_s=5.0, stall_s=5.0, total_s=20.0)


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@dataclass
class Api:
    """A running API and what tests need around it."""

    server: ApiServer
    orchestrator: Orchestrator
    store: SQLiteConversationStore
    token_file: TokenFile
    settings_path: Path
    client: httpx.AsyncClient
    calls: list[dict[str, Any]]
    memory_store: SQLiteMemoryStore | None

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def token(self) -> str:
        return self.token_file.read()

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@pytest.fixture
def api_config() -> ApiConfig:
    return ApiConfig(port=0, max_sse_streams=8, rate_limit_per_s=10_000, rate_limit_burst=10_000)


@pytest.fixture
def automations() -> list[AutomationSpec]:
    return []


@pytest.fixture
def memory_enabled() -> bool:
    return True


@pytest.fixture
def model_capabilities() -> frozenset[str]:
    """What the Ollama test server's model can do (parametrize to add "vision")."""
    return frozenset({"tools"})


@pytest.fixture
async def api(
    tmp_path: Path,
    ollama: FakeOllama,
    api_config: ApiConfig,
    automations: list[AutomationSpec],
    memory_enabled: bool,
    model_capabilities: frozenset[str],
) -> AsyncIterator[Api]:
    db = await Database.open(tmp_path / "data" / "aria.db")
    store = SQLiteConversationStore(db)
    # The model's capabilities are learned from /api/show: the fake reports the ones asked for.
    ollama.capabilities = ["completion", *sorted(model_capabilities)]
    router = Router(
        {
            "ollama": OllamaBackend(
                base_url=ollama.url,
                model="llama3.2",
                timeouts=FAST,
                capabilities=model_capabilities,
            )
        },
        {"chat": ("ollama",)},
        retry=RetryPolicy(max_attempts=1, base_delay_s=0.0, max_delay_s=0.0),
        breaker=BreakerPolicy(failure_threshold=1000, reset_s=1.0),
    )
    audit = AuditLog(MemoryAuditStore())
    orchestrator = Orchestrator(
        model=router,
        store=store,
        audit=audit,
        config=AgentConfig(flush_interval_s=0.05, confirm_timeout_s=10.0),
    )
    calls: list[dict[str, Any]] = []

    async def echo(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"echoed": args["text"]}

    tools: tuple[tuple[str, PermissionClass], ...] = (
        ("echo", "read_only"),
        ("send", "consequential"),
    )
    for name, permission in tools:
        orchestrator.tools.register(
            Tool(
                name=name,
                description="Echo text back",
                parameters={
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"],
                },
                permission=permission,
                handler=echo,
            )
        )
    sender = HttpResultSender(timeout_s=5.0)
    engine = AutomationEngine(orchestrator, automations, sender=sender)
    engine.start()
    settings_path = tmp_path / "config" / "settings.toml"
    settings_path.parent.mkdir(parents=True)
    settings_path.write_text("", encoding="utf-8")
    memory_store: SQLiteMemoryStore | None = None
    memory: MemoryService | None = None
    if memory_enabled:
        memory_store = SQLiteMemoryStore(db, None)
        await memory_store.open()
        keeper = EpisodeKeeper(
            episodes=SQLiteEpisodeStore(db, memory_store),
            conversations=store,
            model=None,  # episodes keep the conversation's own lines: no summary request
            forget=memory_store.forget,
        )
        memory = MemoryService(
            store=memory_store,
            model=router,
            conversations=store,
            bus=orchestrator.bus,
            config=MemoryConfig(auto_extract=False),
            episodes=keeper,
        )
    assistant = LocalAssistant(
        orchestrator, memory=memory, settings=FileSettingsAccess(settings_path)
    )
    token_file = TokenFile(tmp_path / "config" / "api" / "token")
    server = ApiServer(assistant, config=api_config, token=token_file, version=__version__)
    await server.start()
    token = token_file.read()
    client = httpx.AsyncClient(
        base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=20.0
    )
    try:
        yield Api(
            server=server,
            orchestrator=orchestrator,
            store=store,
            token_file=token_file,
            settings_path=settings_path,
            client=client,
            calls=calls,
            memory_store=memory_store,
        )
    finally:
        await client.aclose()
        await server.stop()
        await orchestrator.stop()
        await sender.aclose()
        await router.aclose()
        await db.close()


@pytest.fixture
async def oai(api: Api) -> AsyncIterator[openai.AsyncOpenAI]:
    # openai 3.x speaks through httpx2; a loopback server is reached directly, never via a proxy.
    async with (
        httpx2.AsyncClient(trust_env=False, timeout=20) as http,
        openai.AsyncOpenAI(
            base_url=f"{api.url}/v1", api_key=api.token, max_retries=0, http_client=http
        ) as client,
    ):
        yield client
