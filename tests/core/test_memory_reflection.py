"""The memory service reflects on every turn that recalled memories: how many it loaded, how
many the reply used, how long loading took; ``memory_stats`` sums them per conversation.

On in-memory ports (tests/fakes/ports.py), recall and the turn observer called as a turn
calls them.
"""

from __future__ import annotations

import dataclasses

import pytest

from aria_desktop.core.memory.service import MemoryConfig, MemoryService
from aria_desktop.core.orchestrator import TurnOutcome
from aria_desktop.domain.memory import NewMemory
from tests.fakes.ports import InMemoryMemoryStore, ScriptedChatModel

ANSWER = "Ada lives in Lisbon."


def _outcome(conversation: str, answer: str = ANSWER, **changes: object) -> TurnOutcome:
    outcome = TurnOutcome(
        run_id=f"run-{conversation}",
        conversation_id=conversation,
        source="text",
        user_text="question",
        answer=answer,
        status="complete",
    )
    return dataclasses.replace(outcome, **changes)  # type: ignore[arg-type]


async def _service() -> tuple[MemoryService, InMemoryMemoryStore]:
    store = InMemoryMemoryStore()
    service = MemoryService(
        store=store, model=ScriptedChatModel(), config=MemoryConfig(auto_extract=False)
    )
    for text in (
        "My sister Ada lives in Lisbon",
        "Ada works as a marine biologist",
        "Ada has a dog called Pico",
    ):
        await service.add_memory(NewMemory(content=text))
    return service, store


async def test_a_turn_that_loaded_three_memories_and_used_one_wasted_two_thirds() -> None:
    service, store = await _service()
    block = await service.recall_context("Tell me about my sister Ada", "conv-1")
    assert block[0].content.count("- [mem_") == 3
    await service.on_turn(_outcome("conv-1"))
    [turn] = store.reflections
    assert (turn.conversation_id, turn.run_id, turn.loaded, turn.used) == (
        "conv-1",
        "run-conv-1",
        3,
        1,
    )
    assert turn.load_ms >= 0
    stats = await service.memory_stats(10)
    [conversation] = stats.conversations
    assert conversation.waste_ratio == pytest.approx(2 / 3)
    assert stats.waste_ratio == pytest.approx(2 / 3)
    assert stats.trend == "new"


async def test_failed_turns_and_turns_that_loaded_nothing_leave_no_reflection() -> None:
    service, store = await _service()
    await service.recall_context("Tell me about my sister Ada", "conv-1")
    await service.on_turn(_outcome("conv-1", "", status="error"))
    await service.recall_context("What is the weather like?", "conv-2")  # matches nothing
    await service.on_turn(_outcome("conv-2", "Sunny."))
    await service.on_turn(_outcome("conv-3"))  # no recall ran for it
    assert store.reflections == []


async def test_a_private_turn_is_reflected_on_but_links_no_memories() -> None:
    service, store = await _service()
    await service.recall_context("Tell me about my sister Ada", "conv-1")
    both = "Ada lives in Lisbon and works as a marine biologist."
    await service.on_turn(_outcome("conv-1", both, private=True))
    assert [t.used for t in store.reflections] == [2]
    memories = await service.list_memories()
    for memory in memories:
        assert await store.associations(memory.id) == []
