"""The prompt budget (``domain/prompt_budget.py``) on plain lists: what is kept, what goes first,
and the clear error when the newest message cannot fit."""

from __future__ import annotations

import pytest

from aria_desktop.domain.chat import ChatMessage, ChatRequest, ToolCall, ToolSpec, recall_message
from aria_desktop.domain.errors import ContextOverflowError
from aria_desktop.domain.prompt_budget import (
    estimate_message,
    estimate_prompt,
    estimate_text,
    fit_request,
    reply_reserve,
)

SYSTEM = ChatMessage(role="system", content="You are ARIA, a helpful desktop assistant. " * 6)


def tool(name: str, description: str) -> ToolSpec:
    params = {"type": "object", "properties": {"query": {"type": "string"}}}
    return ToolSpec(name=name, description=description, parameters=params)


def conversation(turns: int, *, with_tools: bool = True) -> list[ChatMessage]:
    """``turns`` past turns; every third one calls a tool and gets its result."""
    messages: list[ChatMessage] = []
    for i in range(turns):
        messages.append(ChatMessage(role="user", content=f"Question {i}: " + "what about it? " * 8))
        if with_tools and i % 3 == 0:
            call = ToolCall(id=f"call-{i}", name="recall", arguments={"query": f"topic {i}"})
            messages.append(ChatMessage(role="assistant", content="", tool_calls=(call,)))
            messages.append(
                ChatMessage(
                    role="tool", content=f"result {i} " * 20, tool_call_id=call.id, name="recall"
                )
            )
        messages.append(ChatMessage(role="assistant", content=f"Answer {i}. " + "Indeed. " * 12))
    return messages


def memories(count: int) -> ChatMessage:
    items = [
        f"- [m{i}] (fact, saved 2026-01-01) The user likes thing number {i}." for i in range(count)
    ]
    return recall_message("<memories>\nRecalled facts.", items, "</memories>")


def assert_pairs_whole(messages: tuple[ChatMessage, ...]) -> None:
    """Every tool result has its call, and every call its result (backends reject both)."""
    calls = {call.id for m in messages for call in m.tool_calls}
    results = {m.tool_call_id for m in messages if m.role == "tool"}
    assert calls == results


def test_estimate_counts_utf8_bytes_conservatively() -> None:
    assert estimate_text("") == 0
    assert estimate_text("abc") == 1
    assert estimate_text("abcd") == 2  # rounded up
    assert estimate_text("été") == 2  # 5 bytes: accents cost more than ASCII
    call = ToolCall(id="c", name="recall", arguments={"query": "x"})
    with_call = ChatMessage(role="assistant", content="", tool_calls=(call,))
    assert estimate_message(with_call) > estimate_message(ChatMessage(role="assistant", content=""))


def test_reply_reserve_is_the_reply_cap_at_most_1024_and_a_quarter_of_the_window() -> None:
    assert reply_reserve(8192, 2048) == 1024
    assert reply_reserve(2048, 2048) == 512
    assert reply_reserve(8192, 300) == 300


def test_a_prompt_that_fits_is_sent_whole_with_the_window_as_num_ctx() -> None:
    messages = (SYSTEM, *conversation(3), ChatMessage(role="user", content="And now?"))
    request = ChatRequest(messages=messages, tools=(tool("recall", "Recall memories."),))
    fitted = fit_request(request, 8192)
    assert not fitted.trimmed
    assert fitted.request.messages == messages
    assert fitted.request.tools == request.tools
    assert fitted.request.context_tokens == 8192
    assert fitted.budget.estimated_tokens == estimate_prompt(messages, request.tools)


def test_the_reply_is_asked_for_no_more_than_the_window_leaves_it() -> None:
    messages = (SYSTEM, *conversation(3), ChatMessage(role="user", content="And now?"))
    request = ChatRequest(messages=messages, max_tokens=2048)
    small = fit_request(request, 2048)
    prompt = small.budget.estimated_tokens
    assert small.request.max_tokens == 2048 - prompt
    assert small.request.max_tokens >= small.reserve_tokens == 512
    roomy = fit_request(request, 32_768)
    assert roomy.request.max_tokens == 2048  # the user's cap when the window has room for it


