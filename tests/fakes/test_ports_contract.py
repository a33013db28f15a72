"""The in-memory fakes keep the rules of the adapters they stand in for.

Each check runs against the fake (tests/fakes/ports.py) and the real SQLite adapter, so core
tests that use a fake test the core against the behaviour it meets in production. Timestamps
come from a clock that ticks one second per call, so orderings never depend on the machine.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from aria_desktop.adapters.memory.store import SQLiteMemoryStore
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.core.ports import ConversationStore, MemoryStore
from aria_desktop.domain.chat import MessageBody, NewMessage, ToolCall, Usage
from aria_desktop.domain.errors import MemoryInvalidError, NotFoundError
from aria_desktop.domain.memory import MemoryDraft, MemoryEdit, MemoryQuery
from tests.fakes.ports import InMemoryConversationStore, InMemoryMemoryStore

DAY_S = 86_400.0


def ticking_clock(start: float = 1_700_000_000.0) -> Callable[[], float]:
    """A clock that moves one second forward each time it is read."""
    seconds = itertools.count()
    return lambda: start + next(seconds)


@pytest.fixture(params=["in-memory", "sqlite"])
async def conversations(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[ConversationStore]:
    if request.param == "in-memory":
        yield InMemoryConversationStore(clock=ticking_clock())
        return
    db = await Database.open(tmp_path / "aria.db")
    try:
        yield SQLiteConversationStore(db, clock=ticking_clock())
    finally:
        await db.close()


@pytest.fixture(params=["in-memory", "sqlite"])
async def memories(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[MemoryStore, list[float]]]:
    """A memory store and the list holding its clock's current time (tests move it)."""
    now = [1_700_000_000.0]
    if request.param == "in-memory":
        yield InMemoryMemoryStore(clock=lambda: now[0]), now
        return
    db = await Database.open(tmp_path / "aria.db")
    store = SQLiteMemoryStore(db, None, clock=lambda: now[0])
    await store.open()
    try:
        yield store, now
    finally:
        await db.close()


# --- ConversationStore -----------------------------------------------------------------------


async def test_conversations_are_listed_by_activity_and_renaming_is_not_activity(
    conversations: ConversationStore,
) -> None:
    first = await conversations.create_conversation("first")
    second = await conversations.create_conversation("second")
    assert [c.id for c in await conversations.list_conversations()] == [second.id, first.id]
    await conversations.add_message(first.id, NewMessage(role="user", content="hello"))
    await conversations.rename_conversation(second.id, "renamed")
    listed = await conversations.list_conversations()
    assert [(c.id, c.message_count) for c in listed] == [(first.id, 1), (second.id, 0)]
    assert [c.id for c in await conversations.list_conversations(limit=1, offset=1)] == [second.id]
    renamed = await conversations.get_conversation(second.id)
    assert renamed is not None
    assert renamed.title == "renamed"
    await conversations.delete_conversation(second.id)
    assert await conversations.get_conversation(second.id) is None
    with pytest.raises(NotFoundError):
        await conversations.delete_conversation(second.id)
    with pytest.raises(NotFoundError):
        await conversations.rename_conversation("missing", "x")
    with pytest.raises(NotFoundError):
        await conversations.add_message("missing", NewMessage(role="user", content="x"))
    with pytest.raises(ValueError, match="negative"):
        await conversations.list_conversations(limit=-1)


