"""SQLiteConversationStore: every ConversationStore method against a real database file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.core.ports import ConversationStore
from aria_desktop.domain.chat import MessageBody, NewMessage, ToolCall, ToolCallRecord, Usage
from aria_desktop.domain.errors import NotFoundError
from tests.storage.conftest import FakeClock

pytestmark = pytest.mark.timeout(30)


def as_port(store: SQLiteConversationStore) -> ConversationStore:
    """Fails mypy if the store stops matching the core's protocol."""
    return store


def test_store_satisfies_the_conversation_store_protocol(store: SQLiteConversationStore) -> None:
    port = as_port(store)
    for name in ConversationStore.__dict__:
        if not name.startswith("_"):
            assert callable(getattr(port, name)), name


async def test_create_and_get_conversation(
    store: SQLiteConversationStore, clock: FakeClock
) -> None:
    created = await store.create_conversation("Trip planning")
    assert len(created.id) == 32
    int(created.id, 16)  # uuid4 hex
    assert (created.title, created.created_at, created.updated_at) == (
        "Trip planning",
        clock.now,
        clock.now,
    )
    assert await store.get_conversation(created.id) == created
    assert await store.get_conversation("missing") is None


async def test_list_conversations_newest_activity_first_with_message_counts(
    store: SQLiteConversationStore, clock: FakeClock
) -> None:
    a = await store.create_conversation("a")
    clock.advance()
    b = await store.create_conversation("b")
    clock.advance()
    c = await store.create_conversation("c")
    clock.advance()
    await store.add_message(a.id, NewMessage(role="user", content="hi"))  # a becomes most recent
    await store.add_message(a.id, NewMessage(role="assistant", content="hello"))

    listed = await store.list_conversations()
    assert [conv.id for conv in listed] == [a.id, c.id, b.id]
    assert [conv.message_count for conv in listed] == [2, 0, 0]
    assert listed[0].updated_at == clock.now
    assert [x.id for x in await store.list_conversations(limit=1, offset=1)] == [c.id]
    assert await store.list_conversations(limit=5, offset=3) == []


async def test_rename_conversation_changes_title_only(
    store: SQLiteConversationStore, clock: FakeClock
) -> None:
    conv = await store.create_conversation("old")
    clock.advance()
    await store.rename_conversation(conv.id, "new")
    renamed = await store.get_conversation(conv.id)
    assert renamed is not None
    assert (renamed.title, renamed.updated_at) == ("new", conv.updated_at)


async def test_delete_conversation_cascades_to_messages_and_tool_calls(
    store: SQLiteConversationStore, db: Database
) -> None:
    conv = await store.create_conversation("doomed")
    keep = await store.create_conversation("kept")
    for target in (conv, keep):
        await store.add_message(target.id, NewMessage(role="user", content="x"))
        await store.begin_tool_call(target.id, ToolCall(id="c1", name="t", arguments={}))

    await store.delete_conversation(conv.id)

    assert await store.get_conversation(conv.id) is None

    def counts(conn: Connection) -> list[list[tuple[str, int]]]:
        return [
            conn.execute(f"SELECT conversation_id, count(*) FROM {t} GROUP BY 1").fetchall()
            for t in ("messages", "tool_calls")
        ]

    assert await db.read(counts) == [[(keep.id, 1)], [(keep.id, 1)]]


async def test_unknown_conversation_ids_raise_not_found(store: SQLiteConversationStore) -> None:
    call = ToolCall(id="c", name="t", arguments={})
    attempts = [
        store.rename_conversation("nope", "x"),
        store.delete_conversation("nope"),
        store.add_message("nope", NewMessage(role="user", content="x")),
        store.list_messages("nope"),
        store.begin_tool_call("nope", call),
        store.finish_tool_call("nope", "c", status="ok", result=""),
    ]
    for attempt in attempts:
        with pytest.raises(NotFoundError) as info:
            await attempt
        assert info.value.hint


async def test_add_message_stores_every_field_and_bumps_activity(
    store: SQLiteConversationStore, clock: FakeClock
) -> None:
    conv = await store.create_conversation("c")
    clock.advance(5)
    calls = (ToolCall(id="call-1", name="search", arguments={"q": "ünïcode", "n": [1, 2]}),)
    added = await store.add_message(
        conv.id,
        NewMessage(
            role="assistant",
            content="Let me look.",
            status="interrupted",
            tool_calls=calls,
            backend="ollama",
            model="llama3.2",
            usage=Usage(input_tokens=12, output_tokens=3),
        ),
    )
    tool_reply = await store.add_message(
        conv.id,
        NewMessage(role="tool", content='{"hits": 0}', tool_call_id="call-1", name="search"),
    )

    assert added.created_at == clock.now
    assert tool_reply.id > added.id
    assert await store.list_messages(conv.id) == [added, tool_reply]
    assert added.to_chat_message().tool_calls == calls
    refreshed = await store.get_conversation(conv.id)
    assert refreshed is not None
    assert (refreshed.updated_at, refreshed.message_count) == (clock.now, 2)


