"""Conversation history for prompts, within a token budget.

Token counts use the one estimate of ``domain/prompt_budget.py`` (UTF-8 bytes / 3 plus template
overhead), the same the router fits each backend's window with; ``agent.history_token_budget``
bounds what history may cost any backend (ARCHITECTURE.md: model window). History is kept and
trimmed in whole exchanges (a user message and everything answering it), newest first, so the
prompt never starts with a reply whose question was cut off, nor with a tool result whose call
was. A user message nothing answered (its turn failed) is left out: sent again, it would run
into the next user message and fail that turn too.
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
    """The newest answered exchanges (oldest first) whose estimated size fits ``budget_tokens``."""
    picked: list[ChatMessage] = []
    used = 0
    for exchange in reversed(_exchanges(stored)):
        cost = sum(estimate_tokens(chat) for chat in exchange)
        if used + cost > budget_tokens:
            break
        picked[:0] = exchange
        used += cost
    return picked


def _exchanges(stored: Sequence[StoredMessage]) -> list[list[ChatMessage]]:
    """The usable messages in exchanges, each a user message and what answered it.

    Messages before the first user message (their question is not stored) and user messages
    nothing answered (also once a tool call without its results is taken out) are left out.
    """
    exchanges: list[list[ChatMessage]] = []
    for message in stored:
        if not _usable(message):
            continue
        chat = message.to_chat_message()
        if chat.role == "user":
            exchanges.append([chat])
        elif exchanges:
            exchanges[-1].append(chat)
    answered = (_calls_with_results(exchange) for exchange in exchanges)
    return [exchange for exchange in answered if len(exchange) > 1]


def _calls_with_results(exchange: list[ChatMessage]) -> list[ChatMessage]:
    """An exchange without tool results whose call is missing, nor calls whose results are.

    Backends reject both (an exchange cut short by a crash can hold either).
    """
    called = {call.id for m in exchange for call in m.tool_calls}
    results = {m.tool_call_id for m in exchange if m.role == "tool"}
    cleaned: list[ChatMessage] = []
    for chat in exchange:
        if chat.role == "tool" and chat.tool_call_id not in called:
            continue
        if chat.tool_calls and not all(call.id in results for call in chat.tool_calls):
            if chat.content:
                cleaned.append(ChatMessage(role="assistant", content=chat.content))
            continue
        cleaned.append(chat)
    return cleaned
