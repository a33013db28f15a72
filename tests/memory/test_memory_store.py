"""Long-term memory store: real SQLite file, real sqlite-vec, real embedded MiniLM model."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from aria_desktop.adapters.memory.embedding import LOCAL_MODEL_ID, LocalEmbedder
from aria_desktop.adapters.memory.ollama_embed import OllamaEmbedder
from aria_desktop.adapters.memory.store import SQLiteMemoryStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.text import fts_query
from aria_desktop.domain.errors import MemoryInvalidError, NotFoundError, StorageError
from aria_desktop.domain.memory import MemoryDraft, MemoryEdit, MemoryFilter, MemoryQuery
from tests.fakes import FakeOllama
from tests.storage._subprocess import read_line, spawn

FACTS = [
    "My wife's name is Dana",
    "I prefer dark themes in every editor",
    "The Q3 report is in ~/work/q3",
    "My dog is called Rex",
    "I work at Globex as a data engineer",
    "My dentist appointment is on March 14",
]

HOSTILE = [
    'NEAR(" OR *',
    '"',
    "*",
    "AND OR NOT",
    "content:secret",
    "^start",
    "a:b:c -- ; DROP TABLE memories;",
    "NEAR(a b, 3)",
    "\u0000\u2028 emoji 🙂 \\",
    "(((",
    "{col1 col2}: x",
    "",
]


@pytest.fixture(scope="module")
def embedder(embedding_cache: Path) -> Iterator[LocalEmbedder]:
    model = LocalEmbedder(cache_dir=embedding_cache)
    yield model
    model.close()


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "aria.db")
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture
async def store(db: Database, embedder: LocalEmbedder) -> SQLiteMemoryStore:
    memory_store = SQLiteMemoryStore(db, embedder)
    assert await memory_store.open() == 0
    assert memory_store.vector_search_available, memory_store.vector_status
    return memory_store


async def _fill(store: SQLiteMemoryStore) -> dict[str, str]:
    ids = {}
    for text in FACTS:
        memory, action = await store.add(MemoryDraft(content=text))
        assert action == "added"
        ids[text] = memory.id
    return ids


async def test_paraphrased_question_finds_the_memory(store: SQLiteMemoryStore) -> None:
    ids = await _fill(store)
    hits = await store.search(MemoryQuery(text="What's my partner called?", limit=3))
    assert hits[0].memory.id == ids["My wife's name is Dana"]
    assert hits[0].vector_rank == 1
    assert hits[0].lexical_rank is None  # no shared word: only meaning found it
    hits = await store.search(MemoryQuery(text="where did I put the quarterly report", limit=3))
    assert hits[0].memory.id == ids["The Q3 report is in ~/work/q3"]


async def test_row_fts_and_vector_are_written_together(store: SQLiteMemoryStore) -> None:
    await _fill(store)
    counts = await store.check_consistency()
    assert counts == {"rows": 6, "fts": 6, "with_vector": 6, "vectors": 6}
    memory = (await store.list_memories(MemoryFilter(limit=1)))[0]
    assert memory.embedding_model == LOCAL_MODEL_ID


async def test_lexical_only_without_embedder(db: Database) -> None:
    store = SQLiteMemoryStore(db, None)
    await store.open()
    assert not store.vector_search_available
    assert "keyword search only" in store.vector_status
    ids = await _fill(store)
    hits = await store.search(MemoryQuery(text="which editor themes do I prefer?"))
    assert [h.memory.id for h in hits][:1] == [ids["I prefer dark themes in every editor"]]
    assert hits[0].vector_rank is None
    assert hits[0].lexical_rank == 1
    assert (await store.check_consistency())["with_vector"] == 0
    # Meaning-only questions cannot be answered by keywords: nothing, not an error.
    assert await store.search(MemoryQuery(text="What's my partner called?")) == []


@pytest.mark.parametrize("text", HOSTILE)
async def test_hostile_fts_syntax_is_harmless(store: SQLiteMemoryStore, text: str) -> None:
    await _fill(store)
    for mode in ("hybrid", "lexical"):
        await store.search(MemoryQuery(text=text, mode=mode))  # must not raise
    assert '"' not in fts_query(text).replace('" OR "', "").strip('"')


async def test_near_duplicates_reinforce_instead_of_duplicating(store: SQLiteMemoryStore) -> None:
    first, action = await store.add(MemoryDraft(content="My wife's name is Dana", confidence=0.6))
    assert action == "added"
    same, action = await store.add(MemoryDraft(content="  my WIFE's name is dana. "))
    assert (action, same.id) == ("reinforced", first.id)
    assert same.confidence > first.confidence
    close, action = await store.add(MemoryDraft(content="My wife is named Dana"))  # cosine >= 0.9
    assert (action, close.id) == ("reinforced", first.id)
    _other, action = await store.add(MemoryDraft(content="My sister's name is Lena"))
    assert action == "added"
    assert len(await store.list_memories()) == 2


async def test_contradiction_on_the_same_topic_supersedes(store: SQLiteMemoryStore) -> None:
    old, _ = await store.add(
        MemoryDraft(content="I prefer dark themes", kind="preference", topic="theme")
    )
    new, action = await store.add(
        MemoryDraft(content="I prefer light themes", kind="preference", topic="Theme")
    )
    assert action == "superseded"
    assert new.supersedes == old.id
    stale = await store.get(old.id)
    assert stale is not None
    assert (stale.status, stale.superseded_by) == ("superseded", new.id)
    hits = await store.search(MemoryQuery(text="which theme do I prefer"))
    assert [h.memory.id for h in hits] == [new.id]
    history = await store.search(
        MemoryQuery(text="which theme do I prefer", statuses=("superseded",))
    )
    assert [h.memory.id for h in history] == [old.id]
    # Another subject with the same topic is not touched.
    other, action = await store.add(
        MemoryDraft(content="Dana prefers dark themes", subject="Dana", topic="theme")
    )
    assert action == "added"
    # An explicit link replaces only a memory about the same subject.
    fixed, action = await store.add(
        MemoryDraft(content="Dana likes solarized", subject="dana", supersedes=other.id)
    )
    assert (action, fixed.supersedes) == ("superseded", other.id)


async def test_failure_at_the_vector_write_leaves_no_half_memory(
    store: SQLiteMemoryStore, db: Database
) -> None:
    await _fill(store)
    before = await store.check_consistency()
    next_seq = await db.read(lambda c: c.execute("SELECT max(seq) + 1 FROM memories").fetchone()[0])
    # A real constraint: a stray vec0 row already holds the rowid the next memory gets, so the
    # last statement of the add (the vector insert) fails after the row and its FTS entry.
    vector = (await store._embedder.embed(["stray"]))[0]  # type: ignore[union-attr]
    await db.write(
        lambda c: c.execute(
            "INSERT INTO memory_vec (rowid, status, embedding, coarse) "
            "VALUES (?1, 'active', ?2, vec_quantize_binary(vec_f32(?2)))",
            (next_seq, vector),
        )
    )
    with pytest.raises(StorageError):
        await store.add(MemoryDraft(content="Half written memory about zeppelins"))
    after = await store.check_consistency()
    assert after["rows"] == before["rows"]
    assert after["fts"] == before["fts"]
    assert await store.search(MemoryQuery(text="zeppelins", mode="lexical")) == []
    rows = await db.read(
        lambda c: c.execute(
            "SELECT count(*) FROM memories WHERE content LIKE '%zeppelin%'"
        ).fetchone()[0]
    )
    assert rows == 0


async def test_failure_in_a_trigger_rolls_back_row_and_index(
    store: SQLiteMemoryStore, db: Database
) -> None:
    await _fill(store)
    await db.write(
        lambda c: c.execute(
            "CREATE TRIGGER boom AFTER INSERT ON memories WHEN new.content LIKE '%boom%' "
            "BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
        )
    )
    with pytest.raises(StorageError, match="injected failure"):
        await store.add(MemoryDraft(content="This boom memory must not exist"))
    assert await store.check_consistency() == {
        "rows": 6,
        "fts": 6,
        "with_vector": 6,
        "vectors": 6,
    }


@pytest.mark.slow
async def test_killed_writer_leaves_only_whole_memories(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    script = (
        "import asyncio, sys\n"
        "from aria_desktop.adapters.storage.database import Database\n"
        "from aria_desktop.domain.memory import MemoryDraft\n"
        "from aria_desktop.adapters.memory.store import SQLiteMemoryStore\n"
        "from aria_desktop.adapters.memory.embedding import LocalEmbedder\n"
        "async def main():\n"
        f"    db = await Database.open({str(path)!r})\n"
        "    store = SQLiteMemoryStore(db, LocalEmbedder())\n"
        "    await store.open()\n"
        "    i = rows = 0\n"
        "    while True:\n"
        "        fact = f'Crash test fact number {i} about item {i * 7}'\n"
        "        _, action = await store.add(MemoryDraft(content=fact))\n"
        "        i += 1\n"
        "        rows += action != 'reinforced'\n"
        "        if action != 'reinforced' and rows in (5, 7):\n"
        "            print('READY' if rows == 5 else 'WRITING', flush=True)\n"
        "asyncio.run(main())\n"
    )
    proc = spawn("-c", script)
    try:
        assert read_line(proc, 60) == "READY"
        # Killed while it keeps adding (five memories are committed by now): the next one
        # is being embedded or written.
        assert read_line(proc, 60) == "WRITING"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    db = await Database.open(path)
    try:
        store = SQLiteMemoryStore(db, None)
        counts = await store.check_consistency()
        vec_rows = await db.read(
            lambda c: c.execute("SELECT count(*) FROM memory_vec").fetchone()[0]
        )
    finally:
        await db.close()
    assert counts["rows"] >= 5
    assert counts["rows"] == counts["fts"] == counts["with_vector"] == vec_rows


async def test_search_updates_access_statistics(store: SQLiteMemoryStore) -> None:
    ids = await _fill(store)
    await store.search(MemoryQuery(text="dog Rex", limit=1))
    rex = await store.get(ids["My dog is called Rex"])
    assert rex is not None
    assert rex.access_count == 1
    assert rex.last_accessed_at is not None
    await store.search(MemoryQuery(text="dog Rex", limit=1, touch=False))
    again = await store.get(rex.id)
    assert again is not None
    assert again.access_count == 1


async def test_filters_by_kind_subject_status_and_date(store: SQLiteMemoryStore) -> None:
    await store.add(MemoryDraft(content="I like green tea", kind="preference"))
    await store.add(MemoryDraft(content="Dana likes green tea too", subject="Dana"))
    hits = await store.search(MemoryQuery(text="green tea", kinds=("preference",)))
    assert [h.memory.content for h in hits] == ["I like green tea"]
    hits = await store.search(MemoryQuery(text="green tea", subject="dana"))
    assert [h.memory.subject for h in hits] == ["Dana"]
    assert await store.search(MemoryQuery(text="green tea", since=time.time() + 3600)) == []
    with pytest.raises(MemoryInvalidError):
        await store.search(MemoryQuery(text="tea", statuses=("deleted",)))


async def test_forget_and_edit(store: SQLiteMemoryStore) -> None:
    ids = await _fill(store)
    dana = ids["My wife's name is Dana"]
    await store.forget(dana)
    hits = await store.search(MemoryQuery(text="What's my wife's name?"))
    assert dana not in [h.memory.id for h in hits]
    rex = ids["My dog is called Rex"]
    edited = await store.update(rex, MemoryEdit(content="My dog is called Max"))
    assert edited.id == rex
    assert edited.content == "My dog is called Max"
    hits = await store.search(MemoryQuery(text="Max", mode="lexical"))
    assert [h.memory.id for h in hits] == [rex]
    assert await store.search(MemoryQuery(text="Rex", mode="lexical")) == []
    assert await store.check_consistency() == {
        "rows": 6,
        "fts": 6,
        "with_vector": 6,
        "vectors": 6,
    }
    with pytest.raises(NotFoundError):
        await store.forget("mem_missing")
    with pytest.raises(MemoryInvalidError):
        await store.add(MemoryDraft(content="   "))


async def test_confidence_decays_only_for_never_accessed(db: Database) -> None:
    now = [1_700_000_000.0]
    store = SQLiteMemoryStore(db, None, clock=lambda: now[0])
    await store.open()
    unused, _ = await store.add(MemoryDraft(content="Unused fact about teapots"))
    used, _ = await store.add(MemoryDraft(content="Used fact about kettles"))
    await store.search(MemoryQuery(text="kettles"))
    now[0] += 100 * 86_400
    assert await store.decay(after_days=30, per_day=0.01, floor=0.2) == 1
    decayed = await store.get(unused.id)
    kept = await store.get(used.id)
    assert decayed is not None
    assert kept is not None
    assert decayed.confidence == pytest.approx(1.0 - 0.7)
    assert kept.confidence == 1.0
    assert await store.decay(after_days=30, per_day=0.01, floor=0.2) == 1  # same day: no change
    again = await store.get(unused.id)
    assert again is not None
    assert again.confidence == pytest.approx(0.3)


async def test_export_import_is_idempotent(
    store: SQLiteMemoryStore, tmp_path: Path, embedder: LocalEmbedder
) -> None:
    ids = await _fill(store)
    await store.forget(ids["My dog is called Rex"])
    rows = await store.export_rows()
    assert len(rows) == 6
    json.loads(json.dumps(rows))  # JSON-ready
    assert (await store.import_rows(rows)).added == 0  # into itself: nothing new
    other_db = await Database.open(tmp_path / "other.db")
    try:
        other = SQLiteMemoryStore(other_db, embedder)
        await other.open()
        first = await other.import_rows(rows)
        second = await other.import_rows(rows)
        assert (first.added, first.skipped) == (6, 0)
        assert (second.added, second.skipped) == (0, 6)
        bad = await other.import_rows([{"id": "x y", "content": "bad id"}, {"content": ""}])
        assert bad.rejected == 2
        rex = await other.get(ids["My dog is called Rex"])
        assert rex is not None
        assert rex.status == "forgotten"
        assert rex.provenance == "import"
        hits = await other.search(MemoryQuery(text="What's my partner called?", limit=1))
        assert hits[0].memory.id == ids["My wife's name is Dana"]
        assert await other.check_consistency() == {
            "rows": 6,
            "fts": 6,
            "with_vector": 6,
            "vectors": 6,
        }
    finally:
        await other_db.close()


async def test_changing_the_embedding_model_rebuilds_vectors(
    store: SQLiteMemoryStore, db: Database
) -> None:
    await _fill(store)
    with FakeOllama(models=["nomic-embed-text:latest"], embed_dim=768) as server:
        ollama = OllamaEmbedder(base_url=server.url, model="nomic-embed-text")
        try:
            switched = SQLiteMemoryStore(db, ollama)
            assert await switched.open() == 6  # every vector is from the old model
            assert await switched.sync_vectors() == 6
            memories = await switched.list_memories()
            assert {m.embedding_model for m in memories} == {"ollama:nomic-embed-text"}
            assert await switched.check_consistency() == {
                "rows": 6,
                "fts": 6,
                "with_vector": 6,
                "vectors": 6,
            }
            embed_calls = server.requests_to("/api/embed")
            assert embed_calls
            assert embed_calls[-1].json()["model"] == "nomic-embed-text"
        finally:
            await ollama.aclose()


async def test_unreachable_ollama_embedder_falls_back_to_keywords(db: Database) -> None:
    ollama = OllamaEmbedder(base_url="http://127.0.0.1:9", model="nomic-embed-text")
    try:
        store = SQLiteMemoryStore(db, ollama)
        await store.open()
        assert not store.vector_search_available
        assert "Could not reach Ollama" in store.vector_status
        memory, _ = await store.add(MemoryDraft(content="The spare key is under the blue pot"))
        assert memory.embedding_model == ""
        hits = await store.search(MemoryQuery(text="spare key"))
        assert [h.memory.id for h in hits] == [memory.id]
    finally:
        await ollama.aclose()


async def test_reindex_rebuilds_keyword_index_and_vectors(
    store: SQLiteMemoryStore, db: Database
) -> None:
    await _fill(store)
    # Drift: wipe the keyword index and a vector behind the store's back.
    await db.write(
        lambda c: c.execute("INSERT INTO memories_fts (memories_fts) VALUES ('delete-all')")
    )
    await db.write(lambda c: c.execute("DELETE FROM memory_vec WHERE rowid = 1"))
    assert await store.search(MemoryQuery(text="Rex", mode="lexical")) == []
    fts_rows, vectors = await store.reindex()
    assert (fts_rows, vectors) == (6, 6)
    assert await store.check_consistency() == {
        "rows": 6,
        "fts": 6,
        "with_vector": 6,
        "vectors": 6,
    }
    assert len(await store.search(MemoryQuery(text="Rex", mode="lexical"))) == 1


async def test_inbox_approve_and_reject(store: SQLiteMemoryStore) -> None:
    first = await store.add_candidate(
        MemoryDraft(content="I am allergic to peanuts", importance=0.9)
    )
    second = await store.add_candidate(MemoryDraft(content="I like jazz"))
    assert first is not None
    assert second is not None
    assert (
        await store.add_candidate(MemoryDraft(content="I am allergic to peanuts.")) is None
    )  # already queued
    assert [c.id for c in await store.list_candidates()] == [first.id, second.id]
    memory, action = await store.approve_candidate(first.id)
    assert action == "added"
    assert memory.content == "I am allergic to peanuts"
    await store.reject_candidate(second.id)
    assert await store.list_candidates() == []
    with pytest.raises(NotFoundError):
        await store.approve_candidate(second.id)
    assert (
        await store.add_candidate(MemoryDraft(content="I am allergic to peanuts")) is None
    )  # already remembered


async def test_warm_up_loads_the_local_model_before_first_use(embedding_cache: Path) -> None:
    from aria_desktop.adapters.memory.embedding import LocalEmbedder

    model = LocalEmbedder(cache_dir=embedding_cache)
    try:
        loaded_when_built = model.loaded  # nothing is loaded when ARIA is built
        await model.warm_up()
        assert (loaded_when_built, model.loaded) == (False, True)
        (vector,) = await model.embed(["warm"])
        assert len(vector) == 384 * 4
    finally:
        model.close()
