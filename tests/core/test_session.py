from __future__ import annotations

from aria_desktop.core.session import build_history, estimate_tokens
from aria_desktop.domain.chat import ChatMessage, MessageStatus, Role, StoredMessage, ToolCall


def _msg(
    i: int, role: Role, content: str, status: MessageStatus = "complete", **kw: object
) -> StoredMessage:
    return StoredMessage(
        id=i,
        conversation_id="c",
        role=role,
        content=content,
        status=status,
        created_at=0.0,
        **kw,  # type: ignore[arg-type]
    )


def test_the_newest_whole_exchanges_within_budget_are_kept_oldest_first() -> None:
    stored = [
        _msg(i, "user" if i % 2 == 0 else "assistant", f"m{i} " + "x" * 40) for i in range(10)
    ]
    per = estimate_tokens(ChatMessage(role="user", content="m0 " + "x" * 40))
    history = build_history(stored, budget_tokens=per * 5)
    # Two exchanges fit; the third would need a sixth message's room: never half of one.
    assert [m.content[:2] for m in history] == ["m6", "m7", "m8", "m9"]


def test_history_never_starts_with_a_reply_whose_question_was_cut_off() -> None:
    stored = [
        _msg(1, "assistant", "Welcome back."),
        _msg(2, "user", "What is the capital of Peru?"),
        _msg(3, "assistant", "Lima."),
    ]
    assert [m.content for m in build_history(stored, 10_000)] == [
        "What is the capital of Peru?",
        "Lima.",
    ]


def test_a_failed_turns_question_is_left_out_so_it_cannot_poison_the_next_turn() -> None:
    stored = [
        _msg(1, "user", "Summarise this 12,000-character page"),
        _msg(2, "assistant", "", status="error"),
        _msg(3, "user", "What time is it?"),
        _msg(4, "assistant", "It is 4 pm."),
        _msg(5, "user", "And another question that failed"),
    ]
    history = build_history(stored, 10_000)
    assert [m.content for m in history] == ["What time is it?", "It is 4 pm."]


def test_failed_empty_attempts_are_left_out_but_interrupted_text_is_kept() -> None:
    stored = [
        _msg(1, "user", "hi"),
        _msg(2, "assistant", "", status="error"),
        _msg(3, "assistant", "partial ans", status="interrupted"),
    ]
    history = build_history(stored, 1000)
    assert [m.content for m in history] == ["hi", "partial ans"]


def test_tool_results_never_lose_their_call() -> None:
    call = ToolCall(id="t1", name="echo", arguments={"text": "x" * 400})
    stored = [
        _msg(1, "user", "do it"),
        _msg(2, "assistant", "", tool_calls=(call,)),
        _msg(3, "tool", "result", tool_call_id="t1", name="echo"),
        _msg(4, "assistant", "done"),
    ]
    small = estimate_tokens(ChatMessage(role="tool", content="result")) + estimate_tokens(
        ChatMessage(role="assistant", content="done")
    )
    assert build_history(stored, small) == []  # the exchange does not fit whole
    full = build_history(stored, 10_000)
    assert [m.role for m in full] == ["user", "assistant", "tool", "assistant"]


def test_an_exchange_left_with_only_its_question_after_an_unfinished_tool_call_is_left_out() -> (
    None
):
    call = ToolCall(id="t9", name="echo", arguments={})
    stored = [
        _msg(1, "user", "do it"),
        _msg(2, "assistant", "", tool_calls=(call,)),  # ARIA stopped before the result
        _msg(3, "user", "hello"),
        _msg(4, "assistant", "hi"),
    ]
    assert [m.content for m in build_history(stored, 10_000)] == ["hello", "hi"]
