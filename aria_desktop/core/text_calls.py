"""What the agent loop does with a tool call the model wrote as text that could not be used.

The router reads tool calls written as text (``adapters/llm/text_call_filter.py``); a call naming no
offered tool, or with arguments outside the tool's schema, reaches the agent as a
``ToolCallRejected`` chunk, never as reply text. The agent reports it (a
``tool-call-rejected`` event and a log line), tells the model what was wrong and lets it try
once more in the same turn; a second unusable reply ends the turn with
``InvalidToolCallError`` rather than showing or speaking the call as the answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from aria_desktop.domain.chat import ChatMessage, ToolCallRejected
from aria_desktop.domain.errors import InvalidToolCallError
from aria_desktop.domain.events import Event, ToolCallRejectedEvent

__all__ = ["feedback_message", "give_up", "report_rejected", "retry_messages"]

_LOGGER = logging.getLogger(__name__)
_EVENT_TEXT_CHARS = 500


def report_rejected(
    publish: Callable[[Event], None], run_id: str, rejected: Sequence[ToolCallRejected]
) -> None:
    """One ``tool-call-rejected`` event and one warning per unusable call."""
    for item in rejected:
        _LOGGER.warning(
            "Run %s: the model wrote a tool call that was not run (%s): %s",
            run_id,
            item.name or "no name",
            item.reason,
        )
        publish(
            ToolCallRejectedEvent(
                run_id=run_id,
                name=item.name,
                reason=item.reason,
                text=item.text[:_EVENT_TEXT_CHARS],
            )
        )


def feedback_message(rejected: Sequence[ToolCallRejected]) -> ChatMessage:
    """What the model is told about its unusable calls, so it can write them again."""
    lines = [
        "[ARIA] These tool calls in your last reply were not run:",
        *(f"- {item.name or '(no tool name)'}: {item.reason}" for item in rejected),
        "Call the tool again with arguments that match its schema, using the tool-calling "
        "format, or answer in words if no tool fits.",
    ]
    return ChatMessage(role="user", content="\n".join(lines))


def retry_messages(text: str, rejected: Sequence[ToolCallRejected]) -> list[ChatMessage]:
    """The reply as the model wrote it (calls included) and the feedback, for the retry step."""
    written = "\n".join(part for part in (text, *(item.text for item in rejected)) if part)
    return [ChatMessage(role="assistant", content=written), feedback_message(rejected)]


def give_up(rejected: Sequence[ToolCallRejected]) -> InvalidToolCallError:
    """The turn's error after the model's second unusable tool call."""
    reasons = "; ".join(f"{item.name or 'no name'}: {item.reason}" for item in rejected)
    return InvalidToolCallError(
        f"The model wrote tool calls ARIA could not use, twice ({reasons}).",
        hint="Ask again in other words, or choose a model with native tool calling for "
        "llm.<backend>.model (e.g. qwen3 or llama3.1 on Ollama).",
    )