def test_history_goes_oldest_turn_first_and_never_splits_a_tool_pair() -> None:
    history = conversation(30)
    newest = ChatMessage(role="user", content="What was the last thing?")
    request = ChatRequest(messages=(SYSTEM, *history, newest), max_tokens=256)
    fitted = fit_request(request, 2048)
    kept = fitted.request.messages
    assert fitted.budget.dropped_messages > 0
    assert kept[0] == SYSTEM
    assert kept[-1] == newest
    # What is left is the newest part of the history, starting at a user message.
    assert kept[1:-1] == tuple(history[len(history) - len(kept) + 2 :])
    assert kept[1].role == "user"
    assert_pairs_whole(kept)
    assert fitted.budget.estimated_tokens <= 2048 - fitted.reserve_tokens
    assert fitted.budget.dropped_messages == len(history) - (len(kept) - 2)


def test_recalled_items_go_lowest_rank_first_after_the_history() -> None:
    block = memories(20)
    newest = ChatMessage(role="user", content="Tell me about my likes.")
    request = ChatRequest(messages=(SYSTEM, block, *conversation(10), newest), max_tokens=128)
    fitted = fit_request(request, 512)
    kept = fitted.request.messages
    assert fitted.budget.dropped_messages > 0
    assert fitted.budget.dropped_recalled > 0
    recalled = [m for m in kept if m.recalled is not None]
    assert len(recalled) == 1
    left = recalled[0].recalled
    assert left is not None
    assert block.recalled is not None
    # The best-ranked items stay, in order; the content is the trimmed block.
    assert left.items == block.recalled.items[: len(left.items)]
    assert 0 < len(left.items) < 20
    assert recalled[0].content == left.render()
    # The history went first: none of it is left while memories are being trimmed.
    assert [m for m in kept if m.recalled is None] == [SYSTEM, newest]


def test_tools_are_held_to_three_fifths_of_the_room_dropping_the_least_relevant_first() -> None:
    tools = tuple(tool(f"tool_{i}", f"Does unrelated job number {i}. " * 10) for i in range(12))
    weather = tool("weather_now", "Tells the current weather for a city.")
    newest = ChatMessage(role="user", content="What is the weather in Paris?")
    request = ChatRequest(messages=(SYSTEM, newest), tools=(*tools, weather), max_tokens=256)
    fitted = fit_request(request, 2048)
    room = 2048 - fitted.reserve_tokens
    assert fitted.budget.dropped_tools > 0
    assert weather in fitted.request.tools  # shares words with the message
    assert estimate_prompt((), fitted.request.tools) <= room * 0.6
    # Among equals, the registry's order decides: the last ones go first.
    kept = [t for t in fitted.request.tools if t is not weather]
    assert kept == list(tools[: len(kept)])


def test_a_tool_used_in_the_current_turn_keeps_its_schema() -> None:
    tools = tuple(tool(f"tool_{i}", f"Does job number {i}. " * 12) for i in range(12))
    used = tools[-1]
    call = ToolCall(id="c1", name=used.name, arguments={"query": "x"})
    current = (
        ChatMessage(role="user", content="Do it."),
        ChatMessage(role="assistant", content="", tool_calls=(call,)),
        ChatMessage(role="tool", content="done", tool_call_id="c1", name=used.name),
    )
    fitted = fit_request(ChatRequest(messages=(SYSTEM, *current), tools=tools), 1536)
    assert fitted.budget.dropped_tools > 0
    assert used in fitted.request.tools
    assert fitted.request.messages == (SYSTEM, *current)


def test_a_newest_message_that_cannot_fit_is_a_clear_error_not_a_truncation() -> None:
    newest = ChatMessage(role="user", content="word " * 3000)
    request = ChatRequest(messages=(SYSTEM, *conversation(2), newest))
    with pytest.raises(ContextOverflowError) as caught:
        fit_request(request, 2048, backend="ollama")
    error = caught.value
    assert error.backend == "ollama"
    assert "does not fit" in error.message
    assert "2048" in error.message
    assert error.hint
    assert "context" in error.hint


def test_the_current_turn_with_its_tool_results_is_kept_whole() -> None:
    call = ToolCall(id="c9", name="recall", arguments={"query": "x"})
    current = (
        ChatMessage(role="user", content="Look it up."),
        ChatMessage(role="assistant", content="", tool_calls=(call,)),
        ChatMessage(role="tool", content="found " * 200, tool_call_id="c9", name="recall"),
    )
    request = ChatRequest(messages=(SYSTEM, *conversation(20), *current), max_tokens=256)
    fitted = fit_request(request, 2048)
    assert fitted.request.messages[-3:] == current
    assert_pairs_whole(fitted.request.messages)
