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


def test_newest_messages_within_budget_are_kept_oldest_first() -> None:
    stored = [_msg(i, "user" if i % 2 else "assistant", "x" * 40) for i in range(10)]
    per = estimate_tokens(ChatMessage(role="user", content="x" * 40))
    history = build_history(stored, budget_tokens=per * 3)
    assert len(history) == 3
    assert [m.role for m in history] == [s.role for s in stored[-3:]]


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
    history = build_history(stored, small)
    assert [m.role for m in history] == ["assistant"]
    full = build_history(stored, 10_000)
    assert [m.role for m in full] == ["user", "assistant", "tool", "assistant"]
