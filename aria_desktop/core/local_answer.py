"""A turn answered by a local skill, told as any answered turn is told.

A local answer publishes the same events a one-step model answer does (``think-start``, one
``llm-delta``, ``message-saved``, ``think-end`` with the skill as its backend), so the chat
window, ``aria chat``, the API's ``done`` event and the voice pipeline show and speak it with no
code of their own, and each says who answered (ARCHITECTURE.md: everyday skills).
"""

from __future__ import annotations

from collections.abc import Awaitable

from aria_desktop.core.agent import AgentResult
from aria_desktop.core.bus import EventBus
from aria_desktop.core.ports import Clock, ConversationStore
from aria_desktop.domain import events
from aria_desktop.domain.chat import NewMessage
from aria_desktop.domain.intents import SKILLS_BACKEND, SkillReply

__all__ = ["SKILLS_BACKEND", "publish_local_answer"]


async def publish_local_answer(
    reply: SkillReply,
    *,
    run_id: str,
    conversation_id: str,
    bus: EventBus,
    store: ConversationStore | None,
    clock: Clock,
    user_saved: Awaitable[object] | None = None,
) -> AgentResult:
    """Publish and store ``reply`` as the turn's answer; ``store`` None keeps it unstored."""
    started = clock.monotonic()
    bus.publish(events.ThinkStart(run_id=run_id, step=1))
    if reply.text:
        bus.publish(events.LlmDelta(run_id=run_id, text=reply.text))
    first_ms = (clock.monotonic() - started) * 1000
    if store is not None and reply.text:
        if user_saved is not None:
            await user_saved  # the reply follows the user's words in the conversation
        saved = await store.add_message(
            conversation_id,
            NewMessage(
                role="assistant",
                content=reply.text,
                backend=SKILLS_BACKEND,
                model=reply.skill,
            ),
        )
        bus.publish(
            events.MessageSaved(
                run_id=run_id,
                conversation_id=conversation_id,
                message_id=saved.id,
                role="assistant",
                status=saved.status,
                backend=SKILLS_BACKEND,
                model=reply.skill,
            )
        )
    bus.publish(
        events.ThinkEnd(
            run_id=run_id,
            step=1,
            backend=SKILLS_BACKEND,
            model=reply.skill,
            locality="local",
            first_token_ms=first_ms,
            latency_ms=(clock.monotonic() - started) * 1000,
        )
    )
    return AgentResult(
        text=reply.text, backend=SKILLS_BACKEND, model=reply.skill, locality="local", steps=1
    )
