"""Reasoning kept apart from the answer by every backend, over real HTTP against fake servers."""

from __future__ import annotations

import pytest

from aria_desktop.adapters.llm import OllamaBackend, OpenAICompatBackend
from aria_desktop.adapters.llm._thinking import ThinkTagSplitter
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.domain.chat import (
    ChatMessage,
    ChatRequest,
    LLMChunk,
    StreamEnd,
    TextDelta,
    ThinkingDelta,
    ThinkMode,
    ToolCall,
    ToolCallChunk,
    thinking_enabled,
)
from tests.fakes import FakeAnthropic, FakeOllama, FakeOpenAI, Send
from tests.fakes.anthropic_server import (
    anthropic_stream,
    message_start,
    message_stop,
    text_block,
    thinking_block,
    tool_use_block,
)
from tests.fakes.ollama_server import chat_line, done_line, ollama_stream, ollama_text
from tests.fakes.openai_server import chunk, finish, openai_stream
from tests.llm.conftest import FAST, collect, text_of

MODEL = "claude-test-1"


def thinking_of(chunks: list[LLMChunk]) -> str:
    return "".join(c.text for c in chunks if isinstance(c, ThinkingDelta))


def request(think: ThinkMode = "auto", **kwargs: object) -> ChatRequest:
    return ChatRequest(
        messages=(ChatMessage(role="user", content="Is 91 prime?"),),
        think=think,
        **kwargs,  # type: ignore[arg-type]
    )


def test_auto_thinks_only_with_the_thinking_capability() -> None:
    assert thinking_enabled("auto", frozenset({"tools", "thinking"}))
    assert not thinking_enabled("auto", frozenset({"tools"}))
    assert thinking_enabled("on", frozenset())
    assert not thinking_enabled("off", frozenset({"thinking"}))


@pytest.mark.parametrize(
    ("pieces", "thinking", "answer"),
    [
        (["<think>a b</think>\n\nYes."], "a b", "Yes."),
        (["<th", "ink>a ", "b</th", "ink>", "\n", "\nYes", "."], "a b", "Yes."),
        (["  <think>", "x", "</think", ">Y"], "x", "Y"),
        (["No tags <think>here</think>"], "", "No tags <think>here</think>"),
        (["<think>never closed"], "never closed", ""),
        (["<", "b>bold</b>"], "", "<b>bold</b>"),
    ],
)
def test_think_tags_split_across_chunks_become_thinking(
    pieces: list[str], thinking: str, answer: str
) -> None:
    splitter = ThinkTagSplitter()
    out = [c for piece in pieces for c in splitter.feed(piece)] + list(splitter.flush())
    assert "".join(c.text for c in out if isinstance(c, ThinkingDelta)) == thinking
    assert "".join(c.text for c in out if isinstance(c, TextDelta)) == answer


def ollama(server: FakeOllama, capabilities: frozenset[str]) -> OllamaBackend:
    return OllamaBackend(
        base_url=server.url, model="qwen3", timeouts=FAST, capabilities=capabilities
    )


@pytest.mark.parametrize(
    ("mode", "capabilities", "sent"),
    [
        ("auto", frozenset({"tools", "thinking"}), True),
        ("auto", frozenset({"tools"}), None),
        ("on", frozenset(), True),
        ("off", frozenset({"thinking"}), False),
    ],
)
async def test_ollama_think_field_follows_llm_think(
    ollama_server: FakeOllama, mode: ThinkMode, capabilities: frozenset[str], sent: bool | None
) -> None:
    ollama_server.script("/api/chat", ollama_text("No.", model="qwen3"))
    backend = ollama(ollama_server, capabilities)
    await collect(backend.stream_chat(request(mode)))
    await backend.aclose()
    body = ollama_server.requests_to("/api/chat")[0].json()
    assert body.get("think") == sent


async def test_ollama_message_thinking_arrives_apart_from_content(
    ollama_server: FakeOllama,
) -> None:
    ollama_server.script(
        "/api/chat",
        ollama_stream(
            [
                Send(chat_line("qwen3", thinking="91 = 7 x 13, ")),
                Send(chat_line("qwen3", thinking="so not prime.")),
                Send(chat_line("qwen3", "No, ")),
                Send(chat_line("qwen3", "91 = 7 x 13.")),
                Send(done_line("qwen3")),
            ]
        ),
    )
    backend = ollama(ollama_server, frozenset({"thinking"}))
    chunks = await collect(backend.stream_chat(request()))
    await backend.aclose()
    assert thinking_of(chunks) == "91 = 7 x 13, so not prime."
    assert text_of(chunks) == "No, 91 = 7 x 13."
    assert isinstance(chunks[-1], StreamEnd)


async def test_ollama_inline_think_tags_are_split_out(ollama_server: FakeOllama) -> None:
    ollama_server.script(
        "/api/chat",
        ollama_stream(
            [Send(chat_line("r1", p)) for p in ["<thi", "nk>hmm</thi", "nk>\n\nNo."]]
            + [Send(done_line("r1"))]
        ),
    )
    backend = ollama(ollama_server, frozenset())
    chunks = await collect(backend.stream_chat(request()))
    await backend.aclose()
    assert (thinking_of(chunks), text_of(chunks)) == ("hmm", "No.")


def openai(server: FakeOpenAI) -> OpenAICompatBackend:
    return OpenAICompatBackend(base_url=server.url, model="r1", api_key=None, timeouts=FAST)