async def test_add_message_rejects_unknown_role_or_status(store: SQLiteConversationStore) -> None:
    conv = await store.create_conversation("c")
    with pytest.raises(ValueError, match="role"):
        await store.add_message(conv.id, NewMessage(role="robot", content="x"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="status"):
        await store.add_message(conv.id, NewMessage(role="user", content="x", status="lost"))  # type: ignore[arg-type]
    assert await store.list_messages(conv.id) == []


async def test_update_message_replaces_body_and_keeps_unspecified_metadata(
    store: SQLiteConversationStore, clock: FakeClock
) -> None:
    conv = await store.create_conversation("c")
    msg = await store.add_message(
        conv.id,
        NewMessage(
            role="assistant",
            content="",
            status="interrupted",
            backend="ollama",
            model="m1",
            usage=Usage(input_tokens=7, output_tokens=0),
        ),
    )
    clock.advance()
    await store.update_message(msg.id, MessageBody(content="partial", status="interrupted"))
    [partial] = await store.list_messages(conv.id)
    assert (partial.content, partial.backend, partial.model) == ("partial", "ollama", "m1")
    assert partial.usage == Usage(input_tokens=7, output_tokens=0)

    clock.advance()
    call = ToolCall(id="x", name="t", arguments={"a": 1})
    await store.update_message(
        msg.id,
        MessageBody(
            content="done",
            status="complete",
            tool_calls=(call,),
            backend="anthropic",
            model="m2",
            usage=Usage(input_tokens=9, output_tokens=4),
        ),
    )
    [final] = await store.list_messages(conv.id)
    assert (final.content, final.status, final.tool_calls) == ("done", "complete", (call,))
    assert (final.backend, final.model) == ("anthropic", "m2")
    assert final.usage == Usage(input_tokens=9, output_tokens=4)
    assert final.created_at == msg.created_at
    refreshed = await store.get_conversation(conv.id)
    assert refreshed is not None
    assert refreshed.updated_at == clock.now


async def test_update_unknown_message_raises_not_found(store: SQLiteConversationStore) -> None:
    with pytest.raises(NotFoundError):
        await store.update_message(999, MessageBody(content="x", status="complete"))


async def test_list_messages_pages_backwards_oldest_first(store: SQLiteConversationStore) -> None:
    conv = await store.create_conversation("long")
    other = await store.create_conversation("other")
    ids = []
    for i in range(10):
        ids.append((await store.add_message(conv.id, NewMessage(role="user", content=str(i)))).id)
        await store.add_message(other.id, NewMessage(role="user", content="noise"))

    async def page(limit: int | None, before: int | None) -> list[int]:
        return [m.id for m in await store.list_messages(conv.id, limit=limit, before_id=before)]

    assert await page(None, None) == ids
    assert await page(3, None) == ids[-3:]
    assert await page(3, ids[-3]) == ids[-6:-3]
    assert await page(3, ids[1]) == ids[:1]
    assert await page(None, ids[4]) == ids[:4]
    assert await page(0, None) == []
    assert await page(100, None) == ids
    with pytest.raises(ValueError, match="limit"):
        await page(-1, None)


async def test_begin_tool_call_records_pending_then_returns_existing_record(
    store: SQLiteConversationStore,
) -> None:
    conv = await store.create_conversation("c")
    call = ToolCall(id="call-7", name="click", arguments={"x": 10, "y": 20})

    assert await store.begin_tool_call(conv.id, call) is None
    pending = ToolCallRecord(
        call_id="call-7",
        conversation_id=conv.id,
        name="click",
        arguments={"x": 10, "y": 20},
        status="pending",
    )
    assert await store.begin_tool_call(conv.id, call) == pending

    await store.finish_tool_call(conv.id, "call-7", status="ok", result="clicked")
    assert await store.begin_tool_call(conv.id, call) == ToolCallRecord(
        call_id="call-7",
        conversation_id=conv.id,
        name="click",
        arguments={"x": 10, "y": 20},
        status="ok",
        result="clicked",
    )


async def test_same_call_id_in_another_conversation_is_a_new_call(
    store: SQLiteConversationStore,
) -> None:
    a = await store.create_conversation("a")
    b = await store.create_conversation("b")
    call = ToolCall(id="call-1", name="t", arguments={})
    assert await store.begin_tool_call(a.id, call) is None
    assert await store.begin_tool_call(b.id, call) is None


async def test_concurrent_begins_of_one_call_let_exactly_one_run(
    store: SQLiteConversationStore,
) -> None:
    conv = await store.create_conversation("c")
    call = ToolCall(id="dup", name="t", arguments={})
    async with asyncio.timeout(5):
        results = await asyncio.gather(*(store.begin_tool_call(conv.id, call) for _ in range(10)))
    assert results.count(None) == 1
    assert all(r is None or r.status == "pending" for r in results)


@pytest.mark.parametrize("status", ["error", "denied"])
async def test_finish_tool_call_stores_failure_outcomes(
    store: SQLiteConversationStore, status: str
) -> None:
    conv = await store.create_conversation("c")
    call = ToolCall(id="k", name="t", arguments={})
    await store.begin_tool_call(conv.id, call)
    await store.finish_tool_call(conv.id, "k", status=status, result="nope")
    record = await store.begin_tool_call(conv.id, call)
    assert record is not None
    assert (record.status, record.result) == (status, "nope")


async def test_finish_tool_call_rejects_pending_or_unknown_status_and_unknown_call(
    store: SQLiteConversationStore,
) -> None:
    conv = await store.create_conversation("c")
    await store.begin_tool_call(conv.id, ToolCall(id="k", name="t", arguments={}))
    for status in ("pending", "weird"):
        with pytest.raises(ValueError, match="status"):
            await store.finish_tool_call(conv.id, "k", status=status, result="")
    with pytest.raises(NotFoundError):
        await store.finish_tool_call(conv.id, "never-begun", status="ok", result="")


async def test_data_survives_reopening_the_database(db_path: Path) -> None:
    db = await Database.open(db_path)
    store = SQLiteConversationStore(db)
    conv = await store.create_conversation("persist")
    msg = await store.add_message(conv.id, NewMessage(role="user", content="remember me"))
    await db.close()

    db = await Database.open(db_path)
    try:
        store = SQLiteConversationStore(db)
        assert await store.list_messages(conv.id) == [msg]
        assert [c.id for c in await store.list_conversations()] == [conv.id]
    finally:
        await db.close()
