"""Model facts learned from the server and applied by the router: ``num_ctx`` from ``/api/show``
(capped, or the setting), no tools for a model without them, no screenshot for a model without
vision, ``context_overflow`` fallback, llama.cpp's ``/props``, Anthropic's table."""

from __future__ import annotations

from typing import Any

import pytest

from aria_desktop.adapters.llm import OllamaBackend, OpenAICompatBackend, Router
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.adapters.llm.model_facts import DEFAULT_CONTEXT_TOKENS
from aria_desktop.domain.chat import (
    ChatMessage,
    ChatRequest,
    FallbackNotice,
    PromptBudgeted,
    ToolSpec,
)
from aria_desktop.domain.errors import ContextOverflowError
from aria_desktop.domain.prompt_budget import estimate_prompt
from tests.fakes import FakeAnthropic, FakeOllama, FakeOpenAI
from tests.fakes.anthropic_server import anthropic_text
from tests.fakes.http_server import RecordedRequest, Reply, json_reply
from tests.fakes.ollama_server import ollama_text
from tests.llm.conftest import FAST, REQUEST, collect, collect_until_error, text_of

CLAUDE = "claude-test-1"
TOOL = ToolSpec(
    name="recall",
    description="Search long-term memory.",
    parameters={"type": "object", "properties": {"query": {"type": "string"}}},
)
PNG = b"\x89PNG\r\n\x1a\nfake-screenshot"


def ollama(url: str, **kwargs: Any) -> OllamaBackend:
    return OllamaBackend(base_url=url, model="llama3.2", timeouts=FAST, **kwargs)


def claude(server: FakeAnthropic, **kwargs: Any) -> AnthropicBackend:
    return AnthropicBackend(
        api_key="sk-ant-x", model=CLAUDE, base_url=server.url, timeouts=FAST, **kwargs
    )


def chat_bodies(server: FakeOllama) -> list[dict[str, Any]]:
    return [r.json() for r in server.requests_to("/api/chat")]


@pytest.mark.parametrize(
    ("reported", "kwargs", "num_ctx"),
    [
        (4096, {}, 4096),  # learned as it is
        (131_072, {}, 8192),  # learned, capped by llm.max_context_tokens' default
        (32_768, {"max_context_tokens": 16_384}, 16_384),  # another cap
        (131_072, {"context_tokens": 12_000}, 12_000),  # the setting wins, uncapped
    ],
)
async def test_num_ctx_is_always_sent_from_the_learned_or_set_window(
    ollama_server: FakeOllama, reported: int, kwargs: dict[str, Any], num_ctx: int
) -> None:
    ollama_server.context_length = reported
    router = Router({"ollama": ollama(ollama_server.url, **kwargs)}, {"chat": ["ollama"]})
    for _ in range(2):
        assert text_of(await collect(router.stream(REQUEST))) == "Hello from fake Ollama."
    await router.aclose()
    assert [b["options"]["num_ctx"] for b in chat_bodies(ollama_server)] == [num_ctx, num_ctx]
    # Learned once per model, not per turn.
    shows = ollama_server.requests_to("/api/show")
    assert [r.json() for r in shows] == [{"model": "llama3.2"}]


async def test_a_new_model_is_learned_afresh(ollama_server: FakeOllama) -> None:
    ollama_server.show_overrides["qwen3:8b"] = (40_960, ["completion", "tools", "thinking"])
    ollama_server.context_length = 2048
    backend = ollama(ollama_server.url, max_context_tokens=65_536)
    router = Router({"ollama": backend}, {"chat": ["ollama"]})
    await collect(router.stream(REQUEST))
    backend._model = "qwen3:8b"  # what a changed llm.ollama.model does to the live backend
    await collect(router.stream(REQUEST))
    await router.aclose()
    assert [b["options"]["num_ctx"] for b in chat_bodies(ollama_server)] == [2048, 40_960]
    assert backend.capabilities == {"completion", "tools", "thinking"}


async def test_a_model_without_tools_gets_no_tool_schemas(ollama_server: FakeOllama) -> None:
    ollama_server.capabilities = ["completion"]
    router = Router({"ollama": ollama(ollama_server.url)}, {"chat": ["ollama"]})
    request = ChatRequest(messages=REQUEST.messages, tools=(TOOL,))
    assert text_of(await collect(router.stream(request))) == "Hello from fake Ollama."
    await router.aclose()
    (body,) = chat_bodies(ollama_server)
    assert "tools" not in body


