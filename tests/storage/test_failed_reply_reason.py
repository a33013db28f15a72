"""Why a reply failed is kept with it (migration ``failed_reply_reason``), in a real SQLite file,
and the turn that failed writes it."""

from __future__ import annotations

from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.domain.chat import MessageBody, NewMessage


async def test_a_failed_reply_keeps_its_code_and_message_and_a_retry_clears_them(
    store: SQLiteConversationStore,
) -> None:
    conversation = await store.create_conversation("t")
    row = await store.add_message(
        conversation.id, NewMessage(role="assistant", content="", status="interrupted")
    )
    failed = MessageBody(
        content="",
        status="error",
        error_code="backend_unreachable",
        error_message="ollama: cannot connect to http://127.0.0.1:11434",
    )
    await store.update_message(row.id, failed)
    [stored] = await store.list_messages(conversation.id)
    assert (stored.status, stored.error_code, stored.error_message) == (
        "error",
        "backend_unreachable",
        "ollama: cannot connect to http://127.0.0.1:11434",
    )
    await store.update_message(row.id, MessageBody(content="Fine now."))
    [again] = await store.list_messages(conversation.id)
    assert (again.status, again.error_code, again.error_message) == ("complete", "", "")
