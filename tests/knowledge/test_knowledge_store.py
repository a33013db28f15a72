"""The knowledge store on a real database with the packaged embedder and generated documents."""

from __future__ import annotations

import os
from pathlib import Path

from aria_desktop.adapters.knowledge.store import KnowledgeLimits, SQLiteKnowledgeStore
from aria_desktop.adapters.memory.embedding import LocalEmbedder
from aria_desktop.adapters.storage.database import Database
from aria_desktop.domain.knowledge import KnowledgeQuery
from tests.knowledge.conftest import LIMIT_BYTES
from tests.knowledge.corpus import QUESTIONS, ROUTER_MD, write_pdf


async def test_questions_and_paraphrases_find_the_right_file_page_and_heading(
    store: SQLiteKnowledgeStore, corpus: Path
) -> None:
    source, report = await store.add(str(corpus))
    assert source.kind == "folder"
    assert source.files == 4
    assert report.files_indexed == 4
    assert not report.problems
    assert report.chunks_embedded == report.chunks_added > 0
    misses = []
    for question, name, page, heading in QUESTIONS:
        hits = await store.search(KnowledgeQuery(text=question, limit=3))
        top = hits[0] if hits else None
        if (
            top is None
            or Path(top.path).name != name
            or top.page != page
            or heading not in top.heading
        ):
            misses.append((question, top.label if top else None))
    assert not misses, misses


async def test_the_vectors_alone_put_each_questions_passage_first(
    store: SQLiteKnowledgeStore, db: Database, embedder: LocalEmbedder, corpus: Path
) -> None:
    """The embedding model by itself (no keyword leg), paraphrases included."""
    import numpy as np

    await store.add(str(corpus))
    stored = await db.read(
        lambda conn: list(
            conn.execute(
                "SELECT path, page, heading, embedding, embedding_model FROM knowledge_chunks"
            )
        )
    )
    assert {row[4] for row in stored} == {embedder.model_id}
    passages = np.frombuffer(b"".join(row[3] for row in stored), dtype="<f4").reshape(
        len(stored), -1
    )
    asked = await embedder.embed([question for question, *_ in QUESTIONS])
    misses = []
    for (question, name, page, heading), vector in zip(QUESTIONS, asked, strict=True):
        path, found_page, found_heading, *_ = stored[
            int(np.argmax(passages @ np.frombuffer(vector, dtype="<f4")))
        ]
        if Path(path).name != name or found_page != page or heading not in found_heading:
            misses.append((question, Path(path).name, found_page, found_heading))
    assert not misses, misses


async def test_menus_headers_and_footers_of_html_are_not_indexed(
    store: SQLiteKnowledgeStore, corpus: Path
) -> None:
    await store.add(str(corpus))
    for words in ("newsletter", "copyright reserved", "secret ingredient", "about us"):
        hits = await store.search(KnowledgeQuery(text=words, limit=5, min_similarity=0.99))
        assert not [h for h in hits if h.path.endswith(".html")], (words, hits)


async def test_a_weak_keyword_match_is_still_returned_when_nothing_else_matches(
    store: SQLiteKnowledgeStore, corpus: Path
) -> None:
    await store.add(str(corpus))
    # One word of four ("Brother") and no meaning match: weak, but better than nothing.
    query = KnowledgeQuery(text="Brother quasar nebula zeppelin", limit=3, min_similarity=1)
    hits = await store.search(query)
    assert [hit.heading for hit in hits] == ["Home network > Printer"]


async def test_chunks_keep_offsets_into_the_markdown_file(
    store: SQLiteKnowledgeStore, corpus: Path
) -> None:
    await store.add(str(corpus))
    hit = (await store.search(KnowledgeQuery(text="router admin page port 8443", limit=1)))[0]
    assert hit.heading == "Home network > Router"
    assert ROUTER_MD[hit.char_start : hit.char_end].startswith("The router admin page")
    assert hit.target.startswith("file://")
    assert hit.target.endswith("router.md")
    pdf_hit = (await store.search(KnowledgeQuery(text="warranty 24 months", limit=1)))[0]
    assert pdf_hit.page == 3
    assert pdf_hit.target.endswith("manual.pdf#page=3")


