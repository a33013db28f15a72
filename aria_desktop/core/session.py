"""Conversation history for prompts, within a token budget.

Token counts use the one estimate of ``domain/prompt_budget.py`` (UTF-8 bytes / 3 plus template
overhead), the same the router fits each backend's window with; ``agent.history_token_budget``
bounds what history may cost any backend (ARCHITECTURE.md: model window). The newest messages
are kept; the prompt never starts with a tool result whose tool call was cut off.
"""

from __future__ import annotations

from collections.abc import Sequence

from aria_desktop.domain.chat import ChatMessage, StoredMessage
from aria_desktop.domain.prompt_budget import estimate_message

__all__ = ["build_history", "estimate_tokens"]


def estimate_tokens(message: ChatMessage) -> int:
    """Estimated tokens of one message, including per-message overhead."""
    return estimate_message(message)


def _usable(message: StoredMessage) -> bool:
    """Whether a stored message belongs in a prompt.

    Failed assistant attempts with no text carry nothing for the model; interrupted replies
    keep their partial text so the model knows what the user already saw.
    """
    if message.role == "system":
        return False
    return not (message.status == "error" and not message.content and not message.tool_calls)


def build_history(stored: Sequence[StoredMessage], budget_tokens: int) -> list[ChatMessage]:
    """The newest usable messages (oldest first) whose estimated size fits ``budget_tokens``."""
    picked: list[ChatMessage] = []
    used = 0
    for message in reversed(stored):
        if not _usable(message):
            continue
        chat = message.to_chat_message()
        cost = estimate_tokens(chat)
        if used + cost > budget_tokens:
            break
        picked.append(chat)
        used += cost
    picked.reverse()
    answered = {call.id for m in picked for call in m.tool_calls}
    # Drop tool results whose call fell outside the window, and assistant tool calls whose
    # results are missing (backends reject both).
    results = {m.tool_call_id for m in picked if m.role == "tool"}
    cleaned: list[ChatMessage] = []
    for chat in picked:
        if chat.role == "tool" and chat.tool_call_id not in answered:
            continue
        if chat.tool_calls and not all(call.id in results for call in chat.tool_calls):
            if chat.content:
                cleaned.append(ChatMessage(role="assistant", content=chat.content))
            continue
        cleaned.append(chat)
    return cleaned
