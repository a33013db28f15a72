"""KeptAnswer: a read answered once, read again only after a write that may change it.

Recall's "anything to recall?" checks (memory and knowledge) stand before every turn's model
request; answering them from the event loop instead of the reader thread is part of what keeps
ARIA's first streamed chunk quick (ARCHITECTURE.md: first-chunk latency). Real SQLite file,
real reader and writer threads.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from aria_desktop.adapters.knowledge.store import SQLiteKnowledgeStore
from aria_desktop.adapters.memory.store import SQLiteMemoryStore
from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.kept_answer import KeptAnswer
from aria_desktop.domain.memory import MemoryDraft


def _counting_question(asked: list[int]) -> Callable[[Connection], int]:
    def question(conn: Connection) -> int:
        asked.append(1)
        return int(conn.execute("SELECT count(*) FROM conversations").fetchone()[0])

    return question


def _add_conversation(conn: Connection) -> None:
    conn.execute(
        "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, 't', 0, 0)",
        (f"c{conn.execute('SELECT count(*) FROM conversations').fetchone()[0]}",),
    )


async def test_the_answer_is_read_once_and_kept_until_a_write(db: Database) -> None:
    asked: list[int] = []
    kept = KeptAnswer(db, _counting_question(asked))

    assert [await kept.get() for _ in range(3)] == [0, 0, 0]
    assert len(asked) == 1
    await kept.write(_add_conversation)
    assert [await kept.get() for _ in range(2)] == [1, 1]
    assert len(asked) == 2


async def test_a_failed_write_also_makes_the_answer_read_again(db: Database) -> None:
    asked: list[int] = []
    kept = KeptAnswer(db, _counting_question(asked))
    await kept.get()

    def fail(conn: Connection) -> None:
        _add_conversation(conn)
        raise ValueError("rolled back")

    with pytest.raises(Exception, match="rolled back"):
        await kept.write(fail)
    assert await kept.get() == 0
    assert len(asked) == 2


async def test_an_answer_read_while_a_write_ran_is_not_kept(db: Database) -> None:
    asked: list[int] = []
    entered, release = threading.Event(), threading.Event()

    def slow_question(conn: Connection) -> int:
        asked.append(1)
        entered.set()
        release.wait(10)
        return int(conn.execute("SELECT count(*) FROM conversations").fetchone()[0])

    kept = KeptAnswer(db, slow_question)
    reading = asyncio.create_task(kept.get())
    assert await asyncio.to_thread(entered.wait, 10)
    await kept.write(_add_conversation)  # the reader is still inside its snapshot
    release.set()
    await reading
    entered.clear()

    assert await kept.get() == 1  # read anew, not the raced answer
    assert len(asked) == 2


async def test_an_answer_read_before_a_queued_write_committed_is_not_kept(db: Database) -> None:
    asked: list[int] = []
    kept = KeptAnswer(db, _counting_question(asked))
    entered, release = threading.Event(), threading.Event()

    def slow_write(conn: Connection) -> None:
        entered.set()
        release.wait(10)
        _add_conversation(conn)

    writing = asyncio.create_task(kept.write(slow_write))
    assert await asyncio.to_thread(entered.wait, 10)
    assert await kept.get() == 0  # the write has not committed yet
    release.set()
    await writing

    assert await kept.get() == 1
    assert len(asked) == 2


async def test_a_write_whose_caller_left_is_waited_for_before_anything_is_kept(
    db: Database,
) -> None:
    asked: list[int] = []
    kept = KeptAnswer(db, _counting_question(asked))
    entered, release = threading.Event(), threading.Event()

    def slow_write(conn: Connection) -> None:
        entered.set()
        release.wait(10)
        _add_conversation(conn)

    writing = asyncio.create_task(kept.write(slow_write))
    assert await asyncio.to_thread(entered.wait, 10)
    writing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await writing
    assert await kept.get() == 0  # still running on the writer thread: read, not kept
    release.set()
    await db.write(lambda conn: None)  # queued behind it: it has committed now
    assert await kept.get() == 1
    await kept.write(lambda conn: None)  # a write through it ends: answers are kept again
    assert [await kept.get() for _ in range(2)] == [1, 1]
    assert len(asked) == 3


async def test_memory_recall_gate_follows_every_kind_of_write(db: Database) -> None:
    store = SQLiteMemoryStore(db, None)
    await store.open()
    assert not await store.has_active()
    memory, _ = await store.add(MemoryDraft(content="My sister lives in Porto"))
    assert await store.has_active()
    await store.forget(memory.id)
    assert not await store.has_active()
    candidate = await store.add_candidate(MemoryDraft(content="I like green tea"))
    assert candidate is not None
    assert not await store.has_active()  # the inbox is not recalled from
    approved, _ = await store.approve_candidate(candidate.id)
    assert await store.has_active()
    await store.forget(approved.id)
    assert not await store.has_active()
    rows = [{"id": "mem_imported", "content": "Coach Peters visits Oslo", "status": "active"}]
    assert (await store.import_rows(rows)).added == 1
    assert await store.has_active()


async def test_knowledge_recall_gate_follows_adding_and_removing(
    db: Database, tmp_path: Path
) -> None:
    store = SQLiteKnowledgeStore(db, None)
    await store.open()
    note = tmp_path / "note.md"
    note.write_text("# Boiler\n\nThe boiler's service is every March.\n", encoding="utf-8")
    assert not await store.has_chunks()
    source, report = await store.add(str(note))
    assert report.files_indexed == 1
    assert await store.has_chunks()
    await store.remove(str(source.id))
    assert not await store.has_chunks()
