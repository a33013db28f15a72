"""Screenshots in prompts (``ChatMessage.images``) reach each backend in its own wire format,
over real HTTP to the protocol test servers."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from aria_desktop.adapters.llm import OllamaBackend, Timeouts
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.adapters.llm.openai_compat import OpenAICompatBackend
from aria_desktop.domain.chat import ChatMessage, ChatRequest
from tests.fakes import FakeAnthropic, FakeOllama, FakeOpenAI

FAST = Timeouts(connect_s=1.0, first_token_s=5.0, stall_s=5.0, total_s=10.0)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))
REQUEST = ChatRequest(
    messages=(
        ChatMessage(role="system", content="You see screens."),
        ChatMessage(role="user", content="What is on the screen?", images=(PNG,)),
    ),
    needs=frozenset({"vision"}),
)


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


async def drain(backend: OllamaBackend | AnthropicBackend | OpenAICompatBackend) -> None:
    try:
        async for _chunk in backend.stream_chat(REQUEST):
            pass
    finally:
        await backend.aclose()


async def test_ollama_gets_base64_images_beside_the_text(ollama: FakeOllama) -> None:
    await drain(OllamaBackend(base_url=ollama.url, model="llava", timeouts=FAST))
    message = ollama.requests_to("/api/chat")[0].json()["messages"][1]
    assert message["content"] == "What is on the screen?"
    assert [base64.b64decode(i) for i in message["images"]] == [PNG]


async def test_anthropic_gets_image_content_blocks_before_the_text() -> None:
    with FakeAnthropic() as server:
        await drain(
            AnthropicBackend(
                api_key="sk-ant-test-key-000000",
                model="claude-sonnet-5-5",
                base_url=server.url,
                timeouts=FAST,
            )
        )
        content = server.requests_to("/v1/messages")[0].json()["messages"][0]["content"]
    assert [block["type"] for block in content] == ["image", "text"]
    assert content[0]["source"]["media_type"] == "image/png"
    assert base64.b64decode(content[0]["source"]["data"]) == PNG


async def test_openai_compatible_servers_get_data_url_parts() -> None:
    with FakeOpenAI() as server:
        await drain(
            OpenAICompatBackend(base_url=server.url, model="m", api_key=None, timeouts=FAST)
        )
        path = next(r.path for r in server.requests if r.path.endswith("/chat/completions"))
        content = server.requests_to(path)[0].json()["messages"][1]["content"]
    assert content[0] == {"type": "text", "text": "What is on the screen?"}
    url = content[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == PNG


def test_messages_without_images_are_unchanged() -> None:
    from aria_desktop.adapters.llm.ollama import build_chat_body

    body = build_chat_body(
        ChatRequest(messages=(ChatMessage(role="user", content="hi"),)), model="m", keep_alive=None
    )
    assert body["messages"] == [{"role": "user", "content": "hi"}]
