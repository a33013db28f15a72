"""The ``thinking_and_usage`` migration's columns in a real SQLite file: reasoning, cache
tokens and cost stored apart from the text, kept by streaming updates, and an old database
migrated without losing its messages."""

from __future__ import annotations

from pathlib import Path

from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.migrations import MIGRATIONS, THINKING_AND_USAGE
from aria_desktop.domain.chat import MessageBody, NewMessage, Usage


async def test_thinking_and_cost_round_trip_and_survive_partial_updates(
    store: SQLiteConversationStore,
) -> None:
    conversation = await store.create_conversation("t")
    row = await store.add_message(
        conversation.id, NewMessage(role="assistant", content="", status="interrupted")
    )
    await store.update_message(
        row.id, MessageBody(content="Part", status="interrupted", thinking="Reasoning.")
    )
    # A periodic flush of the streamed text carries no reasoning: the stored one stays.
    await store.update_message(row.id, MessageBody(content="Partial", status="interrupted"))
    usage = Usage(
        input_tokens=10, output_tokens=5, cache_read_tokens=900, cache_write_tokens=40, cost=0.25
    )
    await store.update_message(
        row.id,
        MessageBody(content="Answer.", backend="anthropic", model="claude", usage=usage),
    )
    [stored] = await store.list_messages(conversation.id)
    assert (stored.content, stored.thinking) == ("Answer.", "Reasoning.")
    assert stored.usage == usage
    assert stored.to_chat_message().content == "Answer."


async def test_an_old_database_gains_the_columns_and_keeps_its_messages(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    before = MIGRATIONS.index(THINKING_AND_USAGE)
    db = await Database.open(path, migrations=MIGRATIONS[:before])
    assert db.schema_version == before
    store = SQLiteConversationStore(db)
    conversation = await store.create_conversation("before")
    await db.close()
    db = await Database.open(path)
    try:
        store = SQLiteConversationStore(db)
        await store.add_message(conversation.id, NewMessage(role="user", content="hi"))
        [message] = await store.list_messages(conversation.id)
        assert (message.content, message.thinking, message.usage.cost) == ("hi", "", 0.0)
        assert db.schema_version == len(MIGRATIONS)
    finally:
        await db.close()
