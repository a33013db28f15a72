"""Memories used together become associated, and recall brings in a strong associate.

"What will my commute be like at the new job?" matches the memory about the new job, not the
one about where that company's office is: only the link between the two, made when they were
used together, lets recall bring in the second. Real SQLite, the real migrations.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aria_desktop.adapters.memory.store import SQLiteMemoryStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.migrations import MEMORY_ASSOCIATIONS
from aria_desktop.domain import memory as mem
from tests.memory.old_stores import old_store_with_memory, table_names


class Clock:
    def __init__(self) -> None:
        self.now = 1_750_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "aria.db")
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(db: Database, clock: Clock) -> SQLiteMemoryStore:
    memories = SQLiteMemoryStore(db, None, clock=clock)  # keyword search: exact and quick
    await memories.open()
    return memories


async def _add(store: SQLiteMemoryStore, text: str, conversation: str | None = None) -> str:
    memory, _action = await store.add(mem.MemoryDraft(content=text, conversation_id=conversation))
    return memory.id


async def test_co_used_memories_gain_an_association_whose_strength_follows_the_formula(
    store: SQLiteMemoryStore, clock: Clock
) -> None:
    job = await _add(store, "I start a new job at Fernhill Studios in March")
    office = await _add(store, "Fernhill Studios has its office on Canal Road in Leeds")
    other = await _add(store, "My bike needs new brake pads")
    assert await store.associations(job) == []
    await store.associate([job, office], "conv-1")
    clock.now += 60
    await store.associate([office, job, job], "conv-2")
    [link] = await store.associations(job)
    assert link.memory.id == office
    assert link.count == 2
    assert link.strength == pytest.approx(math.log(1 + 2) / 10)
    assert link.last_seen - link.first_seen == 60
    assert link.conversations == ("conv-1", "conv-2")
    [back] = await store.associations(office)  # one row per unordered pair
    assert (back.memory.id, back.count) == (job, 2)
    assert await store.associations(other) == []
    assert await store.associate([job], "conv-3") == 0  # one memory is no pair


async def test_recall_of_a_memory_brings_in_its_strong_associate_below_the_hits(
    store: SQLiteMemoryStore,
) -> None:
    job = await _add(store, "I start a new job at Fernhill Studios in March")
    office = await _add(store, "Fernhill's office is on Canal Road in Leeds")
    question = "What will my commute be like at the new job?"
    query = mem.MemoryQuery(text=question, mode="lexical", touch=False, associates=2)
    alone = await store.search(query)
    assert [hit.memory.id for hit in alone] == [job]  # the office memory does not match
    await store.associate([job, office], "conv-1")
    once = await store.search(query)
    assert [hit.memory.id for hit in once] == [job]  # used together once may be chance
    await store.associate([job, office], "conv-2")
    hits = await store.search(query)
    assert [hit.memory.id for hit in hits] == [job, office]
    assert hits[1].associated_with == job
    assert hits[1].score < hits[0].score
    assert hits[0].associated_with is None
    plain = await store.search(mem.MemoryQuery(text=question, mode="lexical", touch=False))
    assert [hit.memory.id for hit in plain] == [job]  # only when asked for


async def test_a_forgotten_associate_is_never_brought_in_and_a_conversation_links_its_facts(
    store: SQLiteMemoryStore,
) -> None:
    first = await _add(store, "We are adopting a greyhound called Pepper", "conv-9")
    second = await _add(store, "Pepper arrives on the 14th of June", "conv-9")
    elsewhere = await _add(store, "The car is due for its MOT", "conv-1")
    assert await store.associate_in_conversation([second], "conv-9") == 1
    [link] = await store.associations(first)
    assert (link.memory.id, link.conversations) == (second, ("conv-9",))
    assert await store.associations(elsewhere) == []
    await store.associate([first, second], "conv-10")
    await store.forget(second)
    assert await store.associations(first) == []
    query = mem.MemoryQuery(text="greyhound adoption", mode="lexical", touch=False, associates=2)
    assert [hit.memory.id for hit in await store.search(query)] == [first]


async def test_export_and_import_carry_associations_and_importing_twice_changes_nothing(
    tmp_path: Path, store: SQLiteMemoryStore, clock: Clock
) -> None:
    job = await _add(store, "I start a new job at Fernhill Studios in March")
    office = await _add(store, "Fernhill's office is on Canal Road in Leeds")
    for conversation in ("conv-1", "conv-2", "conv-3"):
        await store.associate([job, office], conversation)
    lines = await store.export_rows()
    assert lines[-1]["association"]["count"] == 3
    async with await Database.open(tmp_path / "other.db") as other_db:
        other = SQLiteMemoryStore(other_db, None, clock=clock)
        await other.open()
        first = await other.import_rows(lines)
        assert (first.added, first.rejected) == (2, 0)
        again = await other.import_rows(lines)
        assert (again.added, again.skipped, again.rejected) == (0, 2, 0)
        [link] = await other.associations(job)
        assert (link.memory.id, link.count) == (office, 3)
        assert link.conversations == ("conv-1", "conv-2", "conv-3")


async def test_a_store_of_the_previous_release_gains_the_associations_table(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    await old_store_with_memory(path, MEMORY_ASSOCIATIONS, "mem_old", "I live in Leeds")
    async with await Database.open(path, take_lock=False) as current:
        assert "memory_associations" in await table_names(current)
        store = SQLiteMemoryStore(current, None)
        await store.open()
        kept = await store.get("mem_old")
        assert kept is not None
        assert await store.associations(kept.id) == []
