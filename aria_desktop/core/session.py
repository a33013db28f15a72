"""Conversation history for prompts, within a token budget.

Token counts are estimated (≈4 characters per token, the usual rule of thumb for English with
BPE tokenizers) because backends differ and exact tokenizers are heavy; the budget is a safety
margin for the context window, not an exact limit. The newest messages are kept; the prompt
never starts with a tool result whose tool call was cut off.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from aria_desktop.domain.chat import ChatMessage, StoredMessage

__all__ = ["build_history", "estimate_tokens"]

_CHARS_PER_TOKEN = 4
_MESSAGE_OVERHEAD_TOKENS = 4


def estimate_tokens(message: ChatMessage) -> int:
    """Estimated tokens of one message, including per-message overhead."""
    size = len(message.content)
    for call in message.tool_calls:
        size += len(call.name) + len(json.dumps(call.arguments, ensure_ascii=False))
    return _MESSAGE_OVERHEAD_TOKENS + (size + _CHARS_PER_TOKEN - 1) // _CHARS_PER_TOKEN


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
