"""Memory tiers in the real store: use promotes with a reason, the user pins, a conversation
starts with stable facts first, and a store of the previous release gains tiers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aria_desktop.adapters.memory.store import SQLiteMemoryStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.migrations import MEMORY_TIERS
from aria_desktop.domain import memory as mem
from aria_desktop.domain.errors import MemoryInvalidError
from aria_desktop.domain.memory_tiers import DAY_S
from tests.memory.old_stores import old_store_with_memory, table_names


class Clock:
    def __init__(self) -> None:
        self.now = 1_750_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(tmp_path: Path, clock: Clock) -> AsyncIterator[SQLiteMemoryStore]:
    database = await Database.open(tmp_path / "aria.db")
    memories = SQLiteMemoryStore(database, None, clock=clock)
    await memories.open()
    try:
        yield memories
    finally:
        await database.close()


async def _add(store: SQLiteMemoryStore, text: str, **fields: object) -> mem.Memory:
    memory, _ = await store.add(mem.MemoryDraft(content=text, **fields))  # type: ignore[arg-type]
    return memory


async def _tier(store: SQLiteMemoryStore, memory_id: str) -> str:
    memory = await store.get(memory_id)
    assert memory is not None
    return memory.tier


async def test_a_memory_recalled_three_times_moves_to_thread_with_the_reason(
    store: SQLiteMemoryStore, clock: Clock
) -> None:
    memory = await _add(store, "I am vegetarian")
    assert memory.tier == "active"
    for _ in range(3):
        clock.now += 60
        hits = await store.search(mem.MemoryQuery(text="vegetarian"))
        assert [h.memory.id for h in hits] == [memory.id]
    assert await _tier(store, memory.id) == "thread"
    [change] = await store.tier_changes(memory.id)
    assert (change.from_tier, change.to_tier, change.reason) == (
        "active",
        "thread",
        "recalled 3 times",
    )
    assert change.at == clock.now


async def test_learned_again_twice_over_a_week_a_memory_becomes_stable(
    store: SQLiteMemoryStore, clock: Clock
) -> None:
    memory = await _add(store, "My sister is called Dana")
    clock.now += DAY_S
    await _add(store, "My sister is called Dana")
    assert await _tier(store, memory.id) == "thread"
    clock.now += 7 * DAY_S
    again, action = await store.add(mem.MemoryDraft(content="My sister is called Dana"))
    assert (again.id, action, again.tier, again.reinforced_count) == (
        memory.id,
        "reinforced",
        "stable",
        2,
    )
    reasons = [c.reason for c in await store.tier_changes(memory.id)]
    assert reasons == ["learned again", "learned again 2 times"]


async def test_disuse_found_by_the_periodic_pass_moves_a_memory_down(
    store: SQLiteMemoryStore, clock: Clock
) -> None:
    memory = await _add(store, "I am vegetarian")
    for _ in range(3):
        await store.search(mem.MemoryQuery(text="vegetarian"))
    assert await _tier(store, memory.id) == "thread"
    clock.now += 61 * DAY_S
    await store.decay(after_days=30, per_day=0.0, floor=0.2)
    assert await _tier(store, memory.id) == "active"
    assert (await store.tier_changes(memory.id))[-1].reason == "not used for 61 days"


async def test_a_pinned_tier_holds_until_the_user_releases_it(
    store: SQLiteMemoryStore, clock: Clock
) -> None:
    memory = await _add(store, "My passport number ends in 4471")
    pinned = await store.update(memory.id, mem.MemoryEdit(tier="stable"))
    assert (pinned.tier, pinned.tier_pinned) == ("stable", True)
    clock.now += 400 * DAY_S
    await store.decay(after_days=30, per_day=0.0, floor=0.2)
    assert await _tier(store, memory.id) == "stable"
    released = await store.update(memory.id, mem.MemoryEdit(tier_pinned=False))
    assert (released.tier, released.tier_pinned) == ("stable", False)
    clock.now += 180 * DAY_S  # the edit itself was a use: the clock of disuse starts there
    await store.decay(after_days=30, per_day=0.0, floor=0.2)
    assert await _tier(store, memory.id) == "thread"
    reasons = [c.reason for c in await store.tier_changes(memory.id)]
    assert reasons[:2] == ["pinned by the user", "released to the use rules by the user"]
    with pytest.raises(MemoryInvalidError, match="tier"):
        await store.update(memory.id, mem.MemoryEdit(tier="forever"))


async def test_a_correction_keeps_the_tier_of_the_memory_it_replaces(
    store: SQLiteMemoryStore,
) -> None:
    old = await _add(store, "I live in Leeds", topic="home city")
    await store.update(old.id, mem.MemoryEdit(tier="stable"))
    new = await _add(store, "I live in York", topic="home city")
    assert (new.supersedes, await _tier(store, new.id)) == (old.id, "stable")
    [change] = await store.tier_changes(new.id)
    assert change.reason == f"replaces {old.id}"


async def test_listing_filters_by_tier(store: SQLiteMemoryStore) -> None:
    stable = await _add(store, "I am vegetarian")
    await _add(store, "The plumber comes on Tuesday")
    await store.update(stable.id, mem.MemoryEdit(tier="stable"))
    found = await store.list_memories(mem.MemoryFilter(tiers=("stable",)))
    assert [m.id for m in found] == [stable.id]
    with pytest.raises(MemoryInvalidError):
        await store.list_memories(mem.MemoryFilter(tiers=("gold",)))


async def test_a_conversation_starts_with_stable_facts_about_the_user_first_within_budget(
    store: SQLiteMemoryStore,
) -> None:
    dana = await _add(store, "Dana works at the hospital", subject="Dana", importance=0.9)
    veg = await _add(store, "I am vegetarian", importance=0.6)
    thread = await _add(store, "I am learning Portuguese", importance=0.9)
    long_one = await _add(store, "I keep a long list of " + "things " * 80, importance=0.95)
    await _add(store, "I once visited Oslo")  # active: not loaded
    for memory_id, tier in (
        (dana.id, "stable"),
        (veg.id, "stable"),
        (thread.id, "thread"),
        (long_one.id, "stable"),
    ):
        await store.update(memory_id, mem.MemoryEdit(tier=tier))
    start = await store.bootstrap(400)
    # The long one does not fit and is skipped, so it crowds out none of the short ones.
    assert [m.id for m in start] == [veg.id, dana.id, thread.id]
    assert [m.id for m in await store.bootstrap(80)] == [veg.id]
    assert await store.bootstrap(0) == []


async def test_a_store_of_the_previous_release_gains_tiers_and_proven_memories_move(
    tmp_path: Path, clock: Clock
) -> None:
    path = tmp_path / "old.db"
    await old_store_with_memory(path, MEMORY_TIERS, "mem_used", "I am vegetarian", access_count=5)
    async with await Database.open(path, take_lock=False) as current:
        assert "memory_tier_changes" in await table_names(current)
        store = SQLiteMemoryStore(current, None, clock=clock)
        await store.open()
        assert await _tier(store, "mem_used") == "active"
        await store.decay(after_days=30, per_day=0.0, floor=0.2)
        assert await _tier(store, "mem_used") == "thread"


async def test_export_and_import_carry_the_tier_and_the_pin(
    store: SQLiteMemoryStore, tmp_path: Path
) -> None:
    memory = await _add(store, "I am vegetarian")
    await store.update(memory.id, mem.MemoryEdit(tier="stable"))
    lines = await store.export_rows()
    assert (lines[0]["tier"], lines[0]["tier_pinned"]) == ("stable", True)
    async with await Database.open(tmp_path / "other.db") as other_db:
        other = SQLiteMemoryStore(other_db, None)
        await other.open()
        report = await other.import_rows(lines)
        assert report.added == 1
        copy = await other.get(memory.id)
        assert copy is not None
        assert (copy.tier, copy.tier_pinned) == ("stable", True)
        bad = {**lines[0], "id": "mem_bad", "content": "other", "tier": "gold"}
        assert (await other.import_rows([bad])).rejected == 1