async def test_re_adding_an_unchanged_source_is_a_no_op(
    store: SQLiteKnowledgeStore, corpus: Path
) -> None:
    first, _ = await store.add(str(corpus))
    again, report = await store.add(str(corpus))
    assert again.id == first.id
    assert again.chunks == first.chunks
    assert report.files_unchanged == 4
    assert report.files_indexed == report.chunks_embedded == report.chunks_added == 0
    # Touched but identical content: opened and hashed, not extracted or embedded again.
    os.utime(corpus / "router.md", ns=(1, 1))
    report = await store.rescan(str(corpus))
    assert report.files_unchanged == 4
    assert report.chunks_embedded == 0


async def test_an_edit_re_embeds_only_the_changed_chunk(
    store: SQLiteKnowledgeStore, corpus: Path
) -> None:
    await store.add(str(corpus))
    edited = ROUTER_MD.replace("Brother HL-L2350", "Canon LBP-6030")
    (corpus / "router.md").write_text(edited, encoding="utf-8")
    report = await store.rescan(str(corpus))
    assert report.files_indexed == 1
    assert report.files_unchanged == 3
    assert report.chunks_added == 4  # the file's chunks are rewritten ...
    assert report.chunks_embedded == 1  # ... but only the printer paragraph is embedded
    hits = await store.search(KnowledgeQuery(text="Canon printer", limit=1))
    assert hits
    assert hits[0].heading == "Home network > Printer"
    assert not await store.search(
        KnowledgeQuery(text="Brother HL-L2350", limit=3, min_similarity=1)
    )


class _EarlierModel(LocalEmbedder):
    """The packaged model under the id of the previous recipe (unfused int8)."""

    model_id = "all-MiniLM-L6-v2-onnx-int8-dq"


async def test_vectors_of_an_earlier_model_are_all_made_again(
    db: Database, embedder: LocalEmbedder, corpus: Path, embedding_cache: Path
) -> None:
    earlier = _EarlierModel(cache_dir=embedding_cache)
    try:
        old = SQLiteKnowledgeStore(db, earlier)
        await old.open()
        _source, first = await old.add(str(corpus))
    finally:
        await earlier.aclose()
    current = SQLiteKnowledgeStore(db, embedder)
    assert await current.open() == first.chunks_added  # every vector is from the old model
    report = await current.rescan(force=True)  # what the knowledge service does at start
    assert report.chunks_embedded == first.chunks_added
    models = await db.read(
        lambda conn: {
            row[0] for row in conn.execute("SELECT embedding_model FROM knowledge_chunks")
        }
    )
    assert models == {embedder.model_id}
    hits = await current.search(KnowledgeQuery(text="for how many years is the guarantee valid"))
    assert hits[0].page == 3


async def test_deleted_and_moved_files(store: SQLiteKnowledgeStore, corpus: Path) -> None:
    await store.add(str(corpus))
    (corpus / "recipes.html").unlink()
    (corpus / "archive").mkdir()
    (corpus / "manual.pdf").rename(corpus / "archive" / "aurora.pdf")
    report = await store.rescan(str(corpus))
    assert report.files_removed == 2
    assert report.files_indexed == 1
    assert report.chunks_embedded == 0  # a moved file's chunks keep their vectors
    assert not await store.search(KnowledgeQuery(text="apple pie oven", limit=3, min_similarity=1))
    hit = (await store.search(KnowledgeQuery(text="descaling citric acid", limit=1)))[0]
    assert hit.path.endswith("archive/aurora.pdf")
    assert hit.page == 2


