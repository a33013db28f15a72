"""A long conversation with every ARIA tool fits a small local model's window.

The app is composed as ``aria daemon`` composes it (``compose.app.build_app``, Home Assistant
configured so its tools are offered too), so the tool list is the real one the agent sends. A
60-turn conversation with tool calls, 20 recalled memories (the real recall block) and the
system prompt go through the real router to the Ollama test server, whose ``/api/show``
reports a 4k or 8k window; the test checks what the server received.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.backends.fail
import pytest

from aria_desktop import keystore, log
from aria_desktop.compose.app import build_app
from aria_desktop.core.memory.recall_text import memories_message
from aria_desktop.domain.chat import ChatMessage, ChatRequest, PromptBudgeted, ToolCall
from aria_desktop.domain.memory import Memory
from aria_desktop.domain.prompt_budget import estimate_message, estimate_tool, reply_reserve
from aria_desktop.settings.loading import load_settings
from tests.fakes import FakeOllama
from tests.llm.conftest import collect, text_of


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("CONFIG", "DATA", "STATE", "RUNTIME"):
        monkeypatch.setenv(f"ARIA_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.setattr(keystore, "_env_values", {})
    monkeypatch.setenv("ARIA_HOMEASSISTANT_TOKEN", "test-token")
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())  # type: ignore[no-untyped-call]
    yield
    keyring.set_keyring(previous)
    log.clear_registered_secrets()


def sixty_turns(tool_names: list[str]) -> list[ChatMessage]:
    """60 past turns; every fourth calls one of ARIA's tools and gets a result."""
    messages: list[ChatMessage] = []
    for i in range(60):
        messages.append(
            ChatMessage(role="user", content=f"Turn {i}: can you help me plan the week? " * 3)
        )
        if i % 4 == 0:
            name = tool_names[i % len(tool_names)]
            call = ToolCall(id=f"call-{i}", name=name, arguments={"query": f"step {i}"})
            messages.append(ChatMessage(role="assistant", content="", tool_calls=(call,)))
            messages.append(
                ChatMessage(
                    role="tool", content=f"output {i} " * 30, tool_call_id=call.id, name=name
                )
            )
        messages.append(
            ChatMessage(role="assistant", content=f"Here is the plan for turn {i}. " * 4)
        )
    return messages


def from_wire(message: dict[str, Any]) -> ChatMessage:
    """A message as Ollama received it, back in ARIA's form (to estimate what was sent)."""
    calls = tuple(
        ToolCall(id="", name=c["function"]["name"], arguments=c["function"]["arguments"])
        for c in message.get("tool_calls", [])
    )
    return ChatMessage(role=message["role"], content=message["content"], tool_calls=calls)


@pytest.mark.parametrize("window", [4096, 8192])
async def test_sixty_turns_twenty_memories_and_all_tools_fit_the_window(
    tmp_path: Path, window: int
) -> None:
    with FakeOllama() as ollama:
        ollama.context_length = window
        settings_file = tmp_path / "settings.toml"
        settings_file.write_text("", encoding="utf-8")
        settings = load_settings(
            settings_file,
            {
                "ARIA_LLM__OLLAMA__URL": ollama.url,
                "ARIA_LLM__CHAINS__CHAT": "ollama",
                "ARIA_MEMORY__EMBEDDER": "none",
                "ARIA_MEMORY__AUTO_EXTRACT": "false",
                "ARIA_HOMEASSISTANT__URL": "http://127.0.0.1:9",
            },
        )
        app = await build_app(settings)
        try:
            tools = app.orchestrator.tools.specs()
            names = [t.name for t in tools]
            assert len(tools) >= 15
            assert {"remember", "file_read", "ha_call_service"} <= set(names)
            system = ChatMessage(role="system", content=settings.agent.system_prompt)
            recalled = memories_message(
                [
                    Memory(id=f"mem_{i:04x}", content=f"The user's favourite thing #{i} is tea.")
                    for i in range(20)
                ]
            )
            newest = ChatMessage(role="user", content="So, what did we decide for Friday?")
            prompt = (system, recalled, *sixty_turns(names), newest)
            request = ChatRequest(messages=prompt, tools=tools, max_tokens=settings.llm.max_tokens)
            chunks = await collect(app.router.stream(request))
        finally:
            with contextlib.suppress(Exception):
                await app.aclose()
        (sent,) = [r.json() for r in ollama.requests_to("/api/chat")]
    assert text_of(chunks) == "Hello from fake Ollama."
    budget = next(c for c in chunks if isinstance(c, PromptBudgeted))
    assert budget.dropped_messages > 0
    assert sent["options"]["num_ctx"] == window
    received = sent["messages"]
    assert received[0] == {"role": "system", "content": system.content}
    assert received[-1] == {"role": "user", "content": newest.content}
    # The estimate of what was sent (messages as ARIA sent them + tools) leaves the reserve free.
    sent_tools = {t["function"]["name"] for t in sent.get("tools", [])}
    size = sum(estimate_message(from_wire(m)) for m in received)
    size += sum(estimate_tool(t) for t in tools if t.name in sent_tools)
    assert size <= window - reply_reserve(window, settings.llm.max_tokens)
    # Tool calls and their results arrive together or not at all.
    called = [m for m in received if m.get("tool_calls")]
    results = [m for m in received if m["role"] == "tool"]
    assert len(called) == len(results)
    if window == 8192:
        assert len(sent_tools) == len(tools)  # every tool fits an 8k window
        assert any("<memories>" in m["content"] for m in received)
    else:
        assert 0 < len(sent_tools) < len(tools)