async def test_a_model_with_tools_gets_them(ollama_server: FakeOllama) -> None:
    router = Router({"ollama": ollama(ollama_server.url)}, {"chat": ["ollama"]})
    await collect(router.stream(ChatRequest(messages=REQUEST.messages, tools=(TOOL,))))
    await router.aclose()
    (body,) = chat_bodies(ollama_server)
    assert [t["function"]["name"] for t in body["tools"]] == ["recall"]


async def test_a_turn_that_needs_tools_moves_on_under_capability(
    ollama_server: FakeOllama, anthropic_server: FakeAnthropic
) -> None:
    ollama_server.capabilities = ["completion"]
    anthropic_server.script("/v1/messages", anthropic_text("With tools.", model=CLAUDE))
    router = Router(
        {"ollama": ollama(ollama_server.url), "anthropic": claude(anthropic_server)},
        {"chat": ["ollama", "anthropic"]},
    )
    request = ChatRequest(messages=REQUEST.messages, tools=(TOOL,), needs=frozenset({"tools"}))
    chunks = await collect(router.stream(request))
    await router.aclose()
    assert chunks[0] == FallbackNotice(
        from_backend="ollama", to_backend="anthropic", reason="llm_capability_missing"
    )
    assert text_of(chunks) == "With tools."
    assert chat_bodies(ollama_server) == []


async def test_a_model_without_vision_never_gets_the_screenshot(
    ollama_server: FakeOllama, anthropic_server: FakeAnthropic
) -> None:
    # Configured as a vision model, but the server knows better.
    ollama_server.capabilities = ["completion", "tools"]
    anthropic_server.script("/v1/messages", anthropic_text("I see a window.", model=CLAUDE))
    backend = ollama(ollama_server.url, capabilities=frozenset({"tools", "vision"}))
    router = Router(
        {"ollama": backend, "anthropic": claude(anthropic_server)},
        {"chat": ["ollama", "anthropic"]},
    )
    shot = ChatMessage(role="user", content="What is on the screen?", images=(PNG,))
    request = ChatRequest(messages=(shot,), needs=frozenset({"vision"}))
    chunks = await collect(router.stream(request))
    await router.aclose()
    assert text_of(chunks) == "I see a window."
    assert chat_bodies(ollama_server) == []
    assert backend.capabilities == {"completion", "tools"}


async def test_a_vision_model_gets_the_screenshot(ollama_server: FakeOllama) -> None:
    ollama_server.capabilities = ["completion", "tools", "vision"]
    router = Router({"ollama": ollama(ollama_server.url)}, {"chat": ["ollama"]})
    shot = ChatMessage(role="user", content="What is on the screen?", images=(PNG,))
    await collect(router.stream(ChatRequest(messages=(shot,), needs=frozenset({"vision"}))))
    await router.aclose()
    (body,) = chat_bodies(ollama_server)
    assert body["messages"][0]["images"]


def long_prompt(turns: int) -> tuple[ChatMessage, ...]:
    messages = [ChatMessage(role="system", content="You are ARIA.")]
    for i in range(turns):
        messages.append(ChatMessage(role="user", content=f"Question {i}. " * 20))
        messages.append(ChatMessage(role="assistant", content=f"Answer {i}. " * 20))
    messages.append(ChatMessage(role="user", content="And finally?"))
    return tuple(messages)


async def test_a_long_history_is_fitted_and_the_dropped_count_reported(
    ollama_server: FakeOllama,
) -> None:
    ollama_server.context_length = 2048
    router = Router({"ollama": ollama(ollama_server.url)}, {"chat": ["ollama"]})
    prompt = long_prompt(40)
    chunks = await collect(router.stream(ChatRequest(messages=prompt, max_tokens=256)))
    await router.aclose()
    (budget,) = [c for c in chunks if isinstance(c, PromptBudgeted)]
    (body,) = chat_bodies(ollama_server)
    assert budget.backend == "ollama"
    assert budget.context_tokens == 2048 == body["options"]["num_ctx"]
    assert budget.dropped_messages == len(prompt) - len(body["messages"]) > 0
    assert body["messages"][0]["content"] == "You are ARIA."
    assert body["messages"][-1]["content"] == "And finally?"


