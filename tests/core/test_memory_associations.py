"""The memory service links the memories a reply used and brings a strong link into recall.

On in-memory ports (tests/fakes/ports.py): recall is called as a turn calls it, the finished
turn is handed to the service's turn observer, and the store's associations are read back.
Which memories count as used is decided by ``core/memory/usage.py`` (tested here with plain
strings too).
"""

from __future__ import annotations

import json

from aria_desktop.core.memory.service import MemoryConfig, MemoryService
from aria_desktop.core.memory.usage import used_memories
from aria_desktop.core.orchestrator import TurnOutcome
from aria_desktop.domain.memory import Memory, NewMemory
from tests.fakes.ports import InMemoryMemoryStore, ScriptedChatModel, text_reply


def _service() -> tuple[MemoryService, InMemoryMemoryStore]:
    store = InMemoryMemoryStore()
    config = MemoryConfig(auto_extract=False)
    return MemoryService(store=store, model=ScriptedChatModel(), config=config), store


def _outcome(conversation: str, answer: str, *, private: bool = False) -> TurnOutcome:
    return TurnOutcome(
        run_id="run-1",
        conversation_id=conversation,
        source="text",
        private=private,
        user_text="question",
        answer=answer,
        status="complete",
    )


def test_a_memory_is_used_when_the_reply_cites_it_or_holds_most_of_its_words() -> None:
    lisbon = Memory(id="mem_1", content="My sister Ada lives in Lisbon")
    biologist = Memory(id="mem_2", content="Ada works as a marine biologist")
    cat = Memory(id="mem_3", content="The cat is called Miso")
    reply = "Ada lives in Lisbon, where she works as a marine biologist."
    assert used_memories(reply, [lisbon, biologist, cat]) == [lisbon, biologist]
    assert used_memories("As [mem_3] says, yes.", [lisbon, cat]) == [cat]
    assert used_memories("Lisbon is lovely.", [lisbon, biologist]) == []  # one word of three


async def test_a_reply_using_two_recalled_memories_links_them_and_recall_then_brings_one_in() -> (
    None
):
    service, store = _service()
    lisbon = await service.add_memory(NewMemory(content="My sister Ada lives in Lisbon"))
    biologist = await service.add_memory(NewMemory(content="Ada works as a marine biologist"))
    for conversation in ("conv-1", "conv-2"):
        recalled = await service.recall_context("Tell me about my sister Ada", conversation)
        assert lisbon.id in recalled[0].content
        assert biologist.id in recalled[0].content
        await service.on_turn(
            _outcome(conversation, "Ada lives in Lisbon and works as a marine biologist.")
        )
    [link] = await store.associations(lisbon.id)
    assert (link.memory.id, link.count, link.conversations) == (
        biologist.id,
        2,
        ("conv-1", "conv-2"),
    )
    # "Where does my sister live?" matches the Lisbon memory only; its strong link comes too.
    block = (await service.recall_context("Where does my sister live?", "conv-3"))[0].content
    line = next(line for line in block.splitlines() if biologist.id in line)
    assert f"associated with [{lisbon.id}]" in line
    assert block.index(lisbon.id) < block.index(biologist.id)


async def test_unused_private_or_failed_turns_link_nothing() -> None:
    service, store = _service()
    lisbon = await service.add_memory(NewMemory(content="My sister Ada lives in Lisbon"))
    await service.add_memory(NewMemory(content="Ada works as a marine biologist"))
    await service.recall_context("Tell me about my sister Ada", "conv-1")
    await service.on_turn(_outcome("conv-1", "She lives in Lisbon, I think."))
    await service.recall_context("Tell me about my sister Ada", "conv-2")
    await service.on_turn(
        _outcome("conv-2", "Ada lives in Lisbon and works as a marine biologist.", private=True)
    )
    await service.on_turn(_outcome("conv-9", "Ada lives in Lisbon as a marine biologist."))
    assert await store.associations(lisbon.id) == []
    assert await service.memory_associations(lisbon.id) == []


async def test_facts_learned_in_one_conversation_are_linked_to_each_other_and_to_earlier_ones() -> (
    None
):
    model = ScriptedChatModel()
    store = InMemoryMemoryStore()
    service = MemoryService(store=store, model=model, config=MemoryConfig())
    facts = [
        {"content": "We are adopting a greyhound called Pepper", "topic": "dog"},
        {"content": "Pepper arrives on the 14th of June", "topic": "dog arrival"},
    ]
    later = [{"content": "Pepper is four years old", "topic": "dog age"}]
    model.script(
        text_reply("```json\n" + json.dumps({"facts": facts}) + "\n```"),
        text_reply("```json\n" + json.dumps({"facts": later}) + "\n```"),
    )
    assert await service.extract("We adopt Pepper, arriving 14 June.", conversation_id="c1") == 2
    assert await service.extract("She is four.", conversation_id="c1") == 1
    stored = {m.content: m.id for m in await service.list_memories()}
    age = stored["Pepper is four years old"]
    linked = {a.memory.id for a in await store.associations(age)}
    assert linked == {
        stored["We are adopting a greyhound called Pepper"],
        stored["Pepper arrives on the 14th of June"],
    }