async def test_a_restart_picks_up_changes_made_while_stopped(
    tmp_path: Path, corpus: Path, embedder: LocalEmbedder
) -> None:
    limits = KnowledgeLimits(max_file_bytes=LIMIT_BYTES)
    async with await Database.open(tmp_path / "restart.db") as db:
        kb = SQLiteKnowledgeStore(db, embedder, limits=limits)
        await kb.open()
        await kb.add(str(corpus), watch=True)
    (corpus / "router.md").unlink()
    (corpus / "garden.md").write_text("# Garden\n\nPlant tulip bulbs in October.\n")
    async with await Database.open(tmp_path / "restart.db") as db:
        kb = SQLiteKnowledgeStore(db, embedder, limits=limits)
        await kb.open()
        report = await kb.rescan()  # what KnowledgeService.start does
        assert report.files_removed == 1
        assert report.files_indexed == 1
        assert report.chunks_embedded == 1
        hit = (await kb.search(KnowledgeQuery(text="when to plant tulips", limit=1)))[0]
        assert hit.path.endswith("garden.md")
        assert await kb.watched_folders() == [str(corpus)]


async def test_bad_files_get_a_clear_error_each_and_never_stop_the_rest(
    store: SQLiteKnowledgeStore, corpus: Path
) -> None:
    import pypdf

    (corpus / "broken.pdf").write_bytes(b"%PDF-1.4\n this is not really a pdf")
    (corpus / "broken.docx").write_bytes(b"PK\x03\x04 not a zip at all")
    (corpus / "blob.txt").write_bytes(b"\x00\x01\x02binary\x00" * 100)
    (corpus / "huge.md").write_text("# Big\n\n" + "word " * (LIMIT_BYTES // 4))
    write_pdf(
        corpus / "scan.pdf", ("Page one talks about pruning roses in March.",), blank_pages=(2,)
    )
    writer = pypdf.PdfWriter(clone_from=str(corpus / "manual.pdf"))
    writer.encrypt("secret", algorithm="RC4-128")
    writer.write(str(corpus / "locked.pdf"))
    source, report = await store.add(str(corpus))
    codes = {Path(p.path).name: (p.code, p.partial) for p in report.problems}
    assert codes == {
        "broken.pdf": ("malformed", False),
        "broken.docx": ("malformed", False),
        "blob.txt": ("binary", False),
        "huge.md": ("too_large", False),
        "locked.pdf": ("encrypted", False),
        "scan.pdf": ("no_text", True),
    }
    messages = {Path(p.path).name: p.message for p in report.problems}
    assert "page(s) without text" in messages["scan.pdf"]
    assert ": 2" in messages["scan.pdf"]
    assert "encrypted" in messages["locked.pdf"]
    assert report.files_indexed == 5  # the four good files and the scan's text page
    assert source.problems == 6
    assert source.last_error
    hit = (await store.search(KnowledgeQuery(text="pruning roses", limit=1)))[0]
    assert hit.path.endswith("scan.pdf")
    assert hit.page == 1
    files = {Path(f.path).name: f for f in await store.files(str(source.id))}
    assert files["locked.pdf"].problem_code == "encrypted"
    assert files["locked.pdf"].chunks == 0


async def test_single_files_remove_and_bad_requests(
    store: SQLiteKnowledgeStore, corpus: Path
) -> None:
    import pytest

    from aria_desktop.domain.errors import KnowledgeError

    source, report = await store.add(str(corpus / "lease.docx"))
    assert source.kind == "file"
    assert report.files_indexed == 1
    with pytest.raises(KnowledgeError, match="does not exist"):
        await store.add(str(corpus / "missing.md"))
    with pytest.raises(KnowledgeError, match="Only folders can be watched"):
        await store.add(str(corpus / "router.md"), watch=True)
    with pytest.raises(KnowledgeError, match="not an http"):
        await store.add("ftp://example.org/file.pdf")
    removed = await store.remove(str(source.id))
    assert removed.location.endswith("lease.docx")
    assert await store.counts() == (0, 0, 0, 0)
    with pytest.raises(KnowledgeError, match="no knowledge source"):
        await store.remove("99")