async def test_a_newest_message_too_long_for_ollama_falls_back_to_a_larger_window(
    ollama_server: FakeOllama, anthropic_server: FakeAnthropic
) -> None:
    ollama_server.context_length = 2048
    anthropic_server.script("/v1/messages", anthropic_text("Read it all.", model=CLAUDE))
    router = Router(
        {"ollama": ollama(ollama_server.url), "anthropic": claude(anthropic_server)},
        {"chat": ["ollama", "anthropic"]},
    )
    pasted = ChatMessage(role="user", content="Summarise: " + "lorem ipsum dolor " * 800)
    chunks = await collect(router.stream(ChatRequest(messages=(pasted,))))
    await router.aclose()
    assert chunks[0] == FallbackNotice(
        from_backend="ollama", to_backend="anthropic", reason="llm_context_overflow"
    )
    assert text_of(chunks) == "Read it all."
    assert chat_bodies(ollama_server) == []
    (sent,) = anthropic_server.requests_to("/v1/messages")
    assert "lorem ipsum" in sent.json()["messages"][0]["content"][0]["text"]


async def test_when_no_window_fits_the_user_gets_the_clear_reason(
    ollama_server: FakeOllama, anthropic_server: FakeAnthropic
) -> None:
    ollama_server.context_length = 2048
    router = Router(
        {
            "ollama": ollama(ollama_server.url),
            "anthropic": claude(anthropic_server, context_tokens=3000),
        },
        {"chat": ["ollama", "anthropic"]},
    )
    pasted = ChatMessage(role="user", content="Summarise: " + "lorem ipsum dolor " * 800)
    _, error = await collect_until_error(router.stream(ChatRequest(messages=(pasted,))))
    await router.aclose()
    # Both backends are reachable: the message is too long, not a missing backend.
    assert isinstance(error, ContextOverflowError)
    assert error.message.startswith("The message is too long for every model")
    assert error.message.count("llm_context_overflow") == 2
    assert "does not fit the model's context window" in error.message
    assert "configure" not in (error.hint or "").lower()
    assert error.hint is not None
    assert "larger context window" in error.hint
    assert chat_bodies(ollama_server) == []
    assert anthropic_server.requests_to("/v1/messages") == []


async def test_an_old_ollama_without_capabilities_keeps_the_configured_ones(
    ollama_server: FakeOllama,
) -> None:
    ollama_server.capabilities = None
    backend = ollama(ollama_server.url, capabilities=frozenset({"tools", "vision"}))
    facts = await backend.model_facts()
    await backend.aclose()
    assert facts.capabilities == {"tools", "vision"}
    assert facts.context_tokens == 8192
    assert facts.source == "/api/show"


async def test_a_model_the_server_cannot_describe_uses_the_settings_and_is_asked_again(
    ollama_server: FakeOllama,
) -> None:
    ollama_server.missing.add("llama3.2")
    backend = ollama(ollama_server.url)
    first = await backend.model_facts()
    second = await backend.model_facts()
    await backend.aclose()
    assert first == second
    assert first.context_tokens == DEFAULT_CONTEXT_TOKENS
    assert first.capabilities == {"tools"}
    assert first.source == "settings"
    assert len(ollama_server.requests_to("/api/show")) == 2


#: ``GET /props`` of llama-server (b6xxx) serving SmolLM2 with ``-c 2048 --jinja``, trimmed.
LLAMA_PROPS = {
    "default_generation_settings": {"n_ctx": 2048, "params": {"n_predict": -1}},
    "total_slots": 1,
    "model_alias": "smollm2",
    "model_path": "/models/SmolLM2-135M-Instruct-Q8_0.gguf",
    "modalities": {"vision": False, "video": False, "audio": False},
    "chat_template": "{% for message in messages %}...{% endfor %}",
    "chat_template_caps": {
        "supports_tools": False,
        "supports_tool_calls": False,
        "supports_system_role": True,
        "supports_parallel_tool_calls": False,
    },
    "build_info": "b6000-deadbeef",
}


