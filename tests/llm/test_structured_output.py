"""Memory extraction through each backend's structured output, with one repair at most.

The real memory service and router against the scripted Ollama, OpenAI-compatible and
Anthropic servers: what each request asks for (Ollama ``format`` = the schema, OpenAI
``response_format`` ``json_schema``, Anthropic a forced tool), and what happens to an answer
that is not valid (one repair; a second failure is a clear error and nothing is stored).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from aria_desktop.adapters.llm import OllamaBackend, RetryPolicy, Router, Timeouts
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.adapters.llm.openai_compat import OpenAICompatBackend
from aria_desktop.adapters.llm.router import ChatBackend
from aria_desktop.core.memory.service import EXTRACTION_SCHEMA, MemoryConfig, MemoryService
from aria_desktop.domain.errors import StructuredOutputError
from aria_desktop.domain.memory import MemoryFilter
from tests.fakes import FakeAnthropic, FakeOllama
from tests.fakes.anthropic_server import (
    anthropic_stream,
    message_start,
    message_stop,
    tool_use_block,
)
from tests.fakes.http_server import FakeHTTPServer, Reply
from tests.fakes.ollama_server import ollama_text
from tests.fakes.openai_server import FakeOpenAI, finish, openai_stream, text_steps
from tests.fakes.ports import InMemoryMemoryStore

FAST = Timeouts(connect_s=1.0, first_token_s=5.0, stall_s=5.0, total_s=20.0)
GOOD = {"facts": [{"content": "My sister Ana lives in Porto", "kind": "fact", "subject": "Ana"}]}
BAD = {"facts": [{"content": "My sister Ana lives in Porto", "kind": "gossip"}]}
USER_TEXT = "My sister Ana lives in Porto."


@dataclass
class Server:
    """One scripted server, how it answers with JSON, and how a request says what it wants."""

    name: str
    fake: FakeHTTPServer
    path: str
    answer: Callable[[str], Reply]
    backend: Callable[[str], ChatBackend]

    def script(self, *answers: Any) -> None:
        texts = [a if isinstance(a, str) else json.dumps(a) for a in answers]
        self.fake.script(self.path, *(self.answer(text) for text in texts))

    def sent(self) -> list[dict[str, Any]]:
        return [r.json() for r in self.fake.requests_to(self.path)]


def anthropic_answer(text: str) -> Reply:
    """The forced answer tool's call (broken JSON stays a string, as a model could send)."""
    try:
        arguments: dict[str, Any] | str = json.loads(text)
    except ValueError:
        arguments = text
    return anthropic_stream(
        [
            message_start("claude-sonnet-5-5"),
            *tool_use_block(0, "memory_facts", arguments),
            *message_stop("tool_use"),
        ]
    )


@pytest.fixture(params=["ollama", "openai", "anthropic"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    if request.param == "ollama":
        with FakeOllama() as ollama:
            yield Server(
                "ollama",
                ollama,
                "/api/chat",
                lambda t: ollama_text(t, chunks=3),
                lambda url: OllamaBackend(base_url=url, model="qwen2.5:0.5b", timeouts=FAST),
            )
    elif request.param == "openai":
        with FakeOpenAI() as openai:
            yield Server(
                "openai",
                openai,
                "/v1/chat/completions",
                lambda t: openai_stream([*text_steps(t, chunks=3), *finish()]),
                lambda url: OpenAICompatBackend(
                    base_url=url, model="smollm2", api_key=None, timeouts=FAST
                ),
            )
    else:
        with FakeAnthropic() as anthropic:
            yield Server(
                "anthropic",
                anthropic,
                "/v1/messages",
                anthropic_answer,
                lambda url: AnthropicBackend(
                    api_key="sk-ant-test-key-000000",
                    model="claude-sonnet-5-5",
                    base_url=url,
                    timeouts=FAST,
                ),
            )


@pytest.fixture
async def memory(server: Server) -> Any:
    router = Router(
        {server.name: server.backend(server.fake.url)},
        {"extract": (server.name,)},
        retry=RetryPolicy(max_attempts=1, base_delay_s=0.0, max_delay_s=0.0),
    )
    service = MemoryService(store=InMemoryMemoryStore(), model=router, config=MemoryConfig())
    try:
        yield service
    finally:
        await router.aclose()


def asks_for_the_schema(server: Server, body: dict[str, Any]) -> None:
    """The request asks the backend for JSON matching the extraction schema, its own way."""
    if server.name == "ollama":
        assert body["format"] == EXTRACTION_SCHEMA
    elif server.name == "openai":
        assert body["response_format"] == {
            "type": "json_schema",
            "json_schema": {"name": "memory_facts", "schema": EXTRACTION_SCHEMA, "strict": False},
        }
    else:
        [tool] = body["tools"]
        assert tool["name"] == "memory_facts"
        assert tool["input_schema"] == EXTRACTION_SCHEMA
        assert body["tool_choice"] == {"type": "tool", "name": "memory_facts"}


async def test_extraction_asks_for_the_schema_and_stores_a_valid_answer(
    server: Server, memory: MemoryService
) -> None:
    server.script(GOOD)
    assert await memory.extract(USER_TEXT) == 1
    [body] = server.sent()
    asks_for_the_schema(server, body)
    [stored] = await memory.list_memories(MemoryFilter())
    assert stored.content == "My sister Ana lives in Porto"


async def test_an_invalid_answer_gets_one_repair_and_the_repair_is_stored(
    server: Server, memory: MemoryService
) -> None:
    server.script(BAD, GOOD)
    assert await memory.extract(USER_TEXT) == 1
    first, repair = server.sent()
    asks_for_the_schema(server, repair)  # the repair is structured output too
    shown = json.dumps(repair["messages"][-2:])
    assert "gossip" in shown  # the model sees what it wrote
    assert "not valid" in shown
    assert "kind" in shown
    assert len(repair["messages"]) == len(first["messages"]) + 2
    assert [m.content for m in await memory.list_memories(MemoryFilter())] == [
        "My sister Ana lives in Porto"
    ]


async def test_still_invalid_after_the_repair_is_a_clear_error_and_nothing_is_stored(
    server: Server, memory: MemoryService
) -> None:
    # Anthropic's tool input is always JSON (the API checks it); the others may break off
    broken = {"facts": "Ana"} if server.name == "anthropic" else '{"facts": [ {"content": "unt'
    server.script(broken, BAD)
    with pytest.raises(StructuredOutputError) as caught:
        await memory.extract(USER_TEXT)
    assert caught.value.code == "llm_invalid_structured_output"
    assert "even after one repair" in caught.value.message
    assert "Nothing was stored" in caught.value.hint
    assert len(server.sent()) == 2
    assert await memory.list_memories(MemoryFilter()) == []