async def test_messages_page_backwards_and_updates_keep_who_answered(
    conversations: ConversationStore,
) -> None:
    conversation = await conversations.create_conversation("chat")
    ids = [
        (
            await conversations.add_message(
                conversation.id, NewMessage(role="user", content=f"m{n}")
            )
        ).id
        for n in range(5)
    ]
    assert ids == sorted(ids)
    newest = await conversations.list_messages(conversation.id, limit=2)
    assert [m.content for m in newest] == ["m3", "m4"]
    older = await conversations.list_messages(conversation.id, limit=2, before_id=newest[0].id)
    assert [m.content for m in older] == ["m1", "m2"]
    reply = await conversations.add_message(
        conversation.id,
        NewMessage(
            role="assistant",
            content="",
            status="interrupted",
            backend="ollama",
            model="llama3.2",
            usage=Usage(input_tokens=3, output_tokens=4),
        ),
    )
    call = ToolCall(id="call_1", name="echo", arguments={"text": "x"})
    await conversations.update_message(
        reply.id, MessageBody(content="partial", status="complete", tool_calls=(call,))
    )
    stored = (await conversations.list_messages(conversation.id))[-1]
    assert (stored.content, stored.status, stored.backend, stored.model) == (
        "partial",
        "complete",
        "ollama",
        "llama3.2",
    )
    assert stored.usage == Usage(input_tokens=3, output_tokens=4)
    assert stored.tool_calls == (call,)
    with pytest.raises(NotFoundError):
        await conversations.update_message(10_000, MessageBody(content="x", status="complete"))
    with pytest.raises(NotFoundError):
        await conversations.list_messages("missing")


async def test_conversation_keys_find_the_first_known_key_and_go_with_the_conversation(
    conversations: ConversationStore,
) -> None:
    first = await conversations.create_conversation("one")
    second = await conversations.create_conversation("two")
    assert await conversations.find_conversation_key(["k1"]) is None
    await conversations.set_conversation_key("k1", first.id)
    await conversations.set_conversation_key("k2", second.id)
    assert await conversations.find_conversation_key(["k0", "k2", "k1"]) == ("k2", second.id)
    await conversations.set_conversation_key("k2", first.id)
    assert await conversations.find_conversation_key(["k2"]) == ("k2", first.id)
    with pytest.raises(NotFoundError):
        await conversations.set_conversation_key("k3", "missing")
    await conversations.delete_conversation(first.id)
    assert await conversations.find_conversation_key(["k1", "k2"]) is None


async def test_a_tool_call_id_is_recorded_once_per_conversation(
    conversations: ConversationStore,
) -> None:
    conversation = await conversations.create_conversation("tools")
    call = ToolCall(id="call_1", name="echo", arguments={"text": "once"})
    assert await conversations.begin_tool_call(conversation.id, call) is None
    pending = await conversations.begin_tool_call(conversation.id, call)
    assert pending is not None
    assert (pending.status, pending.arguments) == ("pending", {"text": "once"})
    await conversations.finish_tool_call(conversation.id, "call_1", status="ok", result="done")
    finished = await conversations.begin_tool_call(conversation.id, call)
    assert finished is not None
    assert (finished.status, finished.result) == ("ok", "done")
    with pytest.raises(ValueError, match="ok, error or denied"):
        await conversations.finish_tool_call(conversation.id, "call_1", status="pending", result="")
    with pytest.raises(NotFoundError):
        await conversations.finish_tool_call(conversation.id, "call_2", status="ok", result="")
    other = await conversations.create_conversation("other")
    assert await conversations.begin_tool_call(other.id, call) is None


# --- MemoryStore -----------------------------------------------------------------------------


async def test_a_repeated_memory_reinforces_and_a_new_fact_on_the_topic_supersedes(
    memories: tuple[MemoryStore, list[float]],
) -> None:
    store, _ = memories
    first, action = await store.add(MemoryDraft(content="My wife's name is Dana", confidence=0.6))
    assert action == "added"
    same, action = await store.add(MemoryDraft(content="  my WIFE's name is dana. "))
    assert (action, same.id) == ("reinforced", first.id)
    assert same.confidence > first.confidence
    old, _ = await store.add(
        MemoryDraft(content="I prefer dark themes", kind="preference", topic="theme")
    )
    new, action = await store.add(
        MemoryDraft(content="I prefer light themes", kind="preference", topic="Theme")
    )
    assert (action, new.supersedes) == ("superseded", old.id)
    stale = await store.get(old.id)
    assert stale is not None
    assert (stale.status, stale.superseded_by) == ("superseded", new.id)
    hits = await store.search(MemoryQuery(text="which themes do I prefer"))
    assert [h.memory.id for h in hits] == [new.id]
    history = await store.search(
        MemoryQuery(text="which themes do I prefer", statuses=("superseded",))
    )
    assert [h.memory.id for h in history] == [old.id]
    other, action = await store.add(
        MemoryDraft(content="Dana prefers dark themes", subject="Dana", topic="theme")
    )
    assert action == "added"
    fixed, action = await store.add(
        MemoryDraft(content="Dana likes solarized", subject="dana", supersedes=other.id)
    )
    assert (action, fixed.supersedes) == ("superseded", other.id)
    assert await store.has_active()