async def test_llama_server_props_give_the_slot_window_and_capabilities(
    openai_server: FakeOpenAI,
) -> None:
    openai_server.routes[("GET", "/props")] = lambda r: json_reply(200, LLAMA_PROPS)
    backend = OpenAICompatBackend(
        base_url=f"{openai_server.url}/v1", model="smollm2", api_key=None, timeouts=FAST
    )
    router = Router({"openai": backend}, {"chat": ["openai"]})
    request = ChatRequest(messages=long_prompt(40), tools=(TOOL,), max_tokens=256)
    chunks = await collect(router.stream(request))
    await router.aclose()
    assert text_of(chunks) == "Hello from fake OpenAI."
    (budget,) = [c for c in chunks if isinstance(c, PromptBudgeted)]
    assert budget.context_tokens == 2048
    (sent,) = [r.json() for r in openai_server.requests_to("/v1/chat/completions")]
    assert "tools" not in sent  # the template cannot render tool calls
    assert sent["messages"][-1]["content"] == "And finally?"
    assert len(sent["messages"]) < len(request.messages)
    assert backend.capabilities == frozenset()


async def test_a_server_without_props_is_asked_for_v1_models_meta(
    openai_server: FakeOpenAI,
) -> None:
    meta = {"n_ctx": 3072, "n_ctx_train": 8192, "n_vocab": 49152}
    openai_server.routes[("GET", "/v1/models")] = lambda r: json_reply(
        200, {"object": "list", "data": [{"id": "smollm2", "object": "model", "meta": meta}]}
    )
    backend = OpenAICompatBackend(
        base_url=openai_server.url, model="smollm2", api_key=None, timeouts=FAST
    )
    facts = await backend.model_facts()
    await backend.aclose()
    assert facts.context_tokens == 3072
    assert facts.source == "/v1/models"
    assert facts.capabilities == {"tools"}


async def test_anthropic_windows_come_from_the_published_table(
    anthropic_server: FakeAnthropic,
) -> None:
    backend = claude(anthropic_server)
    facts = await backend.model_facts()
    assert facts.context_tokens == 200_000
    assert facts.source == "table"
    # Not Anthropic's address, so the server was asked first; it could not say (no /props).
    assert [(r.method, r.path) for r in anthropic_server.requests] == [("GET", "/props")]
    set_one = claude(anthropic_server, context_tokens=50_000)
    assert (await set_one.model_facts()).context_tokens == 50_000
    await backend.aclose()
    await set_one.aclose()


async def test_a_model_counting_more_tokens_than_estimated_gets_smaller_prompts(
    ollama_server: FakeOllama,
) -> None:
    """A tokenizer that needs 1.5x the estimate (the server's prompt_eval_count says so):
    the first prompt would overrun the window; the next ones are fitted with the ratio."""
    ollama_server.context_length = 4096
    reported: list[int] = []

    def reply(request: RecordedRequest) -> Reply:
        sent = request.json()["messages"]
        real = round(1.5 * estimate_prompt([ChatMessage(**m) for m in sent]))
        reported.append(real)
        return ollama_text("ok", prompt_eval_count=real)

    ollama_server.default_reply = reply
    router = Router({"ollama": ollama(ollama_server.url)}, {"chat": ["ollama"]})
    request = ChatRequest(messages=long_prompt(60), max_tokens=256)
    budgets = []
    for _ in range(2):
        chunks = await collect(router.stream(request))
        budgets += [c for c in chunks if isinstance(c, PromptBudgeted)]
    await router.aclose()
    room = 4096 - 256
    assert reported[0] > room  # what a real server would have cut
    assert reported[1] <= room
    assert budgets[1].dropped_messages > budgets[0].dropped_messages
    assert budgets[1].estimated_tokens <= room


async def test_another_messages_api_server_is_asked_for_its_props(
    anthropic_server: FakeAnthropic,
) -> None:
    """llama-server speaks the Messages API too: its window comes from /props, not the table."""
    anthropic_server.routes[("GET", "/props")] = lambda r: json_reply(200, LLAMA_PROPS)
    backend = AnthropicBackend(
        api_key="sk-local", model="smollm2", base_url=anthropic_server.url, timeouts=FAST
    )
    facts = await backend.model_facts()
    await backend.aclose()
    assert facts.context_tokens == 2048
    assert facts.source == "/props"
    assert facts.capabilities == frozenset()