async def test_openai_reasoning_content_and_think_tags_become_thinking(
    openai_server: FakeOpenAI,
) -> None:
    openai_server.script(
        "/v1/chat/completions",
        openai_stream(
            [
                chunk({"role": "assistant", "content": ""}),
                chunk({"reasoning_content": "7 x 13 "}),
                chunk({"reasoning_content": "= 91"}),
                chunk({"content": "No."}),
                *finish(),
            ]
        ),
        openai_stream(
            [
                chunk({"content": "<think>"}),
                chunk({"content": "7 x 13</thi"}),
                chunk({"content": "nk>No"}),
                chunk({"content": "."}),
                *finish(),
            ]
        ),
    )
    backend = openai(openai_server)
    first = await collect(backend.stream_chat(request()))
    second = await collect(backend.stream_chat(request()))
    await backend.aclose()
    assert (thinking_of(first), text_of(first)) == ("7 x 13 = 91", "No.")
    assert (thinking_of(second), text_of(second)) == ("7 x 13", "No.")


@pytest.mark.parametrize(
    ("mode", "capabilities", "sent"),
    [
        ("auto", frozenset({"thinking"}), {"enable_thinking": True}),
        ("auto", frozenset(), None),
        ("off", frozenset({"thinking"}), {"enable_thinking": False}),
    ],
)
async def test_local_openai_server_gets_the_chat_template_thinking_switch(
    openai_server: FakeOpenAI, mode: ThinkMode, capabilities: frozenset[str], sent: object
) -> None:
    openai_server.script(
        "/v1/chat/completions", openai_stream([chunk({"content": "x"}), *finish()])
    )
    backend = OpenAICompatBackend(
        base_url=openai_server.url,
        model="qwen3",
        api_key=None,
        timeouts=FAST,
        capabilities=capabilities,
    )
    await collect(backend.stream_chat(request(mode)))
    await backend.aclose()
    body = openai_server.requests_to("/v1/chat/completions")[0].json()
    assert body.get("chat_template_kwargs") == sent


def anthropic(server: FakeAnthropic, capabilities: frozenset[str]) -> AnthropicBackend:
    return AnthropicBackend(
        api_key="sk-ant-test",
        model=MODEL,
        base_url=server.url,
        timeouts=FAST,
        capabilities=capabilities,
    )


async def test_anthropic_thinking_blocks_signature_and_cache_usage(
    anthropic_server: FakeAnthropic,
) -> None:
    anthropic_server.script(
        "/v1/messages",
        anthropic_stream(
            [
                message_start(MODEL, input_tokens=12, cache_read=900, cache_write=100),
                *thinking_block(0, "Check 7: 7 x 13 = 91.", signature="sig-abc"),
                *text_block(1, "No, 91 = 7 x 13."),
                *message_stop(output_tokens=40),
            ]
        ),
    )
    backend = anthropic(anthropic_server, frozenset({"tools", "thinking"}))
    chunks = await collect(backend.stream_chat(request(max_tokens=500, temperature=0.3)))
    await backend.aclose()
    assert thinking_of(chunks) == "Check 7: 7 x 13 = 91."
    assert text_of(chunks) == "No, 91 = 7 x 13."
    signatures = [c.signature for c in chunks if isinstance(c, ThinkingDelta) and c.signature]
    assert signatures == ["sig-abc"]
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    assert (end.usage.input_tokens, end.usage.output_tokens) == (12, 40)
    assert (end.usage.cache_read_tokens, end.usage.cache_write_tokens) == (900, 100)
    body = anthropic_server.requests_to("/v1/messages")[0].json()
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == 500 + 2048  # the budget comes on top of the answer's tokens
    assert "temperature" not in body  # Anthropic takes none with thinking on


async def test_anthropic_tool_loop_sends_the_signed_thinking_back(
    anthropic_server: FakeAnthropic,
) -> None:
    anthropic_server.script(
        "/v1/messages",
        anthropic_stream([message_start(MODEL), *text_block(0, "Done."), *message_stop()]),
    )
    call = ToolCall(id="toolu_1", name="calc", arguments={"x": 91})
    messages = (
        ChatMessage(role="user", content="Is 91 prime?"),
        ChatMessage(
            role="assistant",
            content="",
            tool_calls=(call,),
            thinking="Let me factor it.",
            thinking_signature="sig-1",
        ),
        ChatMessage(role="tool", content="7 x 13", tool_call_id="toolu_1", name="calc"),
    )
    backend = anthropic(anthropic_server, frozenset({"tools"}))
    await collect(backend.stream_chat(ChatRequest(messages=messages, think="on")))
    await backend.aclose()
    body = anthropic_server.requests_to("/v1/messages")[0].json()
    assistant = body["messages"][1]["content"]
    assert assistant[0] == {
        "type": "thinking",
        "thinking": "Let me factor it.",
        "signature": "sig-1",
    }
    assert assistant[1]["type"] == "tool_use"


async def test_anthropic_without_thinking_sends_no_thinking_param(
    anthropic_server: FakeAnthropic,
) -> None:
    anthropic_server.script(
        "/v1/messages",
        anthropic_stream([message_start(MODEL), *tool_use_block(0, "calc", {}), *message_stop()]),
    )
    backend = anthropic(anthropic_server, frozenset({"tools"}))
    chunks = await collect(backend.stream_chat(request(temperature=0.3)))
    await backend.aclose()
    assert any(isinstance(c, ToolCallChunk) for c in chunks)
    body = anthropic_server.requests_to("/v1/messages")[0].json()
    assert "thinking" not in body
    assert body["temperature"] == 0.3
