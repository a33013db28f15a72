"""Stateless chat clients as ARIA conversations (``ClientTurn``; ARCHITECTURE.md: client turns).

OpenAI- and Ollama-style clients send the whole conversation with every request. Storing it
all again each time would fill the database with copies, so every reply ARIA gives is
remembered by a *key*: a digest chained over the client's label and the conversation's
non-system messages up to and including that reply. A new request is matched by computing the
same digests over its own messages: the latest one that ends at an assistant message and is
known names the stored conversation, and only the messages after it are stored. System
messages are left out of the digest because clients rewrite them on every request (Home
Assistant's prompt carries the current time). A request that matches nothing starts a new
conversation, labelled with the client, holding its history once.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from aria_desktop.core.ports import ConversationStore
from aria_desktop.domain.chat import ChatMessage, Conversation, NewMessage
from aria_desktop.domain.commands import ClientTurn

__all__ = [
    "ClientHistory",
    "client_prompt",
    "conversation_keys",
    "new_user_text",
    "remember_reply",
    "resolve_history",
    "store_new",
]

_TITLE_CHARS = 60


def _canonical(message: ChatMessage) -> bytes:
    """What identifies a message across requests (ids and images are not echoed reliably)."""
    calls = [[call.name, call.arguments] for call in message.tool_calls]
    return json.dumps(
        [message.role, message.content.strip(), calls], ensure_ascii=False, sort_keys=True
    ).encode()


def conversation_keys(client: str, messages: Sequence[ChatMessage]) -> list[str]:
    """The chained digest after each non-system message of ``messages`` (oldest first)."""
    state = hashlib.sha256(b"aria-client-turn\0" + client.encode())
    keys: list[str] = []
    for message in messages:
        if message.role == "system":
            continue
        state.update(hashlib.sha256(_canonical(message)).digest())
        keys.append(state.copy().hexdigest())
    return keys


@dataclass(frozen=True, kw_only=True)
class ClientHistory:
    """Where a client's request goes and what of it is new.

    Attributes:
        conversation: the stored conversation the request continues, or the new one.
        new_messages: the request's non-system messages not stored yet, oldest first.
        create: the conversation is new and not written yet: :func:`store_new` writes it
            first (so a new client conversation does not hold the model request up).
    """

    conversation: Conversation
    new_messages: tuple[ChatMessage, ...]
    create: bool = False


async def resolve_history(
    store: ConversationStore, command: ClientTurn, now: float
) -> ClientHistory:
    """The conversation ``command`` continues, found by the digests of its messages.

    ``now`` (UNIX seconds) stamps a new conversation until the store writes its own times.
    """
    dialogue = [m for m in command.messages if m.role != "system"]
    keys = conversation_keys(command.client, dialogue)
    # Only a prefix that ends with ARIA's reply can have been remembered.
    candidates = [
        keys[i] for i in reversed(range(len(dialogue))) if dialogue[i].role == "assistant"
    ]
    found = await store.find_conversation_key(candidates) if candidates else None
    if found is not None:
        key, conversation_id = found
        conversation = await store.get_conversation(conversation_id)
        if conversation is not None:
            return ClientHistory(
                conversation=conversation, new_messages=tuple(dialogue[keys.index(key) + 1 :])
            )
    words = " ".join(command.text.split()) or "(tool results)"
    conversation = Conversation(
        id=uuid.uuid4().hex,
        title=f"[{command.client}] {words}"[:_TITLE_CHARS],
        created_at=now,
        updated_at=now,
    )
    return ClientHistory(conversation=conversation, new_messages=tuple(dialogue), create=True)


async def store_new(store: ConversationStore, history: ClientHistory) -> None:
    """Write a new conversation, then append the request's new messages, in order."""
    conversation = history.conversation
    if history.create:
        await store.create_conversation(conversation.title, conversation_id=conversation.id)
    for message in history.new_messages:
        await store.add_message(
            conversation.id,
            NewMessage(
                role=message.role,
                content=message.content,
                tool_calls=message.tool_calls,
                tool_call_id=message.tool_call_id,
                name=message.name,
            ),
        )


async def remember_reply(
    store: ConversationStore, command: ClientTurn, conversation_id: str, reply: ChatMessage
) -> None:
    """Remember that the request's messages plus ``reply`` are ``conversation_id`` so far."""
    keys = conversation_keys(command.client, [*command.messages, reply])
    await store.set_conversation_key(keys[-1], conversation_id)


def client_prompt(
    command: ClientTurn, system_prompt: str, context: Sequence[ChatMessage]
) -> list[ChatMessage]:
    """The prompt: the client's system messages (ARIA's when it sent none), context, the rest.

    Context (memory recall, fenced as untrusted data by its provider) goes right after the
    leading system messages, where the model reads it as background, not as the question.
    """
    messages = list(command.messages)
    lead = 0
    while lead < len(messages) and messages[lead].role == "system":
        lead += 1
    head = messages[:lead] or [ChatMessage(role="system", content=system_prompt)]
    return [*head, *context, *messages[lead:]]


def new_user_text(command: ClientTurn) -> str:
    """The user's words this request adds ("" when it only brings tool results).

    A client continuing a turn with tool results repeats the user's last message; mining it
    again for memories would only count the same fact twice.
    """
    dialogue = [m for m in command.messages if m.role != "system"]
    return command.text if dialogue and dialogue[-1].role == "user" else ""