async def test_search_filters_touches_and_forgotten_memories_are_not_found(
    memories: tuple[MemoryStore, list[float]],
) -> None:
    store, _ = memories
    tea, _ = await store.add(MemoryDraft(content="I like green tea", kind="preference"))
    await store.add(MemoryDraft(content="Dana likes green tea too", subject="Dana"))
    hits = await store.search(MemoryQuery(text="green tea", kinds=("preference",)))
    assert [h.memory.id for h in hits] == [tea.id]
    hits = await store.search(MemoryQuery(text="green tea", subject="dana"))
    assert [h.memory.subject for h in hits] == ["Dana"]
    touched = await store.get(tea.id)
    assert touched is not None
    assert touched.access_count == 1
    assert touched.last_accessed_at is not None
    await store.search(MemoryQuery(text="green tea", kinds=("preference",), touch=False))
    untouched = await store.get(tea.id)
    assert untouched is not None
    assert untouched.access_count == 1
    edited = await store.update(tea.id, MemoryEdit(content="I like black coffee"))
    assert edited.content == "I like black coffee"
    assert [h.memory.id for h in await store.search(MemoryQuery(text="coffee"))] == [tea.id]
    forgotten = await store.forget(tea.id)
    assert forgotten.status == "forgotten"
    assert await store.search(MemoryQuery(text="coffee")) == []
    with pytest.raises(NotFoundError):
        await store.forget("mem_missing")
    with pytest.raises(MemoryInvalidError):
        await store.add(MemoryDraft(content="   "))


async def test_confidence_decays_once_a_day_and_only_for_memories_never_used(
    memories: tuple[MemoryStore, list[float]],
) -> None:
    store, now = memories
    unused, _ = await store.add(MemoryDraft(content="Unused fact about teapots"))
    used, _ = await store.add(MemoryDraft(content="Used fact about kettles"))
    await store.search(MemoryQuery(text="kettles"))
    now[0] += 100 * DAY_S
    assert await store.decay(after_days=30, per_day=0.01, floor=0.2) == 1
    decayed = await store.get(unused.id)
    kept = await store.get(used.id)
    assert decayed is not None
    assert kept is not None
    assert decayed.confidence == pytest.approx(0.3)
    assert kept.confidence == 1.0
    await store.decay(after_days=30, per_day=0.01, floor=0.2)  # the same day: no change
    again = await store.get(unused.id)
    assert again is not None
    assert again.confidence == pytest.approx(0.3)


async def test_inbox_candidates_are_approved_or_rejected_once(
    memories: tuple[MemoryStore, list[float]],
) -> None:
    store, now = memories
    first = await store.add_candidate(
        MemoryDraft(content="I am allergic to peanuts", importance=0.9)
    )
    now[0] += 1
    second = await store.add_candidate(MemoryDraft(content="I like jazz"))
    assert first is not None
    assert second is not None
    assert (
        await store.add_candidate(MemoryDraft(content="I am allergic to peanuts.")) is None
    )  # already queued
    assert [c.id for c in await store.list_candidates()] == [first.id, second.id]
    memory, action = await store.approve_candidate(first.id)
    assert (action, memory.content, memory.provenance) == (
        "added",
        "I am allergic to peanuts",
        "conversation",
    )
    await store.reject_candidate(second.id)
    assert await store.list_candidates() == []
    with pytest.raises(NotFoundError):
        await store.approve_candidate(second.id)
    assert (
        await store.add_candidate(MemoryDraft(content="I am allergic to peanuts")) is None
    )  # already remembered
