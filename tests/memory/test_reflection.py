"""Reflections in the real store: one row per turn, read back for the latest conversations."""

from __future__ import annotations

from pathlib import Path

from aria_desktop.adapters.memory.store import SQLiteMemoryStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.migrations import MEMORY_REFLECTIONS
from aria_desktop.domain.memory_reflection import TurnReflection, summarise
from tests.memory.old_stores import old_store_with_memory, table_names


def _turn(conversation: str, at: float, loaded: int, used: int) -> TurnReflection:
    return TurnReflection(
        conversation_id=conversation,
        run_id=f"run-{at}",
        at=at,
        loaded=loaded,
        used=used,
        load_ms=4.5,
    )


async def test_the_latest_conversations_turns_are_read_back_oldest_first(tmp_path: Path) -> None:
    async with await Database.open(tmp_path / "aria.db") as db:
        store = SQLiteMemoryStore(db, None)
        await store.open()
        for turn in (
            _turn("c1", 1, 5, 1),
            _turn("c2", 2, 4, 4),
            _turn("c1", 3, 5, 0),
            _turn("c3", 4, 2, 2),
        ):
            await store.record_reflection(turn)
        latest = await store.reflection_turns(2)
        assert [(t.conversation_id, t.at) for t in latest] == [("c1", 1), ("c1", 3), ("c3", 4)]
        assert latest[0] == _turn("c1", 1, 5, 1)
        stats = summarise(await store.reflection_turns(4), 1)
        assert [c.conversation_id for c in stats.conversations] == ["c3"]
        assert stats.earlier_waste_ratio == 0.9  # c1: 10 loaded, 1 used
        assert stats.trend == "better"


async def test_a_store_of_the_previous_release_gains_the_reflections_table(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    await old_store_with_memory(path, MEMORY_REFLECTIONS, "mem_old", "I live in Leeds")
    async with await Database.open(path, take_lock=False) as db:
        assert "memory_reflections" in await table_names(db)
        store = SQLiteMemoryStore(db, None)
        await store.open()
        assert await store.reflection_turns(10) == []
        assert await store.get("mem_old") is not None
