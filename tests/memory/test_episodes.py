"""Episodes on the real store: written when a conversation idles or is closed, with a model
summary or (without one) the conversation's own lines, searchable, linked to the memories the
conversation taught; deleting the conversation takes its episode and what only it taught.

Real SQLite (conversations and memories in one file), keyword search; the model is scripted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from aria_desktop.adapters.memory.episodes import SQLiteEpisodeStore
from aria_desktop.adapters.memory.store import SQLiteMemoryStore
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.migrations import EPISODES
from aria_desktop.core.memory.episodes import EpisodeConfig, EpisodeKeeper
from aria_desktop.core.memory.service import MemoryConfig, MemoryService
from aria_desktop.core.orchestrator import TurnOutcome
from aria_desktop.domain.chat import NewMessage
from aria_desktop.domain.errors import LLMError
from aria_desktop.domain.memory import MemoryDraft
from tests.fakes.ports import Raise, ScriptedChatModel, text_reply
from tests.memory.old_stores import old_store_with_memory

DAY = 86_400.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_780_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class World:
    clock: Clock
    conversations: SQLiteConversationStore
    memories: SQLiteMemoryStore
    episodes: SQLiteEpisodeStore
    model: ScriptedChatModel

    def keeper(self, *, with_model: bool = True) -> EpisodeKeeper:
        return EpisodeKeeper(
            episodes=self.episodes,
            conversations=self.conversations,
            model=self.model if with_model else None,
            forget=self._forget,
            config=EpisodeConfig(idle_s=1800.0),
            clock=self.clock,
        )

    async def _forget(self, memory_id: str) -> None:
        await self.memories.forget(memory_id)

    async def conversation(self, title: str, *lines: str) -> str:
        created = await self.conversations.create_conversation(title)
        for line in lines:
            await self.conversations.add_message(created.id, NewMessage(role="user", content=line))
            self.clock.now += 30
            await self.conversations.add_message(
                created.id, NewMessage(role="assistant", content="Noted.")
            )
            self.clock.now += 30
        return created.id


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    clock = Clock()
    db = await Database.open(tmp_path / "aria.db")
    memories = SQLiteMemoryStore(db, None, clock=clock)
    await memories.open()
    try:
        yield World(
            clock=clock,
            conversations=SQLiteConversationStore(db, clock=clock),
            memories=memories,
            episodes=SQLiteEpisodeStore(db, memories, clock=clock),
            model=ScriptedChatModel(),
        )
    finally:
        await db.close()


CAR = ("The car", "Should I sell the Golf or keep it?", "Let's keep it until spring and sell then.")


async def test_a_quiet_conversation_gets_a_model_summary_with_its_time_span(world: World) -> None:
    keeper = world.keeper()
    started = world.clock.now
    car = await world.conversation(*CAR)
    keeper.note_turn(car)
    assert await keeper.idle_pass() == 0  # not quiet long enough yet
    world.model.script(text_reply("Decided to keep the Golf until spring, then sell it."))
    world.clock.now += 1800
    assert await keeper.idle_pass() == 1
    episode = await world.episodes.for_conversation(car)
    assert episode is not None
    assert episode.summary == "Decided to keep the Golf until spring, then sell it."
    assert (episode.summarised, episode.turns, episode.title) == (True, 2, "The car")
    assert (episode.started_at, episode.ended_at) == (started, started + 90)
    [sent] = world.model.requests
    assert "Should I sell the Golf" in sent.messages[-1].content
    assert await keeper.idle_pass() == 0  # written once


async def test_without_a_model_the_episode_keeps_the_title_and_first_lines_then_is_summarised(
    world: World,
) -> None:
    car = await world.conversation(*CAR)
    plain = await world.keeper(with_model=False).end(car)
    assert plain is not None
    assert plain.summary == (
        "The car: Should I sell the Golf or keep it? / Let's keep it until spring and sell then."
    )
    assert not plain.summarised
    later = world.keeper()
    world.model.script(text_reply("Kept the Golf until spring."))
    assert await later.idle_pass() == 1
    summarised = await world.episodes.get(plain.id)
    assert summarised is not None
    assert (summarised.summary, summarised.summarised) == ("Kept the Golf until spring.", True)


async def test_a_failing_model_leaves_the_conversations_own_lines(world: World) -> None:
    car = await world.conversation(*CAR)
    world.model.script([Raise(LLMError("the model server is down"))])
    episode = await world.keeper().end(car)
    assert episode is not None
    assert episode.summary.startswith("The car: Should I sell the Golf")
    assert not episode.summarised


async def test_an_episode_lists_its_memories_and_a_memory_its_conversations(world: World) -> None:
    keeper = world.keeper(with_model=False)
    car = await world.conversation(*CAR)
    golf, _ = await world.memories.add(
        MemoryDraft(content="The user drives a VW Golf", conversation_id=car)
    )
    later = await world.conversation("Insurance", "My Golf insurance renews in May")
    again, action = await world.memories.add(
        MemoryDraft(content="The user drives a VW Golf", conversation_id=later)
    )
    assert (again.id, action) == (golf.id, "reinforced")
    episode = await keeper.end(car)
    assert episode is not None
    assert episode.memory_ids == (golf.id,)
    sources = await keeper.memory_sources(golf.id)
    assert [(s.conversation_id, s.relation, s.episode_id) for s in sources] == [
        (car, "extracted", episode.id),
        (later, "reinforced", None),  # no episode written for it yet
    ]


async def test_deleting_a_conversation_removes_its_episode_and_what_only_it_taught(
    world: World,
) -> None:
    keeper = world.keeper(with_model=False)
    car = await world.conversation(*CAR)
    only_here, _ = await world.memories.add(
        MemoryDraft(content="The Golf needs new tyres", conversation_id=car)
    )
    shared, _ = await world.memories.add(
        MemoryDraft(content="The user drives a VW Golf", conversation_id=car)
    )
    other = await world.conversation("Insurance", "My Golf insurance renews in May")
    await world.memories.add(
        MemoryDraft(content="The user drives a VW Golf", conversation_id=other)
    )
    await keeper.end(car)
    await keeper.end(other)
    await world.memories.forget(shared.id)  # forgetting a memory keeps the episode
    assert await world.episodes.for_conversation(car) is not None
    await world.conversations.delete_conversation(car)
    assert await keeper.conversation_deleted(car) == [only_here.id]
    assert await world.episodes.for_conversation(car) is None
    gone = await world.memories.get(only_here.id)
    assert gone is not None
    assert gone.status == "forgotten"
    assert [s.conversation_id for s in await keeper.memory_sources(shared.id)] == [other]
    assert await world.episodes.for_conversation(other) is not None


async def test_episodes_are_found_by_topic_and_by_the_day_a_question_names(world: World) -> None:
    keeper = world.keeper(with_model=False)
    car = await world.conversation(*CAR)
    await keeper.end(car)
    world.clock.now += DAY
    garden = await world.conversation("Garden", "When should I plant the tulip bulbs?")
    await keeper.end(garden)
    found = await keeper.list_episodes("what did we decide about selling the Golf?")
    assert [e.conversation_id for e in found][:1] == [car]
    yesterday = await keeper.list_episodes("what did we talk about yesterday?")
    assert [e.conversation_id for e in yesterday] == [car]
    latest = await keeper.list_episodes()
    assert [e.conversation_id for e in latest] == [garden, car]


async def test_recall_brings_the_episode_a_question_about_the_past_names_and_cites_it(
    world: World,
) -> None:
    keeper = world.keeper(with_model=False)
    car = await world.conversation(*CAR)
    episode = await keeper.end(car)
    assert episode is not None
    service = MemoryService(
        store=world.memories,
        model=world.model,
        config=MemoryConfig(auto_extract=False),
        episodes=keeper,
    )
    await world.memories.add(MemoryDraft(content="The user likes strong coffee"))
    [block] = await service.recall_context("What did we decide about the Golf?", "conv-new")
    assert f"[{episode.id}]" in block.content
    assert f"cite it as [{car}]" in block.content
    plain = await service.recall_context("Is a Golf a good first car?", "conv-new")
    assert all(episode.id not in m.content for m in plain)  # not about our conversations


async def test_a_store_of_the_previous_release_keeps_where_its_memories_came_from(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    await old_store_with_memory(
        path, EPISODES, "mem_old", "I live in Leeds", conversation_id="conv-old"
    )
    async with await Database.open(path, take_lock=False) as db:
        memories = SQLiteMemoryStore(db, None)
        await memories.open()
        [source] = await SQLiteEpisodeStore(db, memories).sources("mem_old")
        assert (source.conversation_id, source.relation) == ("conv-old", "extracted")


async def test_a_finished_turn_makes_the_conversation_due_for_an_episode_once_quiet(
    world: World,
) -> None:
    keeper = world.keeper(with_model=False)
    service = MemoryService(
        store=world.memories,
        model=world.model,
        config=MemoryConfig(auto_extract=False),
        episodes=keeper,
    )
    car = await world.conversation(*CAR)
    outcome = TurnOutcome(
        run_id="run-1",
        conversation_id=car,
        source="text",
        user_text=CAR[2],
        answer="Noted.",
        status="complete",
    )
    await service.on_turn(outcome)
    world.clock.now += 1799
    assert await keeper.idle_pass() == 0
    world.clock.now += 1
    assert await keeper.idle_pass() == 1
    assert await world.episodes.for_conversation(car) is not None
    failed = dataclasses.replace(outcome, conversation_id="conv-failed", status="error")
    await service.on_turn(failed)
    world.clock.now += 3600
    assert await keeper.idle_pass() == 0  # a failed turn leaves nothing due
    assert await keeper.flush() == 0
    keeper.note_turn(car)  # ARIA quits right after a turn: the episode is kept, unsummarised
    assert await keeper.flush() == 1


async def test_export_and_import_carry_episodes_and_where_memories_came_from(
    world: World, tmp_path: Path
) -> None:
    car = await world.conversation(*CAR)
    golf, _ = await world.memories.add(
        MemoryDraft(content="The user drives a VW Golf", conversation_id=car)
    )
    episode = await world.keeper(with_model=False).end(car)
    assert episode is not None
    lines = await world.memories.export_rows()
    async with await Database.open(tmp_path / "other.db") as other_db:
        other = SQLiteMemoryStore(other_db, None)
        await other.open()
        for _ in range(2):  # importing twice adds nothing the second time
            await other.import_rows(lines)
        episodes = SQLiteEpisodeStore(other_db, other)
        [copy] = await episodes.list_episodes()
        assert (copy.id, copy.summary, copy.memory_ids) == (episode.id, episode.summary, (golf.id,))
        [source] = await episodes.sources(golf.id)
        assert (source.conversation_id, source.episode_id) == (car, episode.id)
        assert [h.episode.id for h in await episodes.search("selling the Golf")] == [episode.id]
